// OpticDB on IndexedDB vs raw IndexedDB in Debian's Chromium (playwright-core, headless), side by
// side in one run: the workloads of idb-workloads.mjs, served by the web demo's Vite config, on a
// real IndexedDB (LevelDB-backed, strict durability).
//
//   node bench/js/chromium-indexeddb.mjs [--reps N]      (after `npm run build`)
import { chromium } from 'playwright-core';
import { createServer } from 'vite';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
const here = new URL('.', import.meta.url).pathname;
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
  const report = await page.evaluate(async ({ module, reps }) => {
    const { runWorkloads, formatResults } = await import(module);
    return formatResults(await runWorkloads(reps), `Chromium ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0]}`, reps);
  }, { module: `/@fs${here}idb-workloads.mjs`, reps });
  console.log(report);
} finally {
  await browser.close();
  await server.close();
}
