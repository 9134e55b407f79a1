import type { DestinationStream } from 'pino';
import { PinoPretty } from 'pino-pretty';

/**
 * Where log lines go: JSON lines on stdout, for log collectors, unless stdout is a terminal,
 * where a person reads them: then one coloured line per entry (pino-pretty). Written in this
 * thread and synchronously, so the last lines before an exit are not lost; the cost only
 * matters at volumes a terminal never sees.
 */
export function logDestination(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  return PinoPretty({
    colorize: true,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,req,res,responseTime',
    messageFormat: '{if context}[{context}] {end}{msg}{if req.method} {req.method} {req.url} {res.statusCode} {responseTime} ms{end}',
  });
}
