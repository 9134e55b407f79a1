import type { Readable } from 'node:stream';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../workspace';

const STDERR_TAIL_CHARS = 500;

/** A transport, and the end of what a stdio server wrote to stderr (it tells why it died). */
export interface OpenedTransport {
  transport: Transport;
  stderrTail(): string;
}

/**
 * The transport of a server, with `env`/`headers` already resolved (secrets read). A stdio
 * server gets the SDK's safe default environment (PATH, HOME …) plus its own variables, not
 * Helix's whole environment: that holds Helix's own credentials.
 */
export function openTransport(server: McpServerConfig, values: { env?: Record<string, string>; headers?: Record<string, string> }): OpenedTransport {
  if (server.transport === 'http') {
    const transport = new StreamableHTTPClientTransport(new URL(server.url ?? ''), {
      requestInit: values.headers ? { headers: values.headers } : undefined,
      // a dropped SSE stream is the connection's failure to handle (it reconnects with a backoff)
      reconnectionOptions: { maxReconnectionDelay: 5_000, initialReconnectionDelay: 500, reconnectionDelayGrowFactor: 2, maxRetries: 0 },
    });
    return { transport, stderrTail: () => '' };
  }
  const transport = new StdioClientTransport({
    command: server.command ?? '',
    args: server.args ?? [],
    env: { ...getDefaultEnvironment(), ...values.env },
    stderr: 'pipe',
  });
  let tail = '';
  // the PassThrough exists before start(); it must be read or a chatty server blocks on a full pipe
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return { transport, stderrTail: () => tail.trim() };
}
