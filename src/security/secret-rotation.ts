import { SecretError, type SecretService } from './secret.service';
import type { SecretRepository } from './secret.repository';

export interface RotationReport {
  /** re-encrypted with the current master key */
  rotated: number;
  /** already encrypted with it */
  current: number;
  /** opened by neither key: left as they are, named so the operator can set them anew */
  failed: { id: string; name: string }[];
}

/**
 * Re-encrypts every secret that HELIX_MASTER_KEY_PREVIOUS (not HELIX_MASTER_KEY) opens, one row
 * at a time: an interrupted run leaves each secret readable with one key or the other, and a
 * second run finishes the job. Once it reports no failure the previous key can be dropped.
 */
export async function rotateSecrets(secrets: Pick<SecretService, 'reencrypt'>, repository: Pick<SecretRepository, 'all' | 'replaceCiphertext'>): Promise<RotationReport> {
  const report: RotationReport = { rotated: 0, current: 0, failed: [] };
  for (const secret of await repository.all()) {
    let fresh: string | undefined;
    try {
      fresh = secrets.reencrypt(secret.ciphertext);
    } catch (error) {
      if (!(error instanceof SecretError)) throw error;
      report.failed.push({ id: secret.id, name: secret.name });
      continue;
    }
    if (fresh === undefined) report.current++;
    // a secret set anew meanwhile is already under the current key
    else if (await repository.replaceCiphertext(secret.id, secret.ciphertext, fresh)) report.rotated++;
    else report.current++;
  }
  return report;
}
