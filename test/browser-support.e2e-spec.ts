/**
 * test/support/browser.ts decides, on any machine, whether the browser tests run, skip or fail:
 * checked here with a stand-in file system, so every branch is seen whether Chromium is
 * installed or not.
 */
import { browserPlan, CHROMIUM_PATHS, describeInBrowser, findChromium, SKIPPED_LINE } from './support/browser';

const only = (...paths: string[]) => (path: string) => paths.includes(path);

describe('findChromium', () => {
  it('takes the first of the known paths that exists', () => {
    expect(findChromium({ env: {}, exists: only('/usr/bin/google-chrome', '/usr/bin/chromium-browser') })).toBe('/usr/bin/chromium-browser');
    expect(findChromium({ env: {}, exists: only('/usr/bin/google-chrome-stable') })).toBe('/usr/bin/google-chrome-stable');
    expect(findChromium({ env: {}, exists: only(...CHROMIUM_PATHS) })).toBe('/usr/bin/chromium');
    expect(findChromium({ env: {}, exists: only() })).toBeUndefined();
  });

  it('takes HELIX_CHROMIUM over them, and fails, naming it, when nothing is there', () => {
    expect(findChromium({ env: { HELIX_CHROMIUM: '/opt/chrome/chrome' }, exists: only('/opt/chrome/chrome', '/usr/bin/chromium') })).toBe('/opt/chrome/chrome');
    expect(() => findChromium({ env: { HELIX_CHROMIUM: '/nonexistent' }, exists: only('/usr/bin/chromium') })).toThrow(
      'HELIX_CHROMIUM=/nonexistent: no such file; point it at a Chromium or Chrome binary, or unset it',
    );
  });
});

describe('browserPlan', () => {
  it.each<[string, NodeJS.ProcessEnv, string[], ReturnType<typeof browserPlan>]>([
    ['runs with a Chromium found', {}, ['/usr/bin/chromium'], { kind: 'run', executablePath: '/usr/bin/chromium' }],
    ['runs with one required and found', { HELIX_REQUIRE_BROWSER: '1' }, ['/usr/bin/google-chrome'], { kind: 'run', executablePath: '/usr/bin/google-chrome' }],
    ['skips without one', {}, [], { kind: 'skip' }],
    ['skips without one when HELIX_REQUIRE_BROWSER is not 1', { HELIX_REQUIRE_BROWSER: '0' }, [], { kind: 'skip' }],
    ['fails without one when HELIX_REQUIRE_BROWSER=1', { HELIX_REQUIRE_BROWSER: '1' }, [], { kind: 'fail', reason: expect.stringMatching(/^HELIX_REQUIRE_BROWSER=1 and no Chromium at \/usr\/bin\/chromium, /) }],
    ['fails on a HELIX_CHROMIUM that is not there, even with another found', { HELIX_CHROMIUM: '/nonexistent' }, ['/usr/bin/chromium'], { kind: 'fail', reason: expect.stringMatching(/^HELIX_CHROMIUM=\/nonexistent: no such file/) }],
  ])('%s', (_name, env, present, plan) => {
    expect(browserPlan({ env, exists: only(...present) })).toEqual(plan);
  });
});

describe('describeInBrowser without Chromium', () => {
  const printed: string[] = [];
  let ran = false;
  describeInBrowser(
    'a browser block',
    () => {
      it('is registered as skipped (this file reports it so)', () => {
        ran = true;
      });
    },
    { env: {}, exists: only(), print: (line) => printed.push(line) },
  );

  it('printed one line saying what to install, and ran none of the block', () => {
    expect(printed).toEqual([SKIPPED_LINE]);
    expect(SKIPPED_LINE).toBe('browser tests skipped: no Chromium found (apt-get install chromium, or set HELIX_CHROMIUM=/path)');
    expect(ran).toBe(false);
  });
});
