/**
 * A counting TCP proxy between Helix and PostgreSQL. It reads the wire protocol in both
 * directions (without changing a byte) and counts, per client connection:
 * - statements executed (simple `Q`, extended `E`), by their first keyword;
 * - transactions: every ReadyForQuery with status `I` (idle) that follows at least one statement
 *   ends exactly one transaction — an implicit single-statement one or an explicit BEGIN…COMMIT;
 *   it is a write transaction when one of its statements was INSERT/UPDATE/DELETE/MERGE;
 * - round trips: ReadyForQuery messages.
 * Only plain-text connections are understood (node-postgres without ssl, as Helix uses here).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface PgCounts {
  transactions: number;
  writeTransactions: number;
  roundTrips: number;
  statements: Record<string, number>;
  /** executions per statement text (whitespace collapsed, first 160 characters) */
  byText: Record<string, number>;
  unparsedConnections: number;
}

const WRITE = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);
const CONTROL = new Set(['BEGIN', 'COMMIT', 'ROLLBACK', 'START', 'SAVEPOINT', 'RELEASE', 'END']);

function shorten(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim().slice(0, 160);
}

function keyword(sql: string): string {
  const match = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*(\w+)/.exec(sql);
  return (match?.[1] ?? '?').toUpperCase();
}

export interface PgProxy {
  port: number;
  counts(): PgCounts;
  reset(): void;
  close(): Promise<void>;
}

export async function startPgProxy(targetHost: string, targetPort: number): Promise<PgProxy> {
  let counts: PgCounts = { transactions: 0, writeTransactions: 0, roundTrips: 0, statements: {}, byText: {}, unparsedConnections: 0 };
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    // per-connection protocol state
    let startup = true;
    let parsed = true;
    let fromClient: Buffer = Buffer.alloc(0);
    let fromServer: Buffer = Buffer.alloc(0);
    const prepared = new Map<string, { kind: string; text: string }>();
    let portal = { kind: '?', text: '?' };
    let statementsInTxn = 0;
    let writeInTxn = false;

    const statement = (kind: string, text: string) => {
      counts.statements[kind] = (counts.statements[kind] ?? 0) + 1;
      counts.byText[text] = (counts.byText[text] ?? 0) + 1;
      if (!CONTROL.has(kind)) statementsInTxn++;
      if (WRITE.has(kind)) writeInTxn = true;
    };

    const readClient = () => {
      for (;;) {
        if (!parsed) return;
        if (startup) {
          if (fromClient.length < 4) return;
          const len = fromClient.readInt32BE(0);
          if (fromClient.length < len) return;
          const code = fromClient.readInt32BE(4);
          if (code === 80877103 || code === 80877104) {
            parsed = false; // SSL / GSS negotiation: not understood, pass through uncounted
            counts.unparsedConnections++;
            return;
          }
          fromClient = fromClient.subarray(len);
          startup = false;
          continue;
        }
        if (fromClient.length < 5) return;
        const type = String.fromCharCode(fromClient[0]);
        const len = fromClient.readInt32BE(1);
        if (fromClient.length < len + 1) return;
        const payload = fromClient.subarray(5, len + 1);
        if (type === 'Q') {
          const sql = payload.toString('utf8', 0, Math.min(payload.length, 400));
          statement(keyword(sql), shorten(sql.replace(/\0.*$/s, '')));
        } else if (type === 'P') {
          const nameEnd = payload.indexOf(0);
          const name = payload.toString('utf8', 0, nameEnd);
          const queryEnd = payload.indexOf(0, nameEnd + 1);
          const sql = payload.toString('utf8', nameEnd + 1, Math.min(queryEnd, nameEnd + 401));
          prepared.set(name, { kind: keyword(sql), text: shorten(sql) });
        } else if (type === 'B') {
          const portalEnd = payload.indexOf(0);
          const stmtEnd = payload.indexOf(0, portalEnd + 1);
          portal = prepared.get(payload.toString('utf8', portalEnd + 1, stmtEnd)) ?? { kind: '?', text: '?' };
        } else if (type === 'E') {
          statement(portal.kind, portal.text);
        }
        fromClient = fromClient.subarray(len + 1);
      }
    };

    const readServer = () => {
      for (;;) {
        if (!parsed) return;
        if (fromServer.length < 5) return;
        const type = String.fromCharCode(fromServer[0]);
        const len = fromServer.readInt32BE(1);
        if (fromServer.length < len + 1) return;
        if (type === 'Z') {
          counts.roundTrips++;
          const status = String.fromCharCode(fromServer[5]);
          if (status === 'I' && statementsInTxn > 0) {
            counts.transactions++;
            if (writeInTxn) counts.writeTransactions++;
            statementsInTxn = 0;
            writeInTxn = false;
          } else if (status === 'I') {
            writeInTxn = false;
          }
        }
        fromServer = fromServer.subarray(len + 1);
      }
    };

    client.on('data', (data: Buffer) => {
      upstream.write(data);
      if (parsed) {
        fromClient = fromClient.length ? Buffer.concat([fromClient, data]) : data;
        readClient();
      }
    });
    upstream.on('data', (data: Buffer) => {
      client.write(data);
      if (parsed) {
        fromServer = fromServer.length ? Buffer.concat([fromServer, data]) : data;
        readServer();
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    counts: () => ({ ...counts, statements: { ...counts.statements }, byText: { ...counts.byText } }),
    reset: () => {
      counts = { transactions: 0, writeTransactions: 0, roundTrips: 0, statements: {}, byText: {}, unparsedConnections: counts.unparsedConnections };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
