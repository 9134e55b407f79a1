import { NotFoundException } from '@nestjs/common';
import { AccessService, REMEMBERED_OWNERS } from './access';
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

  describe('remembered owners', () => {
    let calls: string[];
    beforeEach(() => {
      calls = [];
      access = new AccessService();
      access.register('conversation', async (id) => (calls.push(id), owners[id]), { rememberOwners: true });
      access.register('run', async (id) => (calls.push(id), owners[id]));
    });

    it('looks an owner up once, and still answers 404 to every other workspace', async () => {
      await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_a')).resolves.toBe('ws_a');
      await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_a')).resolves.toBe('ws_a');
      await expect(access.require(keyOf('ws_b'), 'conversation', 'conv_a')).rejects.toThrow(new NotFoundException('Conversation conv_a not found'));
      expect(calls).toEqual(['conv_a']);
    });

    it('forgets nothing it did not find: an unknown id is looked up each time', async () => {
      await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_zz')).rejects.toThrow(NotFoundException);
      await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_zz')).rejects.toThrow(NotFoundException);
      expect(calls).toEqual(['conv_zz', 'conv_zz']);
    });

    it('takes the owner of a resource just created, for the kinds that remember only', async () => {
      access.remember('conversation', 'conv_new', 'ws_b');
      access.remember('run', 'run_new', 'ws_b');
      await expect(access.require(keyOf('ws_b'), 'conversation', 'conv_new')).resolves.toBe('ws_b');
      await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_new')).rejects.toThrow(NotFoundException);
      await expect(access.require(keyOf('ws_b'), 'run', 'run_new')).rejects.toThrow(NotFoundException);
      expect(calls).toEqual(['run_new']);
    });

    it(`keeps at most ${REMEMBERED_OWNERS} owners, forgetting the oldest first`, async () => {
      for (let i = 0; i <= REMEMBERED_OWNERS; i++) access.remember('conversation', `conv_${i}`, 'ws_a');
      await expect(access.require(keyOf('ws_a'), 'conversation', `conv_${REMEMBERED_OWNERS}`)).resolves.toBe('ws_a');
      await expect(access.require(keyOf('ws_a'), 'conversation', 'conv_0')).rejects.toThrow(NotFoundException);
      expect(calls).toEqual(['conv_0']);
    });
  });

  it('fails loudly on a kind nobody registered, and on a second registration', async () => {
    await expect(access.require(keyOf('ws_a'), 'knowledgeBase', 'kb_1')).rejects.toThrow('No owner lookup is registered for knowledgeBase');
    expect(() => access.register('run', lookup)).toThrow('already registered');
  });
});
