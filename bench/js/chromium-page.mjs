// Runs a function in a page of Debian's Chromium (playwright-core, headless) served by the web
// demo's Vite config, so it can import the bench modules beside this file (`/@fs` + `here`) and
// the opticdb package, on a real IndexedDB (LevelDB-backed, strict durability).
import { chromium } from 'playwright-core';
import { createServer } from 'vite';

export const here = new URL('.', import.meta.url).pathname;

// page.evaluate(fn, arg) on the demo's origin; resolves to what fn returns.
export async function evaluateInChromium(fn, arg) {
  const server = await createServer({ configFile: new URL('../../web-demo/vite.config.js', import.meta.url).pathname,
                                      server: { port: 0, strictPort: false }, logLevel: 'error' });
  await server.listen();
  const { port } = server.httpServer.address();
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${port}/`);
    return await page.evaluate(fn, arg);
  } finally {
    await browser.close();
    await server.close();
  }
}
