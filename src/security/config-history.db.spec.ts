import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import type { SqlClient } from '../database/sql-client';
import { AuditRepository } from './audit.repository';
import type { AuthContext } from './auth-context';
import { ConfigHistory, configKey } from './config-history';
import { ConfigVersionRepository } from './config-version.repository';

describe('ConfigHistory (against the test database)', () => {
  let prisma: PrismaService;
  let sql: SqlClient;
  let close: () => Promise<void>;
  let history: ConfigHistory;
  const admin: AuthContext = { kind: 'key', workspaceId: 'ws_h', role: 'admin', keyId: 'key_h' };

  beforeAll(async () => {
    ({ prisma, sql, close } = await openTestDatabase());
    history = new ConfigHistory(sql, new ConfigVersionRepository(sql), new AuditRepository(sql));
    await prisma.workspace.createMany({ data: [{ id: 'ws_h', name: 'h' }, { id: 'ws_i', name: 'i' }] });
  });
  afterAll(() => close());

  const rename = (workspaceId: string | null, name: string, fail = false) =>
    history.change(admin, async (tx) => {
      await tx.$executeRaw`UPDATE workspaces SET name = ${name} WHERE id = ${workspaceId ?? 'ws_h'}`;
      if (fail) throw new Error('the owning write failed half-way');
      return { result: name, change: { workspaceId, key: 'prompt:greeting', action: 'rename', before: null, after: name } };
    });

  it('numbers versions per workspace and key (NULL workspace apart), with the author and an audit row', async () => {
    await rename('ws_h', 'one');
    await rename('ws_h', 'two');
    await rename('ws_i', 'other');
    await rename(null, 'global');
    const versions = await history.history('ws_h', 'greeting');
    expect(versions.map((v) => [v.version, v.content, v.author])).toEqual([
      [2, 'two', 'key_h'],
      [1, 'one', 'key_h'],
    ]);
    expect((await history.history(null, 'prompt:greeting')).map((v) => v.version)).toEqual([1]);
    const audit = await new AuditRepository(sql).page('ws_h', 10);
    expect(audit.map((a) => [a.actor, a.action, a.target, a.after])).toEqual([
      ['key_h', 'rename', 'prompt:greeting', 'two'],
      ['key_h', 'rename', 'prompt:greeting', 'one'],
    ]);
  });

  it('writes nothing when the owning write fails: no half-written change, version or audit row', async () => {
    const auditBefore = await prisma.auditEntry.count();
    await expect(rename('ws_h', 'three', true)).rejects.toThrow('half-way');
    expect((await prisma.workspace.findUniqueOrThrow({ where: { id: 'ws_h' } })).name).toBe('global');
    expect(await prisma.auditEntry.count()).toBe(auditBefore);
    expect((await history.history('ws_h', 'greeting')).map((v) => v.version)).toEqual([2, 1]);
  });

  it('rolls back through the handler of the key’s kind, and refuses unknown kinds and versions', async () => {
    const restored: unknown[] = [];
    history.onRollback('prompt', async (_auth, workspaceId, key, content) => void restored.push([workspaceId, key, content]));
    await history.rollback(admin, 'ws_h', 'greeting', 1);
    expect(restored).toEqual([['ws_h', 'prompt:greeting', 'one']]);
    await expect(history.rollback(admin, 'ws_h', 'greeting', 9)).rejects.toThrow('Configuration greeting has no version 9');
    await expect(history.rollback(admin, 'ws_h', 'nothing:here', 1)).rejects.toThrow('no kind of configuration');
  });

  it('reads a bare key as a prompt name', () => {
    expect(configKey(' system ')).toBe('prompt:system');
    expect(configKey('settings')).toBe('settings');
    expect(configKey('model-config:openai/gpt-4o')).toBe('model-config:openai/gpt-4o');
    expect(() => configKey('  ')).toThrow('key must be 1 to 300 characters');
  });
});
