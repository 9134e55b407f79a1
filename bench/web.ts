/**
 * Section 6 of `npm run bench`: the web app. What a browser downloads (the page's JavaScript and
 * CSS, gzipped, as built into web/dist), and the time from pressing Enter to the first token on
 * the screen in headless Chromium, beside the API's own time to first token for the same
 * message (POST + GET …/events read by a plain client) in the same run, interleaved.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { findChromium, launchBrowser } from '../test/support/browser';
import { newConversation, postMessage, runEvents } from './lib/helix';
import { ROOT } from './lib/procs';

const WEB_DIST = join(ROOT, 'web', 'dist');
const MESSAGE = 'MOCK:{"tokens":20}';
/** The page's globals the measurement touches (this file is type-checked without the DOM library). */
interface PageDom {
  document: {
    body: unknown;
    querySelector(selector: string): { textContent: string | null; addEventListener(type: string, listener: () => void, options: { once: boolean }): void } | null;
  };
  MutationObserver: new (callback: (records: unknown, observer: { disconnect(): void }) => void) => { observe(target: unknown, options: object): void };
  performance: { now(): number };
  benchFirstToken?: Promise<number>;
}

/**
 * (in the page) starts watching: `benchFirstToken` resolves with the ms from the next Enter in the
 * composer to the first token on the screen. No polling predicate: the page's CSP forbids the
 * eval that would need.
 */
const watchFirstToken = () => {
  const page = globalThis as unknown as PageDom;
  const { document, MutationObserver, performance } = page;
  page.benchFirstToken = new Promise<number>((resolve) => {
    let start = 0;
    document.querySelector('#composer-text')?.addEventListener('keydown', () => (start = performance.now()), { once: true });
    new MutationObserver((_, observer) => {
      if (start && document.querySelector('li.run .markdown')?.textContent) {
        observer.disconnect();
        resolve(performance.now() - start);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
};
const firstToken = () => (globalThis as unknown as PageDom).benchFirstToken;

export interface WebFigures {
  jsGzipBytes: number;
  cssGzipBytes: number;
  /** ms from Enter to the first token rendered, per repetition */
  browserTtft: number[];
  /** ms from the POST to the first token event, per repetition */
  apiTtft: number[];
}

export const WEB_DIR_ENV = { HELIX_WEB_DIR: WEB_DIST };

/** Builds web/dist when its sources changed (the Helix under test serves it via HELIX_WEB_DIR). */
export function buildWebApp(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-changed.js'), 'web'], { stdio: 'inherit' });
}

/** The gzipped size of every script and stylesheet index.html loads. */
function assetSizes(): { js: number; css: number } {
  const html = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
  const sizes = { js: 0, css: 0 };
  for (const [, url] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
    const bytes = gzipSync(readFileSync(join(WEB_DIST, url)), { level: 9 }).length;
    if (url.endsWith('.js')) sizes.js += bytes;
    else if (url.endsWith('.css')) sizes.css += bytes;
  }
  return sizes;
}

async function apiTtft(port: number): Promise<number> {
  const conversationId = await newConversation(port);
  const start = performance.now();
  const run = await postMessage(port, conversationId, MESSAGE);
  let first = 0;
  const stream = runEvents(port, run.id, (event, at) => {
    if (event.event === 'token' && !first) first = at;
  });
  await stream.done;
  return first - start;
}

/** Returns undefined (with the reason) when no Chromium is installed. */
export async function measureWebPage(port: number, reps: number): Promise<WebFigures | { skipped: string }> {
  if (!findChromium()) return { skipped: 'no Chromium (apt-get install chromium, or set HELIX_CHROMIUM)' };
  const { js, css } = assetSizes();
  const browser = await launchBrowser();
  const figures: WebFigures = { jsGzipBytes: js, cssGzipBytes: css, browserTtft: [], apiTtft: [] };
  try {
    const page = await browser.newPage();
    for (let i = 0; i <= reps; i++) {
      const api = await apiTtft(port);
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.locator('#composer-text').fill(MESSAGE);
      await page.evaluate(watchFirstToken);
      await page.keyboard.press('Enter');
      const shown = Number(await page.evaluate(firstToken));
      await page.locator('li.run[data-state="SUCCEEDED"]').waitFor({ timeout: 30_000 });
      if (i === 0) continue; // the first page load compiles the bundle: a warm-up
      figures.apiTtft.push(api);
      figures.browserTtft.push(shown);
    }
  } finally {
    await browser.close();
  }
  return figures;
}
