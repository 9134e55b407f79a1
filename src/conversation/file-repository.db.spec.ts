/**
 * The files table on a real database (PGlite, or PostgreSQL with HELIX_TEST_DATABASE_URL):
 * every byte value round-trips (the embedded database gets its parameters as SQL literals), the
 * same bytes are stored once per workspace, and a file is read only by its own workspace.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import { FileRepository } from './file-repository';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('FileRepository (database)', () => {
  let t: MediumTest;
  let files: FileRepository;
  let WS: string;
  let OTHER_WS: string;

  beforeAll(async () => {
    t = await mediumTest();
    ({ workspaceId: WS } = await t.workspace());
    ({ workspaceId: OTHER_WS } = await t.workspace());
    files = t.repo(FileRepository);
  });
  afterAll(() => t?.close());

  it('reads back exactly the bytes written: every byte value, quotes, backslashes, NUL, a large file', async () => {
    const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const tricky = Buffer.from("it's a \\ back'slash\0 and E'\\x00' $1 $$ -- ;", 'utf8');
    const large = randomBytes(2 * 1024 * 1024);
    for (const bytes of [every, tricky, large]) {
      const stored = await files.insert({ workspaceId: WS, sha256: sha(bytes), mediaType: 'application/pdf', bytes });
      expect(stored).toMatchObject({ workspaceId: WS, sha256: sha(bytes), mediaType: 'application/pdf', size: bytes.length });
      const read = await files.find(WS, stored.id);
      expect(read?.bytes.equals(bytes)).toBe(true);
      expect(read?.size).toBe(bytes.length);
    }
  });

  it('stores the same bytes once per workspace: a second insert returns the first row', async () => {
    const bytes = Buffer.from('the same notes');
    const first = await files.insert({ workspaceId: WS, sha256: sha(bytes), mediaType: 'text/plain', bytes });
    const again = await files.insert({ workspaceId: WS, sha256: sha(bytes), mediaType: 'text/markdown', bytes });
    expect(again).toEqual(first);
    const elsewhere = await files.insert({ workspaceId: OTHER_WS, sha256: sha(bytes), mediaType: 'text/plain', bytes });
    expect(elsewhere.id).not.toBe(first.id);
    const [concurrentA, concurrentB] = await Promise.all([
      files.insert({ workspaceId: WS, sha256: sha(Buffer.from('x')), mediaType: 'text/plain', bytes: Buffer.from('x') }),
      files.insert({ workspaceId: WS, sha256: sha(Buffer.from('x')), mediaType: 'text/plain', bytes: Buffer.from('x') }),
    ]);
    expect(concurrentA.id).toBe(concurrentB.id);
  });

  it("reads a file only in its own workspace; findMany leaves out others' and unknown ids", async () => {
    const bytes = Buffer.from('private');
    const mine = await files.insert({ workspaceId: WS, sha256: sha(bytes), mediaType: 'text/plain', bytes });
    expect(await files.find(OTHER_WS, mine.id)).toBeUndefined();
    expect(await files.workspaceOf(mine.id)).toBe(WS);
    expect(await files.workspaceOf('file_nope')).toBeUndefined();
    const many = await files.findMany(WS, [mine.id, 'file_nope']);
    expect(many.map((f) => f.id)).toEqual([mine.id]);
    expect(await files.findMany(OTHER_WS, [mine.id])).toEqual([]);
  });
});
