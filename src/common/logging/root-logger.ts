import pino, { type Logger } from 'pino';
import { logDestination } from './log-destination';

/** The process's logger: JSON lines, or pretty ones on a terminal; credentials in headers redacted. */
export function rootLogger(level: string): Logger {
  const options = { level, redact: ['req.headers.authorization', 'req.headers["x-api-token"]', 'req.headers.cookie'] };
  const destination = logDestination();
  return destination ? pino(options, destination) : pino(options);
}
