// Materialized-view maintenance as a web app sees it (issue 7): single-row autocommit writes on a
// 100k-row table through the opticdb package (wasm), with (a) no view, (b) a covering-projection
// materialized view, (c) a 100-group aggregate materialized view; beside them sql.js (SQLite in
// wasm) doing the same by hand, with triggers keeping (b) a copy table and (c) an aggregate table.
//
//   node bench/js/mv-writes.mjs [--reps N] [--rows R] [--ops K] [--opticdb-only]   (after `npm run build`)
//
// Each (engine, view) pair gets one filled database; its three operations run K statements per
// repetition, repetitions alternating over all pairs; the minimum per statement counts.
import initSqlJs from 'sql.js';
import { Database } from 'opticdb';

const arg = (name, dflt) => Number(process.argv[process.argv.indexOf(name) + 1]) || dflt;
const reps = arg('--reps', 15);
const ROWS = arg('--rows', 100_000);
const OPS = arg('--ops', 5_000);
const GROUPS = 100;
const ENGINES = process.argv.includes('--opticdb-only') ? ['OpticDB'] : ['OpticDB', 'sql.js'];

const SQLITE_VIEWS = [
  '',
  `create table mv (id integer primary key, g integer not null, v integer not null);
   insert into mv select id, g, v from t;
   create trigger mv_i after insert on t begin insert into mv values (new.id, new.g, new.v); end;
   create trigger mv_u after update on t begin
     update mv set id = new.id, g = new.g, v = new.v where id = old.id; end;
   create trigger mv_d after delete on t begin delete from mv where id = old.id; end;`,
  `create table mv (g integer primary key, n integer not null, s integer not null);
   insert into mv select g, count(*), sum(v) from t group by g;
   create trigger mv_i after insert on t begin
     insert into mv values (new.g, 1, new.v) on conflict (g) do update set n = n + 1, s = s + excluded.s; end;
   create trigger mv_u after update on t begin
     update mv set n = n - 1, s = s - old.v where g = old.g;
     delete from mv where g = old.g and n = 0;
     insert into mv values (new.g, 1, new.v) on conflict (g) do update set n = n + 1, s = s + excluded.s; end;
   create trigger mv_d after delete on t begin
     update mv set n = n - 1, s = s - old.v where g = old.g;
     delete from mv where g = old.g and n = 0; end;`,
];
const OPTIC_VIEWS = [
  '',
  'create materialized view mv as select id, g, v from t',
  'create materialized view mv as select g, count(*) as n, sum(v) as s from t group by g',
];
const SQL = {
  insert: 'insert into t values (?, ?, ?)',
  update: 'update t set v = v + 1 where id = ?',
  delete: 'delete from t where id = ?',
};

async function opticDb(view) {
  const db = new Database();
  await db.exec('create table t (id integer primary key, g integer not null, v integer not null)');
  const ins = db.prepare(SQL.insert);
  await db.beginTransaction();
  for (let id = 1; id <= ROWS; id++) await ins.run([id, id % GROUPS, id % 1000]);
  await db.commit();
  await ins.finalize();
  if (OPTIC_VIEWS[view]) await db.exec(OPTIC_VIEWS[view]);
  const stmts = Object.fromEntries(Object.entries(SQL).map(([k, s]) => [k, db.prepare(s)]));
  return { run: (op, params) => stmts[op].run(params), rows: async (sql) => [await db.get(sql)] };
}

function sqliteDb(SQLite, view) {
  const db = new SQLite.Database();
  db.run('create table t (id integer primary key, g integer not null, v integer not null)');
  const ins = db.prepare(SQL.insert);
  db.run('begin');
  for (let id = 1; id <= ROWS; id++) ins.run([id, id % GROUPS, id % 1000]);
  db.run('commit');
  ins.free();
  if (SQLITE_VIEWS[view]) db.exec(SQLITE_VIEWS[view]);
  const stmts = Object.fromEntries(Object.entries(SQL).map(([k, s]) => [k, db.prepare(s)]));
  const rows = (sql) => {
    const r = db.exec(sql)[0];
    return r ? r.values.map((v) => Object.fromEntries(r.columns.map((c, i) => [c, v[i]]))) : [];
  };
  return { run: (op, params) => stmts[op].run(params), rows };
}

// One pair's state: live ids are [next.del, next.ins).
function driver(db) {
  const next = { ins: ROWS + 1, del: 1, i: 0 };
  const params = {
    insert: () => { const id = next.ins++; return [id, id % GROUPS, id % 1000]; },
    update: () => [next.del + ((next.i++ * 7919) % (next.ins - next.del))],
    delete: () => [next.del++],
  };
  return async (op) => {
    const t0 = performance.now();
    for (let k = 0; k < OPS; k++) await db.run(op, params[op]());
    return ((performance.now() - t0) * 1000) / OPS;  // µs per statement
  };
}

const SQLite = await initSqlJs();
const pairs = [];
const MAKERS = { OpticDB: opticDb, 'sql.js': (v) => sqliteDb(SQLite, v) };
for (const [engine, make] of ENGINES.map((e) => [e, MAKERS[e]])) {
  for (let view = 0; view < 3; view++) {
    const db = await make(view);
    pairs.push({ engine, view, db, drive: driver(db), best: {} });
  }
}
for (let r = 0; r < reps; r++) {
  for (const op of ['insert', 'update', 'delete']) {
    for (const p of pairs) p.best[op] = Math.min(p.best[op] ?? Infinity, await p.drive(op));
  }
}
// The maintained tables must match their definitions, or the figures mean nothing.
const CHECKS = [
  null,
  ['select count(*) as n, sum(v) as s from mv', 'select count(*) as n, sum(v) as s from t'],
  ['select sum(n) as n, sum(s) as s from mv', 'select count(*) as n, sum(v) as s from t'],
];
for (const p of pairs.filter((q) => q.view > 0)) {
  const [[mv], [t]] = [await p.db.rows(CHECKS[p.view][0]), await p.db.rows(CHECKS[p.view][1])];
  if (Number(mv.n) !== Number(t.n) || Number(mv.s) !== Number(t.s)) throw new Error(`${p.engine}: view ${p.view} drifted`);
}
const table = [];
for (const engine of ENGINES) {
  const [a, b, c] = [0, 1, 2].map((v) => pairs.find((p) => p.engine === engine && p.view === v).best);
  for (const op of ['insert', 'update', 'delete']) {
    table.push({
      engine, op,
      'none µs': a[op].toFixed(2), 'projection µs': b[op].toFixed(2), 'aggregate µs': c[op].toFixed(2),
      'proj/none': (b[op] / a[op]).toFixed(2), 'agg/none': (c[op] / a[op]).toFixed(2),
    });
  }
}
console.log(`${ROWS} rows, ${OPS} statements per repetition, min of ${reps}, Node ${process.version}`);
console.table(table);
