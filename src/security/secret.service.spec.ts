import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config/app-config';
import type { SecretRecord, SecretRepository } from './secret.repository';
import { SecretError, SecretService } from './secret.service';

type Secrets = Pick<SecretRepository, 'findById' | 'save'>;

const noDb: Secrets = {
  findById: () => Promise.reject(new Error('no database in this test')),
  save: () => Promise.reject(new Error('no database in this test')),
};

describe('SecretService', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'helix-secret-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const serviceFor = (env: Record<string, string>, secrets: Secrets = noDb) =>
    new SecretService(loadConfig({ HELIX_DATA_DIR: dir, ...env }), secrets);

  it('round-trips with AES-256-GCM as base64 iv|tag|ciphertext, with a fresh iv each time', () => {
    const service = serviceFor({});
    const a = service.encrypt('sk-secret-value ✓');
    const b = service.encrypt('sk-secret-value ✓');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-secret');
    expect(Buffer.from(a, 'base64').length).toBe(12 + 16 + Buffer.byteLength('sk-secret-value ✓'));
    expect(service.decrypt(a)).toBe('sk-secret-value ✓');
    expect(service.decrypt(service.encrypt(''))).toBe('');
  });

  it('generates the master key once into the data dir (0600) and reuses it', () => {
    const first = serviceFor({});
    const ciphertext = first.encrypt('persisted');
    const keyFile = join(dir, 'master.key');
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toHaveLength(32);
    if (process.platform !== 'win32') expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const contents = readFileSync(keyFile, 'utf8');
    // a new process (new instance) with the same data dir decrypts what the first wrote
    expect(serviceFor({}).decrypt(ciphertext)).toBe('persisted');
    expect(readFileSync(keyFile, 'utf8')).toBe(contents);
  });

  it('uses HELIX_MASTER_KEY when set, and then writes no key file', () => {
    const key = randomBytes(32).toString('base64');
    const ciphertext = serviceFor({ HELIX_MASTER_KEY: key }).encrypt('x');
    expect(serviceFor({ HELIX_MASTER_KEY: key }).decrypt(ciphertext)).toBe('x');
    expect(() => statSync(join(dir, 'master.key'))).toThrow();
    expect(() => serviceFor({}).decrypt(ciphertext)).toThrow(SecretError);
  });

  it('detects tampering and a wrong key', () => {
    const service = serviceFor({});
    const raw = Buffer.from(service.encrypt('value'), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => service.decrypt(raw.toString('base64'))).toThrow('could not be decrypted');
    expect(() => service.decrypt('c2hvcnQ=')).toThrow('malformed');
  });

  it('tightens a key file readable by others and rejects a corrupt one', () => {
    const keyFile = join(dir, 'master.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o644 });
    serviceFor({}).encrypt('x');
    if (process.platform !== 'win32') expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    writeFileSync(keyFile, 'not a key');
    expect(() => serviceFor({}).encrypt('x')).toThrow('32 bytes');
  });

  // the repository's own SQL is covered against a real database in secret.repository.spec.ts
  describe('with a repository', () => {
    const table: SecretRecord[] = [];
    const secrets: Secrets = {
      findById: async (id) => table.find((r) => r.id === id),
      save: async (workspaceId, name, ciphertext) => {
        const found = table.find((r) => r.workspaceId === workspaceId && r.name === name);
        if (found) {
          found.ciphertext = ciphertext;
          return found.id;
        }
        table.push({ id: `sec_${table.length + 1}`, workspaceId, name, ciphertext });
        return `sec_${table.length}`;
      },
    };

    it('stores (upserting by workspace and name) and reveals, scoped to the workspace', async () => {
      const service = serviceFor({}, secrets);
      const id = await service.store('ws_a', 'openai', 'sk-1');
      expect(id).toMatch(/^sec_/);
      expect(await service.store('ws_a', 'openai', 'sk-2')).toBe(id);
      expect(table.find((r) => r.id === id)?.ciphertext).not.toContain('sk-2');
      await expect(service.reveal(id, 'ws_a')).resolves.toBe('sk-2');
      await expect(service.reveal(id)).resolves.toBe('sk-2');
      await expect(service.reveal(id, 'ws_b')).resolves.toBeUndefined();
      await expect(service.reveal('sec_missing', 'ws_a')).resolves.toBeUndefined();

      const global = await service.store(null, 'shared', 'sk-g');
      expect(await service.store(null, 'shared', 'sk-g2')).toBe(global);
      await expect(service.reveal(global, 'ws_b')).resolves.toBe('sk-g2');
      expect(table).toHaveLength(2);
    });
  });

  describe('rotation', () => {
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('base64');

    it('decrypts with HELIX_MASTER_KEY_PREVIOUS what the current key does not open', () => {
      const old = serviceFor({ HELIX_MASTER_KEY: oldKey }).encrypt('from before');
      expect(() => serviceFor({ HELIX_MASTER_KEY: newKey }).decrypt(old)).toThrow(SecretError);
      expect(serviceFor({ HELIX_MASTER_KEY: newKey, HELIX_MASTER_KEY_PREVIOUS: oldKey }).decrypt(old)).toBe('from before');
    });

    it('re-encrypts what the previous key encrypted, and leaves what the current one did', () => {
      const rotating = serviceFor({ HELIX_MASTER_KEY: newKey, HELIX_MASTER_KEY_PREVIOUS: oldKey });
      const old = serviceFor({ HELIX_MASTER_KEY: oldKey }).encrypt('value');
      const fresh = rotating.reencrypt(old);
      expect(fresh).toBeDefined();
      expect(serviceFor({ HELIX_MASTER_KEY: newKey }).decrypt(fresh!)).toBe('value');
      expect(rotating.reencrypt(fresh!)).toBeUndefined();
      // opened by neither key
      expect(() => rotating.reencrypt(serviceFor({ HELIX_MASTER_KEY: randomBytes(32).toString('base64') }).encrypt('x'))).toThrow(SecretError);
    });
  });
});
