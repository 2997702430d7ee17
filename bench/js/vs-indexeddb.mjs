// OpticDB on IndexedDB vs raw IndexedDB in Node (fake-indexeddb), side by side in one run; the
// workloads are in idb-workloads.mjs (chromium-indexeddb.mjs runs them in Chromium).
//
//   node bench/js/vs-indexeddb.mjs [--reps N]      (after `npm run build`)
import 'fake-indexeddb/auto';
import { formatResults, runWorkloads } from './idb-workloads.mjs';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
console.log(formatResults(await runWorkloads(reps), `fake-indexeddb, Node ${process.version}`, reps));
