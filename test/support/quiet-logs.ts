/**
 * Jest setup (every test file): Nest's own logger prints nothing, so the test output is the
 * runner's alone. Applications started by tests log through pino at LOG_LEVEL (silent unless a
 * test sets it); units that log through Nest's Logger directly (a repository's sweep, a
 * service's warning) would otherwise print between the results. HELIX_TEST_LOGS=1 shows them.
 */
import { Logger } from '@nestjs/common';

if (!process.env.HELIX_TEST_LOGS) Logger.overrideLogger(false);
