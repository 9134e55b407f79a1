/**
 * AgentService on a real database: profiles stored under the workspace settings' names, every
 * change a version of `agent:<id>` that a rollback restores (a deleted agent too, under its old
 * id), names unique per workspace even when two admins race for one, the default agent mapped
 * onto the workspace's settings and `system` prompt, members and other workspaces kept out.
 */
import { ConflictException, ForbiddenException, NotFoundException } from '@nestjs/common';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import type { KeyAuth } from '../security/auth-context';
import type { AgentService } from './agent.service';

describe('AgentService (database)', () => {
  let t: MediumTest;
  let admin: KeyAuth;
  let member: KeyAuth;
  let agents: AgentService;

  beforeAll(async () => {
    t = await mediumTest();
    admin = await t.workspace({ role: 'admin' });
    member = { ...admin, role: 'member', keyId: 'key_member' };
    agents = t.agents;
  });
  afterAll(() => t?.close());

  it('creates a profile, changes it (null clears), and counts its versions', async () => {
    const created = await agents.create(admin, { name: 'writer', description: 'Writes', systemPrompt: 'Write.', maxSteps: 4, defaultMode: 'direct' });
    expect(created).toMatchObject({ name: 'writer', description: 'Writes', version: 1, config: { systemPrompt: 'Write.', maxSteps: 4, defaultMode: 'direct' } });
    const changed = await agents.update(admin, created.id, { maxSteps: null, tools: ['calculator'], description: null });
    expect(changed).toMatchObject({ version: 2, description: '', config: { systemPrompt: 'Write.', defaultMode: 'direct', tools: ['calculator'] } });
    expect(changed.config).not.toHaveProperty('maxSteps');
    const versions = await t.history.history(admin.workspaceId, `agent:${created.id}`);
    expect(versions.map((v) => v.version)).toEqual([2, 1]);
  });

  it('keeps names unique per workspace, also for two creations at once', async () => {
    const results = await Promise.allSettled([agents.create(admin, { name: 'twin' }), agents.create(admin, { name: 'twin' })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.any(ConflictException) });
    const other = await agents.create(admin, { name: 'other' });
    await expect(agents.update(admin, other.id, { name: 'twin' })).rejects.toBeInstanceOf(ConflictException);
    await expect(agents.create(admin, { name: 'default' })).rejects.toBeInstanceOf(ConflictException);
    // another workspace may use the name
    const elsewhere = await t.workspace({ role: 'admin' });
    await expect(agents.create(elsewhere, { name: 'twin' })).resolves.toMatchObject({ name: 'twin' });
  });

  it('rolls a deleted agent back under its old id', async () => {
    const agent = await agents.create(admin, { name: 'phoenix', systemPrompt: 'Rise.' });
    await agents.remove(admin, agent.id);
    await expect(agents.get(admin, agent.id)).rejects.toBeInstanceOf(NotFoundException);
    await t.history.rollback(admin, admin.workspaceId, `agent:${agent.id}`, 1);
    await expect(agents.get(admin, agent.id)).resolves.toMatchObject({ id: agent.id, name: 'phoenix', config: { systemPrompt: 'Rise.' } });
    // rolling back to the deletion deletes it again
    await t.history.rollback(admin, admin.workspaceId, `agent:${agent.id}`, 2);
    await expect(agents.get(admin, agent.id)).rejects.toBeInstanceOf(NotFoundException);
  });

  it('maps the default agent onto the workspace settings and system prompt', async () => {
    const before = await agents.get(member, 'default');
    const after = await agents.update(admin, 'default', { systemPrompt: 'House rules.', maxSteps: 3, skills: [{ name: 's', instructions: 'i' }] });
    expect(after).toMatchObject({ id: 'default', name: 'default', config: { systemPrompt: 'House rules.', maxSteps: 3, skills: [{ name: 's', instructions: 'i' }] } });
    expect(after.version).toBe(before.version + 2); // the settings and the prompt: a write each
    const settings = await t.workspaces.settings(admin.workspaceId);
    expect(settings).toMatchObject({ maxSteps: 3, prompts: { system: 'House rules.' } });
    await expect(agents.update(admin, 'default', { name: 'renamed' })).rejects.toBeInstanceOf(ConflictException);
    await expect(agents.remove(admin, 'default')).rejects.toBeInstanceOf(ConflictException);
    expect((await agents.list(member))[0].id).toBe('default');
  });

  it('lets members read, not write, and hides other workspaces', async () => {
    const agent = await agents.create(admin, { name: 'guarded' });
    await expect(agents.get(member, agent.id)).resolves.toMatchObject({ name: 'guarded' });
    await expect(agents.create(member, { name: 'mine' })).rejects.toBeInstanceOf(ForbiddenException);
    await expect(agents.update(member, agent.id, { description: 'x' })).rejects.toBeInstanceOf(ForbiddenException);
    const stranger = await t.workspace({ role: 'admin' });
    await expect(agents.get(stranger, agent.id)).rejects.toBeInstanceOf(NotFoundException);
    await expect(agents.update(stranger, agent.id, { description: 'x' })).rejects.toBeInstanceOf(NotFoundException);
    await expect(agents.remove(stranger, agent.id)).rejects.toBeInstanceOf(NotFoundException);
  });
});
