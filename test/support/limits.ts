/**
 * Limits generous enough that no test meets them by accident (every test client is one address
 * and one key); a test of a limit sets it low in its own env.
 */
export const GENEROUS_LIMITS: Record<string, string> = {
  HELIX_RATE_LIMIT_PER_KEY: '1000000',
  HELIX_RATE_LIMIT_PER_IP: '1000000',
  HELIX_MAX_SSE_PER_KEY: '1000000',
  HELIX_MAX_LIVE_RUNS_PER_WORKSPACE: '1000000',
};

/**
 * Jest's hook timeout for starting an app or a harness: a start takes seconds on a quiet machine
 * but much longer when CI shares it with other work, and a start that times out fails every test
 * of its file with a misleading "used before beforeAll ran".
 */
export const STARTUP_TIMEOUT_MS = 180_000;
