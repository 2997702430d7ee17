// What the end-to-end suites share: the web demo served by Vite (the built package from the
// workspace) and how to launch Debian's Chromium headless.
import type { Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';

export const chromiumOptions = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'],
};

/** Serves the web demo on a free port; returns the server and the page's URL. */
export async function serveDemo(): Promise<{ server: ViteDevServer; url: string }> {
  const server = await createServer({ configFile: new URL('../web-demo/vite.config.js', import.meta.url).pathname,
                                      server: { port: 0, strictPort: false }, logLevel: 'error' });
  await server.listen();
  const address = server.httpServer!.address();
  return { server, url: `http://localhost:${typeof address === 'object' && address ? address.port : 0}/` };
}

/** Loads the demo in `page` and waits until its database is ready; returns the page's uncaught
 *  errors (the array keeps collecting). */
export async function loadDemo(page: Page, url: string): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'), null,
                             { timeout: 60_000 });
  return errors;
}
