// The persistence workloads of issues #4 and #29, OpticDB on IndexedDB against a raw IndexedDB
// baseline that writes (or reads) the same bytes as ONE record, for both runners (vs-indexeddb.mjs
// in Node over fake-indexeddb, chromium-indexeddb.mjs in Debian's Chromium). The baseline is the
// floor of any layout: one put, or one get, of the bytes OpticDB had to store or load.
//
// Workloads (each `reps` times; the median counts):
//   txn10k     10k inserts in one transaction, committed to IndexedDB (resolves after its
//              IndexedDB transaction completes); raw: one put of the commit's bytes; also the
//              same on an in-memory database (the engine and API alone).
//   auto1k     1k autocommit inserts issued without awaiting (group commit); raw: one put of
//              their bytes.
//   reopen100k open a 100k-row database and run the first count(*) (the count loads the table);
//              raw: open and get one record of the table's bytes.
//   big        open a database with a `big`-row table (1M by default) and run its first query;
//              raw: open and get one record of the table's bytes.
// The bytes: what the connection's commits wrote (db.storageStats(), format 2), or, for a build
// without it, the growth of db.export(). Write amplification (format 2 only): bytes written by
// commits and compactions per byte committed, for building the big table (sequential inserts)
// and for 100k random single-row updates of it (background compaction). Browser-safe: uses globalThis.indexedDB.
import { Database } from 'opticdb';

let seq = 0;
const run = Math.random().toString(36).slice(2, 8);
const fresh = (what) => `bench-${what}-${run}-${seq++}`;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
async function timed(f) {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

// ---- raw IndexedDB: the same bytes as one record --------------------------------------------
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
function bytesOf(n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i += 4096) b[i] = i & 0xff;
  return b;
}
// One put of `n` bytes in one readwrite transaction, on a database opened beforehand.
async function rawPut(n) {
  const idb = await openRaw(fresh('raw'));
  const value = bytesOf(n);
  const ms = await timed(async () => {
    const tx = idb.transaction('kv', 'readwrite', { durability: 'strict' });
    tx.objectStore('kv').put(value, 1);
    await done(tx);
  });
  idb.close();
  return ms;
}
// A database holding one record of `n` bytes; then: open it and get the record.
async function rawStored(n) {
  const name = fresh('raw');
  const idb = await openRaw(name);
  const tx = idb.transaction('kv', 'readwrite');
  tx.objectStore('kv').put(bytesOf(n), 1);
  await done(tx);
  idb.close();
  return name;
}
async function rawOpenGet(name) {
  return timed(async () => {
    const idb = await openRaw(name);
    const v = await request(idb.transaction('kv', 'readonly').objectStore('kv').get(1));
    if (!v) throw new Error('raw record missing');
    idb.close();
  });
}

// ---- OpticDB ----------------------------------------------------------------------------------
const DDL = 'create table t (id integer primary key, name text, grp integer, val real)';
const row = (i) => [i, 'name' + i, i % 100, i * 0.5];

// Bytes this connection's commits wrote so far.
async function written(db) {
  if (!db.persistent) return 0;
  const stats = db.storageStats?.();
  if (stats) return stats.committedBytes;
  return (await db.export()).length;
}
async function opticEmpty(storage = 'indexeddb') {
  const name = fresh('optic');
  const db = await Database.open({ storage, name });
  await db.exec(DDL);
  return { db, name, before: await written(db) };
}
async function insertTxn(db, from, n) {
  const ins = db.prepare('insert into t values (?, ?, ?, ?)');
  await db.beginTransaction();
  for (let i = from; i < from + n; i++) await ins.run(row(i));
  await db.commit();
  ins.finalize();
}
async function opticTxn(n, storage) {
  const { db, before } = await opticEmpty(storage);
  const ms = await timed(() => insertTxn(db, 0, n));
  const bytes = (await written(db)) - before;
  await db.close();
  return { ms, bytes };
}
async function opticAuto(n, storage) {
  const { db, before } = await opticEmpty(storage);
  const ins = db.prepare('insert into t values (?, ?, ?, ?)');
  const ms = await timed(async () => {
    const all = [];
    for (let i = 0; i < n; i++) all.push(ins.run(row(i)));
    await Promise.all(all);
  });
  ins.finalize();
  const bytes = (await written(db)) - before;
  await db.close();
  return { ms, bytes };
}
// A database with an n-row table t, built in transactions of `step` rows; its bytes, and the
// storage stats of building it (format 2).
async function opticBuilt(n, step = 100_000) {
  const { db, name, before } = await opticEmpty();
  for (let from = 0; from < n; from += step) await insertTxn(db, from, Math.min(step, n - from));
  const bytes = (await written(db)) - before;
  if (db.compactStorage) await db.compactStorage();  // folds what is left of the log (format 2)
  const stats = db.storageStats?.() ?? null;
  await db.close();
  return { name, bytes, stats };
}
async function opticOpenFirst(name, n, sql) {
  return timed(async () => {
    const db = await Database.open({ storage: 'indexeddb', name });
    const r = await db.get(sql);
    if (r.c !== n) throw new Error(`first query: ${r.c}, expected ${n}`);
    await db.close();
  });
}

