// OpticDB on IndexedDB vs raw IndexedDB in Debian's Chromium (playwright-core, headless), side by
// side in one run: the workloads of idb-workloads.mjs, served by the web demo's Vite config, on a
// real IndexedDB (LevelDB-backed, strict durability).
//
//   node bench/js/chromium-indexeddb.mjs [--reps N] [--big ROWS] [--disk]   (after `npm run build`; big: 1M rows;
//   --disk: a profile on disk, IndexedDB in LevelDB files, rather than the off-the-record default)
import { evaluateInChromium, here } from './chromium-page.mjs';

const arg = (flag) => (process.argv.includes(flag) ? Number(process.argv[process.argv.indexOf(flag) + 1]) : 0);
const reps = arg('--reps') || 3;
const big = arg('--big') || 1_000_000;
console.log(await evaluateInChromium(async ({ module, reps, big, disk }) => {
  const { runWorkloads, formatResults } = await import(module);
  return formatResults(await runWorkloads(reps, big), `Chromium ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0]}` +
                       `${disk ? ', profile on disk' : ''}`, reps);
}, { module: `/@fs${here}idb-workloads.mjs`, reps, big, disk: process.argv.includes('--disk') }, { disk: process.argv.includes('--disk') }));
