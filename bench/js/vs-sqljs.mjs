// OpticDB (wasm, through the opticdb package) against sql.js (SQLite compiled to wasm) on the
// same workloads, side by side in one run. Prints each time and the ratio OpticDB / sql.js
// (below 1.0: OpticDB is faster).
//
//   node bench/js/vs-sqljs.mjs [--reps N] [--only key,key…] [--sqljs-step-only]   (after `npm run build`)
//
// Each workload runs N times (default 3) per engine, alternating engines; the median counts.
// Setup (tables filled, the insert target recreated) is outside the timed part. `--only` runs
// the named workloads (the keys of the table at the bottom).
//
// The app-shaped rows run over `ev`, 100k events with two secondary indexes, as an app would
// query them: lookups and ranges on indexed columns, a primary-key range, a newest-first page,
// IN lists, updates selected by an index in one transaction, a LIKE prefix, a filtered
// aggregate on an unindexed column and a join on an indexed column.
import initSqlJs from 'sql.js';
import { Database } from 'opticdb';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? new Set(process.argv[onlyAt + 1].split(',')) : null;
const N = 100_000;

// The app-shaped table: ev(id, cat, ts, status, amount), cat in 0..999 (100 rows each), ts a
// shuffled permutation of 0..N-1, status one of four words, amount in 0..999.
const EV_DDL = `create table ev (id integer primary key, cat integer, ts integer, status text, amount real);
                create index ev_cat on ev (cat);
                create index ev_ts on ev (ts);
                create table cats (id integer primary key, label text);
                create view ev_paid as select id, cat, ts, amount from ev where status = 'paid'`;
const STATUSES = ['pending', 'paid', 'shipped', 'refunded'];
function evRow(i) {
  return [i, (i * 7) % 1000, (i * 7919) % N, STATUSES[i % 4], (i * 31) % 1000];
}
// Each app-shaped workload as its SQL and the parameters of its i-th run (same for both engines).
const app = {
  indexedLookup: { runs: 1000, sql: 'select id, amount from ev where cat = ?', params: (i) => [(i * 13) % 1000] },
  indexRange: { runs: 1000, sql: 'select id from ev where ts >= ? and ts < ?', params: (i) => [(i * 97) % (N - 50), (i * 97) % (N - 50) + 50] },
  pkRange: { runs: 1000, sql: 'select id, amount from ev where id >= ? and id < ?', params: (i) => [(i * 89) % (N - 100), (i * 89) % (N - 100) + 100] },
  topN: { runs: 200, sql: 'select id, ts from ev order by ts desc limit 20', params: () => [] },
  inList: { runs: 1000, sql: 'select id from ev where cat in (?, ?, ?, ?, ?)', params: (i) => [i % 1000, (i + 200) % 1000, (i + 400) % 1000, (i + 600) % 1000, (i + 800) % 1000] },
  likePrefix: { runs: 20, sql: "select count(*) as n from ev where status like 'ship%'", params: () => [] },
  filteredAgg: { runs: 20, sql: 'select count(*) as n, avg(amount) as a from ev where amount > 900', params: () => [] },
  indexJoin: { runs: 20, sql: 'select count(*) as n from cats join ev on ev.cat = cats.id where cats.id < 10', params: () => [] },
  // A filter over a view: it must reach the index on the view's base table.
  viewLookup: { runs: 1000, sql: 'select id, amount from ev_paid where cat = ?', params: (i) => [(i * 13) % 1000] },
  // Written large table first, filtered on the small one: the planner must start from cats.
  joinOrder: { runs: 1000, sql: 'select ev.id, cats.label from ev join cats on ev.cat = cats.id where cats.id = ?', params: (i) => [(i * 13) % 1000] },
};
const UPDATE_BY_INDEX = 'update ev set amount = amount + 1 where cat = ?';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function time(f) {
  const t0 = performance.now();
  const check = f();
  return { ms: performance.now() - t0, check };
}
async function timeAsync(f) {
  const t0 = performance.now();
  const check = await f();
  return { ms: performance.now() - t0, check };
}

