// OpticDB on IndexedDB vs raw IndexedDB in Debian's Chromium (playwright-core, headless), side by
// side in one run: the workloads of idb-workloads.mjs, served by the web demo's Vite config, on a
// real IndexedDB (LevelDB-backed, strict durability).
//
//   node bench/js/chromium-indexeddb.mjs [--reps N]      (after `npm run build`)
import { evaluateInChromium, here } from './chromium-page.mjs';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
console.log(await evaluateInChromium(async ({ module, reps }) => {
  const { runWorkloads, formatResults } = await import(module);
  return formatResults(await runWorkloads(reps), `Chromium ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0]}`, reps);
}, { module: `/@fs${here}idb-workloads.mjs`, reps }));
