import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import type { SqlClient } from '../database/sql-client';
import { ApiKeyRepository } from './api-key.repository';

describe('ApiKeyRepository (against the test database)', () => {
  let prisma: PrismaService;
  let close: () => Promise<void>;
  let repository: ApiKeyRepository;
  const createdAt = new Date('2026-11-30T10:00:00.123Z');
  const revokedAt = new Date('2026-11-30T11:00:00.456Z');

  beforeAll(async () => {
    let sql: SqlClient;
    ({ prisma, sql, close } = await openTestDatabase());
    repository = new ApiKeyRepository(sql);
    await prisma.workspace.create({ data: { id: 'ws_a', name: 'a' } });
    await prisma.apiKey.createMany({
      data: [
        { id: 'key_1', workspaceId: 'ws_a', name: 'ci', hash: 'aa', prefix: 'hx_aa', role: 'admin', createdAt },
        { id: 'key_2', workspaceId: 'ws_a', name: 'old', hash: 'bb', prefix: 'hx_bb', createdAt, lastUsedAt: createdAt, revokedAt },
      ],
    });
  });
  afterAll(() => close());

  it('finds a key by its hash and maps every column, revoked keys included', async () => {
    await expect(repository.findByHash('aa')).resolves.toEqual({
      id: 'key_1', workspaceId: 'ws_a', name: 'ci', prefix: 'hx_aa', role: 'admin', createdAt, lastUsedAt: null, expiresAt: null, revokedAt: null,
    });
    await expect(repository.findByHash('bb')).resolves.toEqual({
      id: 'key_2', workspaceId: 'ws_a', name: 'old', prefix: 'hx_bb', role: 'member', createdAt, lastUsedAt: createdAt, expiresAt: null, revokedAt,
    });
    await expect(repository.findByHash('cc')).resolves.toBeUndefined();
  });
});
