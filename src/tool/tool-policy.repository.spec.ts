import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import type { SqlClient } from '../database/sql-client';
import { ToolPolicyRepository } from './tool-policy.repository';

describe('ToolPolicyRepository (against the test database)', () => {
  let prisma: PrismaService;
  let close: () => Promise<void>;
  let repository: ToolPolicyRepository;
  const createdAt = new Date('2026-11-30T10:00:00.123Z');

  beforeAll(async () => {
    let sql: SqlClient;
    ({ prisma, sql, close } = await openTestDatabase());
    repository = new ToolPolicyRepository(sql);
    await prisma.workspace.createMany({ data: [{ id: 'ws_a', name: 'a' }, { id: 'ws_b', name: 'b' }] });
    await prisma.conversation.createMany({
      data: [{ id: 'c_1', workspaceId: 'ws_a', title: 'one' }, { id: 'c_2', workspaceId: 'ws_a', title: 'two' }],
    });
    await prisma.toolPolicy.createMany({
      data: [
        { id: 'tp_1', workspaceId: 'ws_a', tool: 'calculator', mode: 'confirm', createdAt },
        { id: 'tp_2', workspaceId: 'ws_a', conversationId: 'c_1', tool: 'calculator', mode: 'forbid', createdAt },
        { id: 'tp_3', workspaceId: 'ws_a', conversationId: 'c_2', tool: 'calculator', mode: 'always', createdAt },
        { id: 'tp_4', workspaceId: 'ws_a', tool: 'current_time', mode: 'forbid', createdAt },
        { id: 'tp_5', workspaceId: 'ws_b', tool: 'calculator', mode: 'always', createdAt },
      ],
    });
  });
  afterAll(() => close());

  it("maps rows to records: the conversation's rule and the workspace's, for that tool only", async () => {
    const rules = await repository.rulesFor('ws_a', 'c_1', 'calculator');
    expect(rules.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'tp_1', workspaceId: 'ws_a', conversationId: null, tool: 'calculator', mode: 'confirm', createdAt },
      { id: 'tp_2', workspaceId: 'ws_a', conversationId: 'c_1', tool: 'calculator', mode: 'forbid', createdAt },
    ]);
  });

  it('finds nothing for another workspace, conversation or tool without rules', async () => {
    expect((await repository.rulesFor('ws_b', 'c_9', 'calculator')).map((r) => r.id)).toEqual(['tp_5']);
    await expect(repository.rulesFor('ws_b', 'c_1', 'current_time')).resolves.toEqual([]);
    await expect(repository.rulesFor('ws_none', 'c_1', 'calculator')).resolves.toEqual([]);
  });

  it('writes a workspace-wide rule in place, lists rules, and checks conversations belong to the workspace', async () => {
    const scope = { workspaceId: 'ws_b', conversationId: null, tool: 'current_time' };
    const write = (mode: 'always' | 'forbid') =>
      prisma.$transaction(async (tx) => repository.write(tx, scope, mode, (await repository.lock(tx, scope))?.id));
    const first = await write('forbid');
    const second = await write('always');
    expect(second).toMatchObject({ id: first.id, workspaceId: 'ws_b', conversationId: null, tool: 'current_time', mode: 'always' });
    expect((await repository.list('ws_b')).map((r) => r.id).sort()).toEqual([first.id, 'tp_5'].sort());
    expect((await repository.list('ws_a', 'c_1')).map((r) => r.id)).toEqual(['tp_2']);
    await prisma.$transaction((tx) => repository.delete(tx, first.id));
    expect((await repository.list('ws_b')).map((r) => r.id)).toEqual(['tp_5']);

    await expect(repository.conversationExists('ws_a', 'c_1')).resolves.toBe(true);
    await expect(repository.conversationExists('ws_b', 'c_1')).resolves.toBe(false);
    await expect(repository.conversationExists('ws_a', 'c_nope')).resolves.toBe(false);
  });
});
