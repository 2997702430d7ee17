// The persistence workloads of issue #4 on the Node file store (storage 'file'), in the style of
// idb-workloads.mjs: 10k inserts in one transaction (settles once its one record is on disk), and
// 1k autocommit inserts issued without awaiting (one record each, fdatasync'd each in strict
// durability), in a temp dir.
//
//   node bench/js/file-workloads.mjs [--reps N]      (after `npm run build`)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'opticdb';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
const dir = mkdtempSync(join(tmpdir(), 'opticdb-bench-'));
let seq = 0;
const DDL = 'create table t (id integer primary key, name text, grp integer, val real)';
const row = (i) => [i, 'name' + i, i % 100, i * 0.5];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function workload(durability, n, inOneTransaction) {
  const path = join(dir, `b${seq++}.odb`);
  const db = await Database.open({ storage: 'file', path, durability });
  await db.exec(DDL);
  const ins = db.prepare('insert into t values (?, ?, ?, ?)');
  const t0 = performance.now();
  if (inOneTransaction) {
    await db.beginTransaction();
    for (let i = 0; i < n; i++) await ins.run(row(i));
    await db.commit();
  } else {
    const all = [];
    for (let i = 0; i < n; i++) all.push(ins.run(row(i)));
    await Promise.all(all);
  }
  const ms = performance.now() - t0;
  ins.finalize();
  await db.close();
  const check = await Database.open({ storage: 'file', path });
  const { c } = await check.get('select count(*) as c from t');
  await check.close();
  if (c !== n) throw new Error(`${path}: ${c} rows, expected ${n}`);
  return { ms, bytes: statSync(path).size };
}

console.log(`OpticDB file store (Node ${process.version}, ${dir}), median of ${reps}`);
console.log('workload      durability    rows       ms    rows/s   file bytes');
for (const [label, n, txn] of [['txn10k', 10_000, true], ['auto1k', 1_000, false]]) {
  for (const durability of ['strict', 'relaxed']) {
    const runs = [];
    for (let r = 0; r < reps; r++) runs.push(await workload(durability, n, txn));
    const ms = median(runs.map((x) => x.ms));
    console.log(`${label.padEnd(12)}  ${durability.padEnd(10)} ${String(n).padStart(6)} ${ms.toFixed(1).padStart(8)} ${Math.round(n / ms * 1000).toString().padStart(9)} ${String(runs[0].bytes).padStart(12)}`);
  }
}
rmSync(dir, { recursive: true, force: true });
