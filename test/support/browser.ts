/**
 * Headless Chromium for the browser tests, through playwright-core (never Playwright's own
 * browser download: this machine's network reaches package registries only). A machine without
 * Chromium skips those tests, saying so in one line; CI sets HELIX_REQUIRE_BROWSER=1, so there a
 * missing Chromium fails them instead of passing unseen.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian's chromium and Google's packages put the binary, in the order they are tried. */
export const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'] as const;

export const SKIPPED_LINE = 'browser tests skipped: no Chromium found (apt-get install chromium, or set HELIX_CHROMIUM=/path)';

/**
 * Headless, and none of the background connections (updates, sync, QUIC probes) a closed
 * network refuses: without these Chromium waits on them.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** What the lookups read: the environment and the file system (a spec passes stand-ins). */
export interface BrowserHost {
  env?: NodeJS.ProcessEnv;
  exists?: (path: string) => boolean;
}

/**
 * HELIX_CHROMIUM when set (an error when nothing is there: a path given on purpose must not
 * quietly skip), else the first of CHROMIUM_PATHS that exists; undefined when none does.
 */
export function findChromium({ env = process.env, exists = existsSync }: BrowserHost = {}): string | undefined {
  const named = env.HELIX_CHROMIUM;
  if (named) {
    if (!exists(named)) throw new Error(`HELIX_CHROMIUM=${named}: no such file; point it at a Chromium or Chrome binary, or unset it`);
    return named;
  }
  return CHROMIUM_PATHS.find((path) => exists(path));
}

export type BrowserPlan =
  | { kind: 'run'; executablePath: string }
  | { kind: 'skip' }
  /** the block's tests cannot run, and must not pass as skipped */
  | { kind: 'fail'; reason: string };

/** Whether browser tests run here, skip, or fail. */
export function browserPlan(host: BrowserHost = {}): BrowserPlan {
  let executablePath: string | undefined;
  try {
    executablePath = findChromium(host);
  } catch (error) {
    return { kind: 'fail', reason: (error as Error).message };
  }
  if (executablePath) return { kind: 'run', executablePath };
  if ((host.env ?? process.env).HELIX_REQUIRE_BROWSER === '1') {
    return { kind: 'fail', reason: `HELIX_REQUIRE_BROWSER=1 and no Chromium at ${CHROMIUM_PATHS.join(', ')} (apt-get install chromium, or set HELIX_CHROMIUM=/path)` };
  }
  return { kind: 'skip' };
}

export interface DescribeInBrowserOptions extends BrowserHost {
  /** where the skip line goes: stderr, as one plain line (console.log would add Jest's call site) */
  print?: (line: string) => void;
}

/**
 * `describe`, for tests that need Chromium. Without one the block is registered as skipped (its
 * tests count as skipped) and one line says so; with HELIX_REQUIRE_BROWSER=1, or a HELIX_CHROMIUM
 * that is not there, it holds one failing test that says why. The rest of the file runs either way.
 */
export function describeInBrowser(name: string, fn: () => void, options: DescribeInBrowserOptions = {}): void {
  const plan = browserPlan(options);
  if (plan.kind === 'run') return describe(name, fn);
  if (plan.kind === 'skip') {
    (options.print ?? ((line) => process.stderr.write(`${line}\n`)))(SKIPPED_LINE);
    return describe.skip(name, fn);
  }
  describe(name, () => {
    it('finds Chromium', () => {
      throw new Error(plan.reason);
    });
  });
}

/** Chromium, headless, for one test file (close it in afterAll). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(SKIPPED_LINE.replace('browser tests skipped: ', 'cannot launch a browser: '));
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS] });
}

/** Chromium for the calling block: launched before its tests, closed after them (`browser` is set once beforeAll has run). */
export function useBrowser(): { browser: Browser } {
  const ctx = {} as { browser: Browser };
  beforeAll(async () => {
    ctx.browser = await launchBrowser();
  }, 60_000);
  afterAll(() => ctx.browser?.close());
  return ctx;
}

/** What the tab logs as an error or throws from now on: a page under test should show none. */
export function pageProblems(tab: Page): string[] {
  const problems: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  tab.on('pageerror', (error) => problems.push(String(error)));
  return problems;
}
