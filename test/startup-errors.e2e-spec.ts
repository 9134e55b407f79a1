/**
 * Start-up failures an operator meets first: a DATABASE_URL that names no usable server, database
 * or role, and a port already taken. Each exits non-zero with one line naming the variable, as a
 * real process (test/support/helix-process.ts).
 */
import { createServer, type Server } from 'node:net';
import { freePort, spawnHelix } from './support/helix-process';
import { postgresAdminUrl } from './support/test-database';

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

async function failsWithOneLine(env: Record<string, string>): Promise<string> {
  const helix = spawnHelix({ PORT: freePort(), ...env });
  expect(await helix.exited).toBe(1);
  const out = lines(helix.output());
  expect(out).toHaveLength(1);
  return out[0];
}

/** A port the system just gave out and took back: nothing listens there (freePort's may be another suite's). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('start-up errors are one line naming what to fix', () => {
  it('DATABASE_URL with nothing listening on its port', async () => {
    const port = await closedPort();
    const line = await failsWithOneLine({ DATABASE_URL: `postgresql://helix:s3cret@127.0.0.1:${port}/helix` });
    expect(line).toMatch(/^helix: DATABASE_URL /);
    expect(line).toContain(`127.0.0.1:${port}`);
    expect(line).toMatch(/start PostgreSQL/);
    expect(line).not.toContain('s3cret');
  });

  it('DATABASE_URL whose server never answers: a timeout within seconds', async () => {
    // accepts the connection and says nothing, like a host behind a firewall that drops packets
    const sockets: Array<{ destroy(): void }> = [];
    const blackhole: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const { port } = blackhole.address() as { port: number };
    try {
      const started = Date.now();
      const line = await failsWithOneLine({ DATABASE_URL: `postgresql://helix:s3cret@127.0.0.1:${port}/helix` });
      expect(line).toMatch(/^helix: DATABASE_URL /);
      expect(line).toContain(`cannot reach the database at 127.0.0.1:${port}: timeout after 5000 ms`);
      expect(line).not.toContain('s3cret');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackhole.close(resolve));
    }
  }, 30_000);

  const admin = postgresAdminUrl();
  // these need a PostgreSQL server: .ci/run's second pass (HELIX_TEST_DATABASE_URL) has one
  const withServer = admin ? it : it.skip;

  withServer('DATABASE_URL naming a database that does not exist', async () => {
    const url = new URL(admin!);
    url.pathname = '/helix_no_such_database';
    const line = await failsWithOneLine({ DATABASE_URL: url.toString() });
    expect(line).toMatch(/^helix: DATABASE_URL /);
    expect(line).toContain('"helix_no_such_database" does not exist');
    expect(line).toContain('createdb helix_no_such_database');
  });

  withServer('DATABASE_URL with a role the server refuses', async () => {
    const url = new URL(admin!);
    url.username = 'helix_no_such_role';
    url.password = 'wrong-password';
    const line = await failsWithOneLine({ DATABASE_URL: url.toString() });
    expect(line).toMatch(/^helix: DATABASE_URL /);
    expect(line).toContain('"helix_no_such_role"');
    expect(line).toMatch(/correct the user and password/);
    expect(line).not.toContain('wrong-password');
  });

  describe('a port already in use', () => {
    let taken: Server;
    let port: string;
    beforeAll(async () => {
      port = freePort();
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(Number(port), '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    it('is named before the database is opened', async () => {
      // a DATABASE_URL nothing answers: had the database been opened first, its line would be the one printed
      const helix = spawnHelix({ PORT: port, DATABASE_URL: `postgresql://helix@127.0.0.1:${freePort()}/helix` });
      expect(await helix.exited).toBe(1);
      const out = lines(helix.output());
      expect(out).toEqual([`helix: PORT ${port} is already in use on 127.0.0.1: stop what listens there or set PORT to a free port`]);
    });
  });
});