// ---- the runs ---------------------------------------------------------------------------------
async function writeWorkload(reps, label, opticRun, n) {
  const optic = [];
  const raw = [];
  const memory = [];
  let bytes = 0;
  for (let r = 0; r < reps; r++) {
    const o = await opticRun(n);
    optic.push(o.ms);
    bytes = o.bytes;
    raw.push(await rawPut(o.bytes));
    memory.push((await opticRun(n, 'memory')).ms);
  }
  return { label, n, optic: median(optic), raw: median(raw), memory: median(memory), bytes };
}

async function readWorkload(reps, label, n, sql) {
  const built = await opticBuilt(n);
  const rawName = await rawStored(built.bytes);
  const optic = [];
  const raw = [];
  for (let r = 0; r < reps; r++) {
    optic.push(await opticOpenFirst(built.name, n, sql));
    raw.push(await rawOpenGet(rawName));
  }
  return { row: { label, n, optic: median(optic), raw: median(raw), bytes: built.bytes }, built };
}

// Write amplification: bytes written (commits + compaction pages) per byte committed.
function amplification(stats) {
  return stats && stats.committedBytes ? (stats.committedBytes + stats.pageBytesWritten) / stats.committedBytes : null;
}
// Random single-row updates of the big table in autocommit bursts, compaction left to its
// background policy (the log's tail not yet folded is not counted either way).
async function updateAmplification(name, n, updates) {
  const db = await Database.open({ storage: 'indexeddb', name });
  if (!db.storageStats) {
    await db.close();
    return null;
  }
  await db.get('select count(*) as c from t');  // the table's load is not what is measured
  // The longest task in the meantime (a timer that re-arms itself: the gaps between its ticks).
  let stall = 0, last = performance.now(), watching = true;
  const tick = () => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (watching) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const upd = db.prepare('update t set val = val + 1 where id = ?');
  let x = 12345;
  const pending = [];
  for (let i = 0; i < updates; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    pending.push(upd.run([x % n]));
    if (pending.length === 500) await Promise.all(pending.splice(0));  // autocommit bursts
  }
  await Promise.all(pending);
  upd.finalize();
  const stats = db.storageStats();
  watching = false;
  await db.close();
  return { ratio: amplification(stats), compactions: stats.compactions, longest: stats.longestCompactionMs, stall };
}

/** Runs the workloads `reps` times each; returns { rows: [{ label, n, optic, raw, bytes }]
 *  (median ms), amplification: { build, updates } }. */
export async function runWorkloads(reps = 3, big = 1_000_000) {
  const rows = [
    await writeWorkload(reps, 'txn10k', opticTxn, 10_000),
    await writeWorkload(reps, 'auto1k', opticAuto, 1_000),
  ];
  rows.push((await readWorkload(reps, 'reopen100k', 100_000, 'select count(*) as c from t')).row);
  const bigRun = await readWorkload(Math.min(reps, 3), `first${big >= 1e6 ? `${big / 1e6}M` : `${big / 1e3}k`}`, big,
                                    'select count(*) as c from t where val >= 0');
  rows.push(bigRun.row);
  const amp = { build: amplification(bigRun.built.stats), updates: await updateAmplification(bigRun.built.name, big, 100_000) };
  return { rows, amplification: amp };
}

/** The report table, one line per workload. */
export function formatResults({ rows, amplification: amp }, where, reps) {
  const lines = [`OpticDB on IndexedDB vs raw IndexedDB writing/reading the same bytes as one record (${where}), median of ${reps}`,
                 'workload        rows     bytes   OpticDB ms   raw ms   OpticDB in memory ms (the engine alone)'];
  for (const r of rows) {
    lines.push(`${r.label.padEnd(12)} ${String(r.n).padStart(8)} ${String(r.bytes).padStart(9)} ${r.optic.toFixed(1).padStart(12)} ${r.raw.toFixed(1).padStart(8)}` +
               (r.memory === undefined ? '' : `   ${r.memory.toFixed(1).padStart(8)}`));
  }
  const f = (x) => (x === null ? 'n/a' : x.toFixed(2));
  const u = amp.updates;
  lines.push(`write amplification (bytes written per byte committed): building the big table ${f(amp.build)}; ` +
             `100k random single-row updates of it ${u ? `${f(u.ratio)} (${u.compactions} compactions, the longest ` +
             `${u.longest.toFixed(0)} ms; the longest task meanwhile ${u.stall.toFixed(0)} ms)` : 'n/a'}`);
  return lines.join('\n');
}
