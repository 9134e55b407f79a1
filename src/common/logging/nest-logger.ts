import type { LoggerService } from '@nestjs/common';
import type { Logger as Pino } from 'pino';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Nest's logger interface on a pino logger: `logger.log(message, context)` becomes
 * `{"context": …, "msg": …}`, an Error becomes `err`. The context is Nest's last optional
 * parameter (its own convention); Nest's exception handlers call `error(message, stack, context)`,
 * which is logged as one error with that stack.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    if (rest.length && typeof rest[rest.length - 1] === 'string') fields.context = rest.pop();
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, message.message);
      return;
    }
    if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
      this.pino[level](fields);
      return;
    }
    const text = String(message);
    const stack = rest.find((p): p is string => typeof p === 'string' && /\n\s+at /.test(p));
    if (stack) fields.err = { type: 'Error', message: text, stack };
    this.pino[level](fields, text);
  }
}
