/**
 * The working directory on a real database: writes, reads, edits and their errors, the quota
 * (nothing written when exceeded), all-or-nothing change sets, the to-do list, and a fork's copy.
 */
import { mediumTest, type MediumTest } from '../../test/support/medium';
import { WorkdirRepository } from './workdir.repository';
import { WorkdirService } from './workdir.service';

describe('WorkdirService (database)', () => {
  let t: MediumTest;
  let small: WorkdirService;
  beforeAll(async () => {
    t = await mediumTest();
    small = new WorkdirService(t.repo(WorkdirRepository), { HELIX_WORKSPACE_QUOTA_BYTES: 100 });
  });
  afterAll(() => t?.close());

  const conversation = async () => (await t.conversation(await t.workspace())).id;

  it('writes, lists, reads (whole or a line range) and overwrites a file', async () => {
    const id = await conversation();
    await expect(t.workdir.write(id, './notes//a.md', 'one\ntwo\nthree\n')).resolves.toEqual({ ok: true, path: 'notes/a.md', size: 14, created: true });
    await expect(t.workdir.list(id)).resolves.toEqual([{ path: 'notes/a.md', size: 14, updatedAt: expect.any(Date) }]);
    await expect(t.workdir.read(id, 'notes/a.md')).resolves.toMatchObject({ ok: true, text: 'one\ntwo\nthree\n', totalLines: 3 });
    await expect(t.workdir.read(id, 'notes/a.md', { from: 2, to: 2 })).resolves.toMatchObject({ ok: true, text: '2\ttwo' });
    await expect(t.workdir.write(id, 'notes/a.md', 'x')).resolves.toMatchObject({ ok: true, created: false, size: 1 });
    await expect(t.workdir.read(id, 'notes/a.md')).resolves.toMatchObject({ text: 'x' });
  });

  it('names an unknown path and lists what there is; refuses invalid paths', async () => {
    const id = await conversation();
    await expect(t.workdir.read(id, 'nope.txt')).resolves.toEqual({ ok: false, error: 'No file nope.txt in the working directory. The working directory is empty.' });
    await t.workdir.write(id, 'a.txt', 'a');
    await expect(t.workdir.edit(id, 'b.txt', 'x', 'y')).resolves.toEqual({ ok: false, error: 'No file b.txt in the working directory. Files: a.txt.' });
    await expect(t.workdir.write(id, '../x', 'a')).resolves.toMatchObject({ ok: false, error: expect.stringContaining('".." is not allowed') });
  });

  it('edits the one exact match; says how many when it is not unique', async () => {
    const id = await conversation();
    await t.workdir.write(id, 'a.txt', 'x = 1\ny = 1\nx = 1\n');
    await expect(t.workdir.edit(id, 'a.txt', 'x = 1', 'x = 2')).resolves.toMatchObject({ ok: false, error: expect.stringContaining('occurs 2 times') });
    await expect(t.workdir.edit(id, 'a.txt', 'y = 1', 'y = 2')).resolves.toEqual({ ok: true, path: 'a.txt', size: 18 });
    await expect(t.workdir.read(id, 'a.txt')).resolves.toMatchObject({ text: 'x = 1\ny = 2\nx = 1\n' });
  });

  it('refuses a write past the quota and writes nothing', async () => {
    const id = await conversation();
    await expect(small.write(id, 'a.txt', 'a'.repeat(60))).resolves.toMatchObject({ ok: true });
    await expect(small.write(id, 'b.txt', 'b'.repeat(50))).resolves.toEqual({
      ok: false,
      error: expect.stringMatching(/^Quota exceeded: the working directory of this conversation may hold 100 bytes; the other files use 60 and this change needs 50\./),
    });
    await expect(small.list(id)).resolves.toHaveLength(1);
    // overwriting counts the new size only
    await expect(small.write(id, 'a.txt', 'a'.repeat(100))).resolves.toMatchObject({ ok: true });
  });

  it('applies a change set all or nothing, deletes included', async () => {
    const id = await conversation();
    await small.write(id, 'a.txt', 'a'.repeat(40));
    const big = { writes: [{ path: 'b.txt', content: Buffer.alloc(70) }], deletes: [] };
    await expect(small.apply(id, big)).resolves.toMatchObject({ ok: false, error: expect.stringContaining('Quota exceeded') });
    await expect(small.apply(id, { ...big, deletes: ['a.txt'] })).resolves.toEqual({ ok: true, usedBytes: 70 });
    await expect(small.list(id)).resolves.toEqual([expect.objectContaining({ path: 'b.txt', size: 70 })]);
    await expect(small.read(id, 'b.txt')).resolves.toMatchObject({ ok: false, error: expect.stringContaining('binary file') });
    await expect(small.find(id, 'b.txt')).resolves.toMatchObject({ content: Buffer.alloc(70) });
  });

  it('keeps the to-do list; a fork copies files and tasks, and the source stays as it was', async () => {
    const auth = await t.workspace();
    const source = await t.conversations.create(auth, { title: 'with files' });
    await t.workdir.write(source.id, 'src/main.py', 'print(1)\n');
    await t.workdir.setTasks(source.id, [{ id: '1', title: 'write main', status: 'done' }]);
    const fork = await t.conversations.fork(auth, source.id);
    await expect(t.workdir.read(fork.id, 'src/main.py')).resolves.toMatchObject({ ok: true, text: 'print(1)\n' });
    await expect(t.workdir.tasks(fork.id)).resolves.toEqual([{ id: '1', title: 'write main', status: 'done' }]);
    await t.workdir.write(fork.id, 'src/main.py', 'print(2)\n');
    await expect(t.workdir.read(source.id, 'src/main.py')).resolves.toMatchObject({ text: 'print(1)\n' });
    await expect(t.workdir.tasks(await conversation())).resolves.toEqual([]);
  });
});
