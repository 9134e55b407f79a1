import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { assertCanListen, describeListenError, ListenError } from './common';
import { ConfigError, loadConfig } from './config';
import { DatabaseConnectError, DataDirInUseError, MigrationError } from './database';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.HELIX_API_TOKEN && !LOOPBACK.has(config.HOST)) {
    process.stderr.write(
      `HELIX_API_TOKEN is not set: Helix runs without authentication and binds to 127.0.0.1 instead of ${config.HOST}.\n`,
    );
    config.HOST = '127.0.0.1';
  }
  await assertCanListen(config.HOST, config.PORT);
  const app = await createApp(config);
  try {
    await app.listen(config.PORT, config.HOST);
  } catch (error) {
    await app.close();
    const line = describeListenError(error, config.HOST, config.PORT);
    throw line ? new ListenError(line) : error;
  }
  const logger = new Logger('Helix');
  stopOnSignals(app, logger);
  logger.log(`Helix listening on http://${config.HOST}:${config.PORT}`);
  if (!config.HELIX_API_TOKEN) logger.warn('No HELIX_API_TOKEN: the API is open to anyone on this machine');
}

/**
 * SIGTERM (docker stop, Kubernetes) and SIGINT (Ctrl-C) close the application: open event
 * streams end, live runs stop where another instance or the next start resumes them, buffered
 * events and spans are written, the database closes. One line when it starts, one when it is
 * done; a second signal ends the process at once.
 */
function stopOnSignals(app: INestApplication, logger: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    const started = Date.now();
    logger.log(`${signal}: stopping`);
    app.close().then(
      () => {
        logger.log(`Stopped in ${Date.now() - started} ms`);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error(`Could not stop cleanly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  // Expected start-up failures get one line naming what to fix; anything else its stack.
  const known =
    error instanceof ConfigError ||
    error instanceof ListenError ||
    error instanceof DatabaseConnectError ||
    error instanceof MigrationError ||
    error instanceof DataDirInUseError;
  const message = known ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`helix: ${message}\n`);
  process.exit(1);
});
