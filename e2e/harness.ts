// What the end-to-end suites share: the web demo served by Vite (the built package from the
// workspace) and how to launch Debian's Chromium headless.
import { chromium, type BrowserContext, type Page } from 'playwright-core';
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

/** The demo served and one Chromium context (one origin's IndexedDB, Web Locks and
 *  BroadcastChannel) for a suite: open in beforeAll, close() in afterAll. */
export interface DemoBrowser {
  context: BrowserContext;
  url: string;
  close(): Promise<void>;
}
export async function openDemoBrowser(): Promise<DemoBrowser> {
  const { server, url } = await serveDemo();
  const browser = await chromium.launch(chromiumOptions);
  return {
    context: await browser.newContext(),
    url,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** A demo tab whose `window[as]` is a connection to the IndexedDB database `name`: on the page's
 *  main thread, or in worker mode (a WorkerDatabase served by a Worker of its own). */
export async function openConnectionTab(demo: DemoBrowser, name: string, mode: 'main' | 'worker', as: string): Promise<Page> {
  const page = await demo.context.newPage();
  const errors = await loadDemo(page, demo.url);
  if (errors.length) throw new Error(`the demo failed: ${errors.join('; ')}`);
  await page.evaluate(async ({ name, mode, as }) => {
    const w = window as any;
    const options = { storage: 'indexeddb', name };
    w[as] = mode === 'worker' ? await w.openWorkerDatabase(options) : await (await w.loadMainThreadDatabase()).open(options);
  }, { name, mode, as });
  return page;
}
