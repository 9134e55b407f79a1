import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import type { SqlClient } from '../database/sql-client';
import { SecretRepository } from './secret.repository';

describe('SecretRepository (against the test database)', () => {
  let prisma: PrismaService;
  let close: () => Promise<void>;
  let repository: SecretRepository;

  beforeAll(async () => {
    let sql: SqlClient;
    ({ prisma, sql, close } = await openTestDatabase());
    repository = new SecretRepository(sql);
    await prisma.workspace.createMany({ data: [{ id: 'ws_a', name: 'a' }, { id: 'ws_b', name: 'b' }] });
  });
  afterAll(() => close());

  it('creates, then replaces by workspace and name, and maps the row to a record', async () => {
    const id = await repository.save('ws_a', 'openai', 'c1');
    expect(id).toMatch(/^sec_/);
    await expect(repository.findById(id)).resolves.toEqual({ id, workspaceId: 'ws_a', name: 'openai', ciphertext: 'c1' });
    expect(await repository.save('ws_a', 'openai', 'c2')).toBe(id);
    await expect(repository.findById(id)).resolves.toMatchObject({ ciphertext: 'c2' });
    // the same name in another workspace is another secret
    const other = await repository.save('ws_b', 'openai', 'c3');
    expect(other).not.toBe(id);
    await expect(repository.findById('sec_missing')).resolves.toBeUndefined();
  });

  it('keeps one global secret per name (a NULL workspace)', async () => {
    const id = await repository.save(null, 'shared', 'g1');
    expect(await repository.save(null, 'shared', 'g2')).toBe(id);
    await expect(repository.findById(id)).resolves.toEqual({ id, workspaceId: null, name: 'shared', ciphertext: 'g2' });
    expect(await prisma.secret.count({ where: { name: 'shared' } })).toBe(1);
  });
});
