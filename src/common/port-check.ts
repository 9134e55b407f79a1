import { createServer } from 'node:net';

/** HOST:PORT cannot be listened on; the message is one line naming the variable to change. */
export class ListenError extends Error {}

/** The one line for an error of listening on `host:port` (EADDRINUSE …), or undefined for others. */
export function describeListenError(error: unknown, host: string, port: number): string | undefined {
  switch ((error as { code?: string } | null)?.code) {
    case 'EADDRINUSE':
      return `PORT ${port} is already in use on ${host}: stop what listens there or set PORT to a free port`;
    case 'EACCES':
      return `PORT ${port} on ${host} needs privileges this process lacks: set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1 by default)`;
    default:
      return undefined;
  }
}

/**
 * Listens on `host:port` for a moment and lets go. Start-up calls it before the database opens,
 * which takes seconds and may run migrations, so a port that is taken stops the process at once
 * instead of after all that. (Something may still take the port in between; listen() then fails
 * with the same line.)
 */
export function assertCanListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', (error) => {
      const line = describeListenError(error, host, port);
      reject(line ? new ListenError(line) : error);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
