import { NotFoundException } from '@nestjs/common';
import { AccessService } from './access';
import { type AuthContext, bootstrapAuth } from './auth-context';

const owners: Record<string, string> = { conv_a: 'ws_a', run_a: 'ws_a', run_b: 'ws_b' };
const lookup = async (id: string) => owners[id];

const keyOf = (workspaceId: string): AuthContext => ({ kind: 'key', workspaceId, role: 'member', keyId: 'key_1' });

describe('AccessService', () => {
  let access: AccessService;
  beforeEach(() => {
    access = new AccessService();
    access.register('conversation', lookup);
    access.register('run', lookup);
  });

  it("lets a key reach its own workspace's resources, with the owner", async () => {
    await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_a')).resolves.toBe('ws_a');
  });

  it("answers another workspace's id exactly as an unknown one: 404 naming the kind", async () => {
    await expect(access.require(keyOf('ws_b'), 'conversation', 'conv_a')).rejects.toThrow(new NotFoundException('Conversation conv_a not found'));
    await expect(access.require(keyOf('ws_b'), 'conversation', 'conv_zz')).rejects.toThrow(new NotFoundException('Conversation conv_zz not found'));
  });

  it('lets the bootstrap admin across workspaces on the admin API only', async () => {
    const bootstrap = { ...bootstrapAuth('token'), workspaceId: 'ws_default' };
    await expect(access.require(bootstrap, 'run', 'run_b')).rejects.toThrow(NotFoundException);
    await expect(access.require(bootstrap, 'run', 'run_b', 'admin')).resolves.toBe('ws_b');
  });

  it('lets a stream token reach its own run only', async () => {
    const stream: AuthContext = { kind: 'stream', workspaceId: 'ws_a', runId: 'run_a', role: 'member' };
    await expect(access.require(stream, 'run', 'run_a')).resolves.toBe('ws_a');
    await expect(access.require(stream, 'conversation', 'conv_a')).rejects.toThrow(NotFoundException);
    // a token for a run whose workspace it does not name (the run moved, or a forged grant)
    await expect(access.require({ ...stream, runId: 'run_b' }, 'run', 'run_b')).rejects.toThrow(NotFoundException);
  });

  it('fails loudly on a kind nobody registered, and on a second registration', async () => {
    await expect(access.require(keyOf('ws_a'), 'knowledgeBase', 'kb_1')).rejects.toThrow('No owner lookup is registered for knowledgeBase');
    expect(() => access.register('run', lookup)).toThrow('already registered');
  });
});
