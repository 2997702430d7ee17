// OpticDB on IndexedDB vs raw IndexedDB in Node (fake-indexeddb), side by side in one run; the
// workloads are in idb-workloads.mjs (chromium-indexeddb.mjs runs them in Chromium).
//
//   node bench/js/vs-indexeddb.mjs [--reps N] [--big ROWS]      (after `npm run build`)
import 'fake-indexeddb/auto';
import { formatResults, runWorkloads } from './idb-workloads.mjs';

const arg = (flag) => (process.argv.includes(flag) ? Number(process.argv[process.argv.indexOf(flag) + 1]) : 0);
const reps = arg('--reps') || 3;
const big = arg('--big') || 100_000;  // fake-indexeddb is slow: a 100k-row "big" table by default
console.log(formatResults(await runWorkloads(reps, big), `fake-indexeddb, Node ${process.version}`, reps));
