import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EffectiveSettings } from '../../../workspace';
import type { WorkdirChanges, WorkdirFile, WorkdirService } from '../../../workdir';
import { reachesPrivate, SHELL_MAX_STREAM_CHARS, ShellTool } from './shell.tool';

/** The working directory as a map; `apply` refuses past `quota` bytes like the real one. */
function fakeWorkdir(quota = 10_000) {
  const files = new Map<string, Buffer>();
  const workdir = {
    quotaBytes: quota,
    snapshot: async (): Promise<WorkdirFile[]> => [...files].map(([path, content]) => ({ path, content, size: content.length, updatedAt: new Date() })),
    apply: async (_id: string, changes: WorkdirChanges) => {
      const next = new Map(files);
      changes.deletes.forEach((path) => next.delete(path));
      changes.writes.forEach((write) => next.set(write.path, write.content));
      const used = [...next.values()].reduce((sum, content) => sum + content.length, 0);
      if (used > quota) return { ok: false as const, error: `Quota exceeded (${used} > ${quota}).` };
      files.clear();
      next.forEach((content, path) => files.set(path, content));
      return { ok: true as const, usedBytes: used };
    },
  };
  return { files, workdir: workdir as unknown as WorkdirService };
}

/** Each call starts a worker thread running just-bash: these tests run the real sandbox. */
describe('shell', () => {
  jest.setTimeout(60_000);
  const context = (settings: EffectiveSettings = {}) => ({ conversationId: 'c', settings, signal: new AbortController().signal });

  it('is high risk; runs a command over the files and stores what it wrote', async () => {
    const { files, workdir } = fakeWorkdir();
    files.set('old.txt', Buffer.from('old\n'));
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 5000 });
    expect(tool.risk).toBe('high');
    const result = await tool.run({ command: 'echo hi > a.txt && cat a.txt && cat old.txt && rm old.txt && pwd' }, context());
    expect(result).toEqual({ ok: true, output: 'Exit code: 0\nstdout:\nhi\nold\n/workspace\n\nFiles: created a.txt; deleted old.txt.' });
    expect([...files.keys()]).toEqual(['a.txt']);
    expect(files.get('a.txt')?.toString()).toBe('hi\n');
  });

  it("cannot read the host's files or environment, and has no network without shellAllowedUrls", async () => {
    process.env.HELIX_SHELL_SPEC_SECRET = 'do-not-leak';
    const { workdir } = fakeWorkdir();
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 5000 });
    const result = await tool.run({ command: `cat /etc/passwd; ls ${process.cwd()}; env; curl http://example.com` }, context());
    const output = result.ok ? result.output : result.error;
    expect(output).toContain('cat: /etc/passwd: No such file or directory');
    expect(output).toContain('curl: command not found');
    expect(output).not.toContain('do-not-leak');
    expect(output).not.toContain('root:');
    expect(output).not.toContain('package.json');
  });

  it('stops at the time limit and changes nothing', async () => {
    const { files, workdir } = fakeWorkdir();
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 300 });
    await expect(tool.run({ command: 'echo x > a.txt; sleep 30' }, context())).resolves.toEqual({
      ok: false,
      error: 'shell stopped: time limit of 300 ms exceeded. No file was changed.',
    });
    expect(files.size).toBe(0);
  });

  it("stops at the interpreter's own limits (an endless loop, deep recursion) and changes nothing", async () => {
    const { files, workdir } = fakeWorkdir();
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 5000 });
    await expect(tool.run({ command: 'echo x > a.txt; while true; do :; done' }, context())).resolves.toEqual({
      ok: false,
      error: 'shell stopped: too many commands executed (>10000). No file was changed.',
    });
    await expect(tool.run({ command: 'f() { f; }; f' }, context())).resolves.toEqual({
      ok: false,
      error: 'shell stopped: f: maximum recursion depth (100) exceeded. No file was changed.',
    });
    expect(files.size).toBe(0);
  });

  it('cuts long output with a marker; a non-zero exit is reported, not an error', async () => {
    const { workdir } = fakeWorkdir();
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 5000 });
    const result = await tool.run({ command: `for i in $(seq 1 4000); do echo 0123456789; done; exit 3` }, context());
    expect(result.ok).toBe(true);
    const output = result.ok ? result.output : '';
    expect(output).toMatch(/^Exit code: 3\nstdout:\n0123456789/);
    expect(output).toContain('[… truncated: ');
    expect(output.length).toBeLessThan(SHELL_MAX_STREAM_CHARS + 200);
  });

  it('saves nothing when the changes would pass the quota', async () => {
    const { files, workdir } = fakeWorkdir(100);
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 5000 });
    const result = await tool.run({ command: 'seq 1 100 > big.txt; echo done' }, context());
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/^The command ran, but its file changes were not saved: Quota exceeded/) });
    expect(files.size).toBe(0);
  });
});

describe('shell network', () => {
  jest.setTimeout(60_000);
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => res.end(`served ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const runWith = (settings: { shellAllowedUrls: string[]; httpFetchAllowedHosts?: string[] }) => {
    const { workdir } = fakeWorkdir();
    const tool = new ShellTool(workdir, { HELIX_SHELL_TIMEOUT_MS: 5000 });
    return (command: string) => tool.run({ command }, { conversationId: 'c', settings, signal: new AbortController().signal });
  };

  it('gives curl only the URL prefixes of shellAllowedUrls', async () => {
    // the test server is on loopback: let through as http_fetch would be
    const run = runWith({ shellAllowedUrls: [`${base}/open/`], httpFetchAllowedHosts: ['127.0.0.1'] });
    await expect(run(`curl -s ${base}/open/a`)).resolves.toMatchObject({ ok: true, output: expect.stringContaining('served /open/a') });
    const refused = await run(`curl -s ${base}/closed`);
    expect(refused.ok && refused.output).not.toContain('served');
  });

  it('refuses private and loopback addresses, even listed, unless httpFetchAllowedHosts lets the host through', async () => {
    const run = runWith({ shellAllowedUrls: [`${base}/open/`] });
    const refused = await run(`curl -s ${base}/open/a`);
    expect(refused.ok && refused.output).not.toContain('served');
    expect(reachesPrivate({ shellAllowedUrls: [`${base}/open/`], httpFetchAllowedHosts: ['127.0.0.1'] })).toBe(true);
    expect(reachesPrivate({ shellAllowedUrls: ['https://api.example.com/'], httpFetchAllowedHosts: ['127.0.0.1'] })).toBe(false);
    expect(reachesPrivate({ shellAllowedUrls: [`${base}/open/`] })).toBe(false);
  });
});
