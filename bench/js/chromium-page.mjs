// Runs a function in a page of Debian's Chromium (playwright-core, headless) served by the web
// demo's Vite config, so it can import the bench modules beside this file (`/@fs` + `here`) and
// the opticdb package, on a real IndexedDB (LevelDB-backed, strict durability).
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const here = new URL('.', import.meta.url).pathname;

// Serves the web demo (its Vite config) and launches Chromium; resolves to what
// fn({ browser, url }) resolves to, and closes both whatever happens.
export async function withChromium(fn) {
  const server = await createServer({ configFile: new URL('../../web-demo/vite.config.js', import.meta.url).pathname,
                                      server: { port: 0, strictPort: false }, logLevel: 'error' });
  await server.listen();
  const url = `http://localhost:${server.httpServer.address().port}/`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  try {
    return await fn({ browser, url });
  } finally {
    await browser.close();
    await server.close();
  }
}

// page.evaluate(fn, arg) on the demo's origin; resolves to what fn returns. With `disk`, in a
// profile of its own on disk (IndexedDB in LevelDB files, synced on strict commits), else in the
// default off-the-record context (IndexedDB in memory).
export async function evaluateInChromium(fn, arg, { disk = false } = {}) {
  if (!disk) {
    return withChromium(async ({ browser, url }) => {
      const page = await browser.newPage();
      await page.goto(url);
      return page.evaluate(fn, arg);
    });
  }
  return withChromium(async ({ browser, url }) => {
    await browser.close();
    const profile = mkdtempSync(join(tmpdir(), 'opticdb-bench-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
    try {
      const page = context.pages()[0] ?? await context.newPage();
      await page.goto(url);
      return await page.evaluate(fn, arg);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
}

// The median and 95th percentile of a list of durations.
export function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p95: at(0.95) };
}