// ---- OpticDB -----------------------------------------------------------------------------
async function opticSetup() {
  const db = new Database();
  await db.exec(`create table t (id integer primary key, name text, grp integer, val real);
                 create table a (id integer primary key, bid integer);
                 create table b (id integer primary key, name text);
                 create table s (k integer primary key)`);
  await db.beginTransaction();
  const a = db.prepare('insert into a values (?, ?)');
  for (let i = 0; i < 10_000; i++) await a.run([i, i % 1000]);
  const b = db.prepare('insert into b values (?, ?)');
  for (let i = 0; i < 1000; i++) await b.run([i, 'b' + i]);
  for (let i = 0; i < 10; i++) await db.exec(`insert into s values (${i})`);
  const t = db.prepare('insert into t values (?, ?, ?, ?)');
  for (let i = 0; i < N; i++) await t.run([i, 'name' + i, i % 100, i * 0.5]);
  await db.exec(EV_DDL);
  const ev = db.prepare('insert into ev values (?, ?, ?, ?, ?)');
  for (let i = 0; i < N; i++) await ev.run(evRow(i));
  const cats = db.prepare('insert into cats values (?, ?)');
  for (let i = 0; i < 1000; i++) await cats.run([i, 'cat' + i]);
  await db.commit();
  return db;
}
// Runs an app-shaped workload on OpticDB: every row of every run read into JS.
async function opticApp(db, w) {
  const st = db.prepare(w.sql);
  let n = 0;
  for (let i = 0; i < w.runs; i++) n += st.allRows(w.params(i)).length;
  await st.finalize();
  return n;
}
const optic = {
  name: 'OpticDB',
  async before(db, key) {
    if (key === 'insert') await db.exec('drop table if exists ins; create table ins (id integer primary key, name text, grp integer, val real)');
  },
  async insert(db) {
    const st = db.prepare('insert into ins values (?, ?, ?, ?)');
    await db.beginTransaction();
    for (let i = 0; i < N; i++) await st.run([i, 'name' + i, i % 100, i * 0.5]);
    await db.commit();
    await st.finalize();
    return (await db.get('select count(*) as n from ins')).n;
  },
  async point(db) {
    const st = db.prepare('select name from t where id = ?');
    let n = 0;
    for (let i = 0; i < 10_000; i++) n += (await st.get([(i * 7919) % N])).name.length;
    await st.finalize();
    return n;
  },
  async aggregate(db) {
    const r = await db.get('select count(*) as c, sum(val) as s from t');
    return `${r.c}/${r.s}`;
  },
  async groupBy(db) {
    let n = 0;
    for await (const r of db.eval('select grp, count(*) as c, sum(val) as s from t group by grp')) n += r.c;
    return n;
  },
  async join(db) {
    let n = 0;
    for await (const r of db.prepare('select a.id, b.name from a join b on a.bid = b.id').iterateRows()) n += r[1].length;
    return n;
  },
  async scan(db) {
    let n = 0;
    for await (const r of db.prepare('select t.id, s.k from t cross join s').iterateRows()) n += r[1];
    return n;
  },
  async updateByIndex(db) {
    const st = db.prepare(UPDATE_BY_INDEX);
    await db.beginTransaction();
    for (let i = 0; i < 1000; i++) await st.run([i]);
    await db.commit();
    await st.finalize();
    return (await db.get('select count(*) as n from ev where amount >= 1000')).n;
  },
};
for (const [key, w] of Object.entries(app)) optic[key] = (db) => opticApp(db, w);

