// OpticDB (wasm, through the opticdb package) against sql.js (SQLite compiled to wasm) on the
// same workloads, side by side in one run. Prints each time and the ratio OpticDB / sql.js
// (below 1.0: OpticDB is faster).
//
//   node bench/js/vs-sqljs.mjs [--reps N]      (after `npm run build`)
//
// Each workload runs N times (default 3) per engine, alternating engines; the median counts.
// Setup (tables filled, the insert target recreated) is outside the timed part.
import initSqlJs from 'sql.js';
import { Database } from 'opticdb';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
const N = 100_000;

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
  await db.commit();
  return db;
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
};

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
  db.run('commit');
  a.free();
  b.free();
  return db;
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
};

const workloads = [
  ['insert', '100k inserts, one transaction, prepared'],
  ['point', '10k point selects by primary key'],
  ['aggregate', 'full-scan count/sum over 100k rows'],
  ['groupBy', '100-group GROUP BY over 100k rows'],
  ['join', '10k x 1k equi-join, rows to JS'],
  ['scan', '1M-row scan streamed to JS'],
];

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
