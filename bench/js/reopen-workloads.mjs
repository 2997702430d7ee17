// Reopening a database that holds 20 materialized views over a 100k-row table (issue 25), in
// three states side by side: the same table without the views (the baseline), the views after a
// clean close (their stored rows adopted), and the views after a crash (no clean-shutdown
// marker: each is refilled from its body when it or its source is first touched). Runs in Node
// (reopen.mjs: the file store and fake-indexeddb) and in Chromium (chromium-reopen.mjs).
//
// Figures per state, minimum over the repetitions:
//   open      Database.open until it resolves (lazy stores read the catalog only)
//   first MV  the first query of one view (or, for the baseline, of its body on the table)
//   all 20    the first query of each of the 20, one after the other
//   warm      the same query again, steady state: compared with the figure before the close
import { Database } from 'opticdb';

export const ROWS = 100_000;
export const VIEWS = 20;

// Even views keep a filtered projection (5k rows each), odd ones a 100-group aggregate.
function viewBody(i) {
  return i % 2 === 0
    ? `select id, g, v from t where g % ${VIEWS} = ${i}`
    : `select g, count(*) as n, sum(v) as s from t where g % ${VIEWS} <> ${i} group by g`;
}
const query = (i, withViews) => `select count(*) as n from ${withViews ? `mv${i}` : `(${viewBody(i)})`}`;

async function build(options, withViews) {
  const db = await Database.open(options);
  await db.exec('create table t (id integer primary key, g integer not null, v integer not null)');
  const ins = db.prepare('insert into t values (?, ?, ?)');
  await db.beginTransaction();
  for (let id = 1; id <= ROWS; id++) await ins.run([id, id % 100, id % 1000]);
  await db.commit();
  ins.finalize();
  for (let i = 0; withViews && i < VIEWS; i++) await db.exec(`create materialized view mv${i} as ${viewBody(i)}`);
  return db;
}

async function time(f) {
  const t0 = performance.now();
  const result = await f();
  return [performance.now() - t0, result];
}

// One reopen: open, first query of view 0, first query of each of the others, then view 0 warm.
async function reopen(options, withViews, expected) {
  const [open, db] = await time(() => Database.open(options));
  const [first, row] = await time(() => db.get(query(0, withViews)));
  if (row.n !== expected[0]) throw new Error(`view 0: ${row.n} rows, expected ${expected[0]}`);
  const [rest] = await time(async () => {
    for (let i = 1; i < VIEWS; i++) {
      const { n } = await db.get(query(i, withViews));
      if (n !== expected[i]) throw new Error(`view ${i}: ${n} rows, expected ${expected[i]}`);
    }
  });
  const [warm] = await time(() => db.get(query(0, withViews)));
  const report = db.rehydration;
  await db.close();
  return { open, first, all: first + rest, warm, adopted: report.adopted.length, refilled: report.refilled.length };
}

// env.fresh() gives options for a new database; env.crashImage(options, db) gives options that
// open what storage holds while `db` is still open and never closed (a killed tab or process).
export async function runReopen(env, reps = 3) {
  const states = [['no views', false, false], ['adopt (clean close)', true, false], ['refill (after a crash)', true, true]];
  const results = [];
  for (const [label, withViews, crash] of states) {
    const runs = [];
    let before = Infinity;
    for (let r = 0; r < reps; r++) {
      const options = env.fresh();
      const db = await build(options, withViews);
      const expected = [];
      for (let i = 0; i < VIEWS; i++) expected.push((await db.get(query(i, withViews))).n);
      before = Math.min(before, (await time(() => db.get(query(0, withViews))))[0]);
      let target = options;
      if (crash) target = await env.crashImage(options, db);
      else await db.close();
      runs.push(await reopen(target, withViews, expected));
      if (crash) await db.close();  // after the measured reopen: its marker no longer matters
    }
    const min = (k) => Math.min(...runs.map((x) => x[k]));
    results.push({ label, open: min('open'), first: min('first'), all: min('all'), warm: min('warm'), before,
                   adopted: runs[0].adopted, refilled: runs[0].refilled });
  }
  return results;
}

export function formatResults(results, where, reps) {
  const base = results[0];
  const f = (ms) => ms.toFixed(1).padStart(9);
  const lines = [`Reopen: ${VIEWS} materialized views over ${ROWS} rows (${where}), min of ${reps}`,
    'state                     open ms  ×base   first MV  all 20 MV   warm before→after  adopted refilled'];
  for (const r of results) {
    lines.push(`${r.label.padEnd(24)} ${f(r.open)} ${(r.open / base.open).toFixed(2).padStart(6)} ${f(r.first)} ${f(r.all)}` +
               `   ${r.before.toFixed(2).padStart(7)}→${r.warm.toFixed(2).padEnd(7)} ${String(r.adopted).padStart(7)} ${String(r.refilled).padStart(8)}`);
  }
  return lines.join('\n');
}
