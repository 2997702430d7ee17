// The live top-20 latency of issue 27: a live `select id, ts from ev order by ts desc limit 20`
// over 100k rows (ev as in vs-sqljs.mjs: indexes on cat and ts), then one autocommitted one-row
// update that moves a row into the top 20, timed until the live query delivers its new result.
// Prints the median and p95 over the runs, and the update alone (no live query) for comparison.
//
//   node bench/js/live-topn.mjs [--runs N]      (after `npm run build`)
import { Database } from 'opticdb';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 200;
const N = 100_000;
const STATUSES = ['pending', 'paid', 'shipped', 'refunded'];

const db = new Database();
await db.exec(`create table ev (id integer primary key, cat integer, ts integer, status text, amount real);
               create index ev_cat on ev (cat);
               create index ev_ts on ev (ts)`);
await db.beginTransaction();
const insert = db.prepare('insert into ev values (?, ?, ?, ?, ?)');
for (let i = 0; i < N; i++) await insert.run([i, (i * 7) % 1000, (i * 7919) % N, STATUSES[i % 4], (i * 31) % 1000]);
await insert.finalize();
await db.commit();

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.floor(s.length * 0.95)] };
};
const update = db.prepare('update ev set ts = ? where id = ?');
let ts = N;
// `wait(before)` resolves once what the update causes has happened; `before` is read first.
async function updates(wait, before = () => 0) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const mark = before();
    const t0 = performance.now();
    await update.run([ts, (ts * 7) % N]);
    ts++;
    await wait(mark);
    times.push(performance.now() - t0);
  }
  return stats(times);
}

const alone = await updates(async () => {});
// Deliveries counted as they come (one may arrive before the update's promise settles).
let delivered = 0;
let waiter = null;
const stop = db.live('select id, ts from ev order by ts desc limit 20', [], () => {
  delivered++;
  waiter?.();
});
while (delivered === 0) await new Promise((resolve) => setTimeout(resolve, 1));
const live = await updates((seen) => new Promise((resolve) => {
  waiter = () => { if (delivered > seen) resolve(); };
  waiter();
}), () => delivered);
stop();
await update.finalize();
await db.close();
const ms = (x) => `${x.toFixed(3)} ms`;
console.log('| live top-20 over 100k rows | median | p95 |');
console.log('|---|---|---|');
console.log(`| one-row update until the live result arrives | ${ms(live.median)} | ${ms(live.p95)} |`);
console.log(`| the same update, no live query | ${ms(alone.median)} | ${ms(alone.p95)} |`);
