// The persistence workloads of issue #4, OpticDB on IndexedDB against raw IndexedDB doing the
// same puts, for both runners (vs-indexeddb.mjs in Node over fake-indexeddb,
// chromium-indexeddb.mjs in Debian's Chromium). Raw IndexedDB is the limit: OpticDB writes
// exactly these key/value pairs, so raw / OpticDB is the share of raw batched throughput.
//
// Workloads (each `reps` times, alternating; the median counts):
//   txn10k     10k inserts in one transaction, committed to IndexedDB (resolves after its
//              IndexedDB transaction completes); raw: the same 10k puts in one transaction.
//   auto1k     1k autocommit inserts issued without awaiting (group commit); raw: the same 1k
//              puts in one transaction (what group commit can at best reduce them to).
//   reopen100k open a 100k-row database (read the catalog; the count loads the table: reads its
//              entries), count; raw: read every entry.
// The raw side replays the very entries OpticDB stored (read back from its object store), so
// both write the same bytes under the same keys. Browser-safe: uses globalThis.indexedDB.
import { Database } from 'opticdb';

let seq = 0;
const run = Math.random().toString(36).slice(2, 8);
const fresh = (what) => `bench-${what}-${run}-${seq++}`;
const hex = (k) => Array.from(new Uint8Array(k), (b) => b.toString(16).padStart(2, '0')).join('');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
async function timed(f) {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

// ---- raw IndexedDB -----------------------------------------------------------------------
function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}
function openRaw(name) {
  const req = indexedDB.open(name, 1);
  req.onupgradeneeded = () => req.result.createObjectStore('kv');
  return request(req);
}
function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = tx.onerror = () => reject(tx.error);
  });
}
// The same puts in one readwrite transaction, on a database opened beforehand (as OpticDB's is).
async function rawPut(idb, entries) {
  const tx = idb.transaction('kv', 'readwrite', { durability: 'strict' });
  const store = tx.objectStore('kv');
  for (const [k, v] of entries) store.put(v, k);
  await done(tx);
}
async function rawReadAll(name) {
  const idb = await openRaw(name);
  const store = idb.transaction('kv', 'readonly').objectStore('kv');
  const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
  idb.close();
  return keys.length + values.length;
}
// The entries an OpticDB database stored whose key was not there before (its table's rows).
async function storedEntries(name, before = new Set()) {
  const idb = await openRaw(`opticdb:${name}`);
  const store = idb.transaction('kv', 'readonly').objectStore('kv');
  const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
  idb.close();
  const out = [];
  keys.forEach((k, i) => {
    const h = hex(k);
    if (!before.has(h)) out.push([k, values[i]]);
  });
  return { out, keys: new Set(keys.map((k) => hex(k))) };
}

// ---- OpticDB -----------------------------------------------------------------------------
const DDL = 'create table t (id integer primary key, name text, grp integer, val real)';
const row = (i) => [i, 'name' + i, i % 100, i * 0.5];

async function opticEmpty() {
  const name = fresh('optic');
  const db = await Database.open({ storage: 'indexeddb', name });
  await db.exec(DDL);
  const { keys } = await storedEntries(name);
  return { db, name, catalogKeys: keys };
}
async function opticTxn(n) {
  const { db, name, catalogKeys } = await opticEmpty();
  const ins = db.prepare('insert into t values (?, ?, ?, ?)');
  const ms = await timed(async () => {
    await db.beginTransaction();
    for (let i = 0; i < n; i++) await ins.run(row(i));
    await db.commit();
  });
  ins.finalize();
  await db.close();
  return { ms, name, catalogKeys };
}
async function opticAuto(n) {
  const { db, name, catalogKeys } = await opticEmpty();
  const ins = db.prepare('insert into t values (?, ?, ?, ?)');
  const ms = await timed(async () => {
    const all = [];
    for (let i = 0; i < n; i++) all.push(ins.run(row(i)));
    await Promise.all(all);
  });
  ins.finalize();
  await db.close();
  return { ms, name, catalogKeys };
}

// ---- the runs ----------------------------------------------------------------------------
async function writeWorkload(reps, label, opticRun, n) {
  const optic = [];
  const raw = [];
  for (let r = 0; r < reps; r++) {
    const o = await opticRun(n);
    optic.push(o.ms);
    const { out } = await storedEntries(o.name, o.catalogKeys);
    if (out.length !== n) throw new Error(`${label}: OpticDB stored ${out.length} rows, expected ${n}`);
    const idb = await openRaw(fresh('raw'));
    raw.push(await timed(() => rawPut(idb, out)));
    idb.close();
  }
  return { label, n, optic: median(optic), raw: median(raw) };
}

async function reopenWorkload(reps, n) {
  const { name } = await opticTxn(n);
  const optic = [];
  const raw = [];
  for (let r = 0; r < reps; r++) {
    optic.push(await timed(async () => {
      const db = await Database.open({ storage: 'indexeddb', name });
      const { c } = await db.get('select count(*) as c from t');
      if (c !== n) throw new Error(`reopen: ${c} rows, expected ${n}`);
      await db.close();
    }));
    raw.push(await timed(() => rawReadAll(`opticdb:${name}`)));
  }
  return { label: 'reopen100k', n, optic: median(optic), raw: median(raw) };
}

/** Runs the three workloads `reps` times each; returns { label, n, optic, raw } rows (median ms). */
export async function runWorkloads(reps = 3) {
  return [
    await writeWorkload(reps, 'txn10k', opticTxn, 10_000),
    await writeWorkload(reps, 'auto1k', opticAuto, 1_000),
    await reopenWorkload(reps, 100_000),
  ];
}

/** The report table, one line per workload. */
export function formatResults(results, where, reps) {
  const lines = [`OpticDB on IndexedDB vs raw IndexedDB (${where}), median of ${reps}`,
                 'workload      rows     OpticDB ms   raw ms   raw/OpticDB (share of raw throughput)'];
  for (const r of results) {
    lines.push(`${r.label.padEnd(12)} ${String(r.n).padStart(6)} ${r.optic.toFixed(1).padStart(12)} ${r.raw.toFixed(1).padStart(8)}   ${(100 * r.raw / r.optic).toFixed(0)}%`);
  }
  return lines.join('\n');
}
