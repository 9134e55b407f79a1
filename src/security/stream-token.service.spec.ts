import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config/app-config';
import type { SecretRepository } from './secret.repository';
import { SecretService } from './secret.service';
import { StreamTokenService } from './stream-token.service';

const noDb = {} as Pick<SecretRepository, 'findById' | 'save'>;
const MASTER = randomBytes(32).toString('base64');

const serviceWith = (env: Record<string, string> = {}) => {
  const config = loadConfig({ HELIX_DATA_DIR: 'memory://', HELIX_MASTER_KEY: MASTER, ...env });
  return new StreamTokenService(new SecretService(config, noDb), config);
};

describe('StreamTokenService', () => {
  const grant = { runId: 'run_1', workspaceId: 'ws_a' };
  const now = Date.UTC(2026, 0, 1);

  it('verifies its own token for its run, with the workspace it was issued in', () => {
    const tokens = serviceWith();
    expect(tokens.verify('run_1', tokens.issue(grant, now), now + 1000)).toEqual(grant);
    // another instance with the same master key agrees
    expect(serviceWith().verify('run_1', tokens.issue(grant, now), now)).toEqual(grant);
  });

  it('refuses it for another run, after its TTL, or under another master key', () => {
    const tokens = serviceWith({ HELIX_STREAM_TOKEN_TTL_SECONDS: '60' });
    const token = tokens.issue(grant, now);
    expect(tokens.verify('run_2', token, now)).toBeUndefined();
    expect(tokens.verify('run_1', token, now + 59_999)).toEqual(grant);
    expect(tokens.verify('run_1', token, now + 60_000)).toBeUndefined();
    const other = new StreamTokenService(new SecretService(loadConfig({ HELIX_DATA_DIR: 'memory://', HELIX_MASTER_KEY: randomBytes(32).toString('base64') }), noDb), loadConfig({}));
    expect(other.verify('run_1', token, now)).toBeUndefined();
  });

  it('lasts an hour by default', () => {
    const tokens = serviceWith();
    const token = tokens.issue(grant, now);
    expect(tokens.verify('run_1', token, now + 3_599_000)).toEqual(grant);
    expect(tokens.verify('run_1', token, now + 3_600_000)).toBeUndefined();
  });

  it('refuses any change to a part, and malformed tokens', () => {
    const tokens = serviceWith();
    const token = tokens.issue(grant, now);
    const [expiry, workspace, signature] = token.split('.');
    const otherWorkspace = Buffer.from('ws_b').toString('base64url');
    for (const bad of [
      `${(Number.parseInt(expiry, 36) + 1).toString(36)}.${workspace}.${signature}`,
      `${expiry}.${otherWorkspace}.${signature}`,
      `${expiry}.${workspace}.${signature.slice(0, -2)}`,
      `${expiry}.${workspace}.${signature}.x`,
      `${expiry}.${workspace}`,
      `-1.${workspace}.${signature}`,
      '',
    ]) {
      expect([bad, tokens.verify('run_1', bad, now)]).toEqual([bad, undefined]);
    }
  });
});