// ---- sql.js ------------------------------------------------------------------------------
async function sqljsSetup() {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(`create table t (id integer primary key, name text, grp integer, val real);
          create table a (id integer primary key, bid integer);
          create table b (id integer primary key, name text);
          create table s (k integer primary key)`);
  db.run('begin');
  const a = db.prepare('insert into a values (?, ?)');
  for (let i = 0; i < 10_000; i++) a.run([i, i % 1000]);
  const b = db.prepare('insert into b values (?, ?)');
  for (let i = 0; i < 1000; i++) b.run([i, 'b' + i]);
  for (let i = 0; i < 10; i++) db.run(`insert into s values (${i})`);
  const t = db.prepare('insert into t values (?, ?, ?, ?)');
  for (let i = 0; i < N; i++) t.run([i, 'name' + i, i % 100, i * 0.5]);
  t.free();
  db.run(EV_DDL);
  const ev = db.prepare('insert into ev values (?, ?, ?, ?, ?)');
  for (let i = 0; i < N; i++) ev.run(evRow(i));
  ev.free();
  const cats = db.prepare('insert into cats values (?, ?)');
  for (let i = 0; i < 1000; i++) cats.run([i, 'cat' + i]);
  cats.free();
  db.run('commit');
  a.free();
  b.free();
  return db;
}
// The same on sql.js: every row read into JS too (st.get()), as OpticDB's allRows does and as
// the other rows' sqlRows do. `--sqljs-step-only` steps without reading, as this bench did
// before 2026-12-07 (which left sql.js's per-row conversion out of its side of the ratio).
const stepOnly = process.argv.includes('--sqljs-step-only');
function sqljsApp(db, w) {
  const st = db.prepare(w.sql);
  let n = 0;
  for (let i = 0; i < w.runs; i++) {
    st.bind(w.params(i));
    while (st.step()) {
      if (!stepOnly) st.get();
      n++;
    }
    st.reset();
  }
  st.free();
  return n;
}
function sqlRows(db, sql, each) {
  const st = db.prepare(sql);
  while (st.step()) each(st.get());
  st.free();
}
const sqljs = {
  name: 'sql.js',
  before(db, key) {
    if (key === 'insert') db.run('drop table if exists ins; create table ins (id integer primary key, name text, grp integer, val real)');
  },
  insert(db) {
    const st = db.prepare('insert into ins values (?, ?, ?, ?)');
    db.run('begin');
    for (let i = 0; i < N; i++) st.run([i, 'name' + i, i % 100, i * 0.5]);
    db.run('commit');
    st.free();
    return db.exec('select count(*) from ins')[0].values[0][0];
  },
  point(db) {
    const st = db.prepare('select name from t where id = ?');
    let n = 0;
    for (let i = 0; i < 10_000; i++) {
      n += st.getAsObject([(i * 7919) % N]).name.length;
      st.reset();
    }
    st.free();
    return n;
  },
  aggregate(db) {
    const [c, s] = db.exec('select count(*), sum(val) from t')[0].values[0];
    return `${c}/${s}`;
  },
  groupBy(db) {
    let n = 0;
    const st = db.prepare('select grp, count(*) as c, sum(val) as s from t group by grp');
    while (st.step()) n += st.getAsObject().c;
    st.free();
    return n;
  },
  join(db) {
    let n = 0;
    sqlRows(db, 'select a.id, b.name from a join b on a.bid = b.id', (r) => { n += r[1].length; });
    return n;
  },
  scan(db) {
    let n = 0;
    sqlRows(db, 'select t.id, s.k from t cross join s', (r) => { n += r[1]; });
    return n;
  },
  updateByIndex(db) {
    const st = db.prepare(UPDATE_BY_INDEX);
    db.run('begin');
    for (let i = 0; i < 1000; i++) st.run([i]);
    db.run('commit');
    st.free();
    return db.exec('select count(*) from ev where amount >= 1000')[0].values[0][0];
  },
};
for (const [key, w] of Object.entries(app)) sqljs[key] = (db) => sqljsApp(db, w);

const workloads = [
  ['insert', '100k inserts, one transaction, prepared'],
  ['point', '10k point selects by primary key'],
  ['aggregate', 'full-scan count/sum over 100k rows'],
  ['groupBy', '100-group GROUP BY over 100k rows'],
  ['join', '10k x 1k equi-join, rows to JS'],
  ['scan', '1M-row scan streamed to JS'],
  ['indexedLookup', '1k lookups by an indexed column (100 rows each)'],
  ['indexRange', '1k range scans on an indexed column (50 rows each)'],
  ['pkRange', '1k primary-key range scans (100 rows each)'],
  ['topN', 'order by indexed column desc limit 20, 200 times'],
  ['inList', '1k IN lists of 5 indexed values (500 rows each)'],
  ['updateByIndex', '1k updates selecting rows by an indexed column, one transaction'],
  ['likePrefix', "like 'prefix%' count, 20 times"],
  ['filteredAgg', 'filtered count/avg over an unindexed column, 20 times'],
  ['indexJoin', 'join on an indexed column (10 x 1000 rows), 20 times'],
  ['viewLookup', '1k lookups through a view by an indexed column (25 rows on average)'],
  ['joinOrder', 'join written large table first, filtered on the small one (100 rows), 1k times'],
].filter(([key]) => !only || only.has(key));

const odb = await opticSetup();
const sdb = await sqljsSetup();
const results = [];
for (const [key, label] of workloads) {
  const times = { optic: [], sqljs: [] };
  let checks = {};
  for (let r = 0; r < reps; r++) {
    await optic.before(odb, key);
    sqljs.before(sdb, key);
    const o = await timeAsync(() => optic[key](odb));
    const s = time(() => sqljs[key](sdb));
    times.optic.push(o.ms);
    times.sqljs.push(s.ms);
    checks = { optic: o.check, sqljs: s.check };
  }
  if (String(checks.optic) !== String(checks.sqljs))
    throw new Error(`${key}: the engines disagree: OpticDB ${checks.optic}, sql.js ${checks.sqljs}`);
  const o = median(times.optic);
  const s = median(times.sqljs);
  results.push({ workload: label, 'OpticDB ms': o.toFixed(1), 'sql.js ms': s.toFixed(1), ratio: (o / s).toFixed(2) });
}
console.table(results);
await odb.close();
sdb.close();
