// Reopen with 20 materialized views (reopen-workloads.mjs) on the Node file store and on
// fake-indexeddb, side by side in one run; chromium-reopen.mjs runs it on Chromium's IndexedDB.
//
//   node bench/js/reopen.mjs [--reps N]      (after `npm run build`)
import 'fake-indexeddb/auto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatResults, runReopen } from './reopen-workloads.mjs';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
const dir = mkdtempSync(join(tmpdir(), 'opticdb-reopen-'));
let seq = 0;
try {
  const file = {
    fresh: () => ({ storage: 'file', path: join(dir, `db${seq++}.odb`) }),
    // The file as a killed process leaves it: every commit stored, no clean-shutdown marker.
    crashImage: async (options) => {
      const path = join(dir, `crash${seq++}.odb`);
      copyFileSync(options.path, path);
      return { storage: 'file', path };
    },
  };
  // A second connection opens what IndexedDB holds while the first (the crashed tab) never closes.
  const idb = {
    fresh: () => ({ storage: 'indexeddb', name: `reopen-${seq++}` }),
    crashImage: async (options) => options,
  };
  console.log(formatResults(await runReopen(file, reps), `Node file store, Node ${process.version}`, reps));
  console.log();
  console.log(formatResults(await runReopen(idb, reps), `fake-indexeddb, Node ${process.version}`, reps));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
