/**
 * `npm run secrets:rotate`: re-encrypts every stored secret with HELIX_MASTER_KEY, reading the
 * old ones with HELIX_MASTER_KEY_PREVIOUS. Same environment as the server (DATABASE_URL or
 * HELIX_DATA_DIR); with the embedded database, stop the server first (it holds the data
 * directory). Exit code 0 when every secret is under the current key, 1 otherwise.
 */
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { openDatabase } from './database';
import { rotateSecrets, SecretRepository, SecretService } from './security';

async function main(): Promise<number> {
  const config = loadConfig();
  if (!config.HELIX_MASTER_KEY) {
    throw new ConfigError('HELIX_MASTER_KEY must be set to the new key (and HELIX_MASTER_KEY_PREVIOUS to the old one) to rotate secrets');
  }
  const quiet = { log: () => undefined, warn: (line: string) => process.stderr.write(`${line}\n`) };
  const database = await openDatabase(config, quiet);
  try {
    const repository = new SecretRepository(database.sql);
    const report = await rotateSecrets(new SecretService(config, repository), repository);
    process.stdout.write(`Re-encrypted ${report.rotated} secret(s); ${report.current} already used the current key.\n`);
    for (const { id, name } of report.failed) {
      process.stderr.write(`Secret ${name} (${id}) opens with neither HELIX_MASTER_KEY nor HELIX_MASTER_KEY_PREVIOUS: set it again.\n`);
    }
    return report.failed.length ? 1 : 0;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`helix secrets:rotate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
