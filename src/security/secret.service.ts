import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config';
import { SecretRepository } from './secret.repository';

const IV_BYTES = 12; // the GCM standard nonce size
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export class SecretError extends Error {}

/**
 * Secrets at rest (provider API keys, user secrets): AES-256-GCM, stored as base64 of
 * iv | tag | ciphertext. The master key is HELIX_MASTER_KEY, or a key generated once into
 * `$HELIX_DATA_DIR/master.key` (mode 0600) and reused, so a single-node install is encrypted
 * without any setup; HELIX_MASTER_KEY_PREVIOUS still decrypts while `npm run secrets:rotate`
 * re-encrypts with the new one. Secrets are write-only: no API returns them; only `reveal` (for the code
 * that calls a provider) decrypts.
 */
@Injectable()
export class SecretService {
  private readonly logger = new Logger('SecretService');
  private key?: Buffer;
  private previous?: Buffer;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(SecretRepository) private readonly repository: Pick<SecretRepository, 'findById' | 'save'>,
  ) {}

  encrypt(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey(), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /**
   * The plaintext of a ciphertext: encrypted with the master key, or, while keys are being
   * rotated, with HELIX_MASTER_KEY_PREVIOUS (GCM's tag tells which key fits).
   */
  decrypt(ciphertext: string): string {
    const previous = this.previousKey();
    const plain = decryptWith(this.masterKey(), ciphertext) ?? (previous ? decryptWith(previous, ciphertext) : undefined);
    // GCM authentication failed: the ciphertext was altered or the master key changed
    if (plain === undefined) throw new SecretError('A stored secret could not be decrypted; was HELIX_MASTER_KEY changed? (the old key goes in HELIX_MASTER_KEY_PREVIOUS)');
    return plain;
  }

  /**
   * The ciphertext re-encrypted with the current master key, or undefined when it already is
   * (the rotation command skips those). Throws SecretError when neither key opens it.
   */
  reencrypt(ciphertext: string): string | undefined {
    if (decryptWith(this.masterKey(), ciphertext) !== undefined) return undefined;
    return this.encrypt(this.decrypt(ciphertext));
  }

  /**
   * The plaintext of a secret, or undefined when it does not exist or belongs to another
   * workspace. Global secrets (no workspace) are visible to every workspace.
   */
  async reveal(secretId: string, workspaceId?: string): Promise<string | undefined> {
    const secret = await this.repository.findById(secretId);
    if (!secret) return undefined;
    if (workspaceId !== undefined && secret.workspaceId !== null && secret.workspaceId !== workspaceId) {
      return undefined;
    }
    return this.decrypt(secret.ciphertext);
  }

  /** Creates or replaces the secret `name` of a workspace (null: global); returns its id. */
  async store(workspaceId: string | null, name: string, plain: string): Promise<string> {
    return this.repository.save(workspaceId, name, this.encrypt(plain));
  }

  /** A key for another purpose (e.g. signing stream tokens), derived from the master key with HKDF. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.masterKey(), Buffer.alloc(0), `helix:${purpose}`, KEY_BYTES));
  }

  private previousKey(): Buffer | undefined {
    if (this.config.HELIX_MASTER_KEY_PREVIOUS) this.previous ??= decodeKey(this.config.HELIX_MASTER_KEY_PREVIOUS, 'HELIX_MASTER_KEY_PREVIOUS');
    return this.previous;
  }

  private masterKey(): Buffer {
    if (this.key) return this.key;
    if (this.config.HELIX_MASTER_KEY) {
      this.key = decodeKey(this.config.HELIX_MASTER_KEY, 'HELIX_MASTER_KEY');
    } else if (this.config.HELIX_DATA_DIR.startsWith('memory://')) {
      // an in-memory database dies with the process, so may its key
      this.key = randomBytes(KEY_BYTES);
    } else {
      this.key = loadOrCreateKeyFile(join(resolve(this.config.HELIX_DATA_DIR), 'master.key'), this.logger);
    }
    return this.key;
  }
}

/** The plaintext, or undefined when `key` is not the key that encrypted it (or it was altered). */
function decryptWith(key: Buffer, ciphertext: string): string | undefined {
  const raw = Buffer.from(ciphertext, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretError('The stored secret is malformed.');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

function decodeKey(base64: string, source: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new SecretError(`${source} must be 32 bytes encoded as base64.`);
  return key;
}

/** Reads the key file, or creates it exclusively (two processes starting together agree). */
export function loadOrCreateKeyFile(file: string, logger?: Logger): Buffer {
  try {
    return readKeyFile(file);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    logger?.log(`Generated a master key for secrets at ${file}; back it up with the data directory.`);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  return readKeyFile(file);
}

function readKeyFile(file: string): Buffer {
  const key = decodeKey(readFileSync(file, 'utf8'), file);
  // a key readable by other users protects nothing; tighten it rather than refuse to start
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return key;
}

/**
 * The `code` of a Node system error (ENOENT, EEXIST …), if `error` has one. Not `instanceof
 * Error`: errors from another realm (Node's own under Jest) fail that test.
 */
function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}
