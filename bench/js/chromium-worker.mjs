// What worker mode (opticdb/worker) costs per statement against the main thread, in Debian's
// Chromium (playwright-core, headless), one tab of the web demo served by its Vite config: a
// main-thread Database and a WorkerDatabase (served by the demo's db-worker.js, a Worker of its
// own) on equal databases, side by side in one run, in memory and on IndexedDB (strict
// durability). Each awaited, one at a time, timed in the page:
//   - point lookup: db.get by primary key, of a 10k-row table;
//   - small insert: db.run of a one-row autocommit insert;
//   - all() of 1k rows (three columns) as objects; and the same 1k rows through `for await` (eval).
// Median and p95 per statement (lookups and inserts timed in groups of 10, the page's clock being
// coarse); worker-mode cost = worker - main thread.
//
//   node bench/js/chromium-worker.mjs [--reps N]      (after `npm run build`)
import { stats, withChromium } from './chromium-page.mjs';
const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 300;

const ms = (x) => `${x.toFixed(3)} ms`;

await withChromium(async ({ browser, url }) => {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'), null, { timeout: 60_000 });
  const results = await page.evaluate(async ({ reps }) => {
    const Database = await window.loadMainThreadDatabase();
    const stamp = Date.now();
    const out = {};
    for (const storage of ['memory', 'indexeddb']) {
      const conns = {
        main: await Database.open({ storage, name: `bench-main-${stamp}` }),
        worker: await window.openWorkerDatabase({ storage, name: `bench-worker-${stamp}` }),
      };
      for (const db of Object.values(conns)) {
        await db.exec('create table item (id integer primary key, v text, n integer)');
        await db.run("insert into item select value, 'item ' || value, value % 97 from generate_series(1, 10000)");
      }
      let next = 100_000;
      const ops = {
        'point lookup (get by key)': (db, i) => db.get('select id, v, n from item where id = ?', [1 + (i * 7919) % 10000]),
        'small insert (run, autocommit)': (db) => db.run('insert into item values (?, ?, ?)', [next++, 'new', 1]),
        'all() of 1k rows': (db, i) => db.all('select id, v, n from item where id between ? and ?', [1 + (i % 9) * 1000, 1000 + (i % 9) * 1000]),
        'eval() of 1k rows, for await': async (db, i) => {
          let n = 0;
          for await (const r of db.eval('select id, v, n from item where id between ? and ?', [1 + (i % 9) * 1000, 1000 + (i % 9) * 1000])) n += r.n;
          return n;
        },
      };
      out[storage] = {};
      for (const [name, op] of Object.entries(ops)) {
        const count = storage === 'indexeddb' && name.startsWith('small insert') ? Math.min(reps, 200) : reps;
        out[storage][name] = { main: [], worker: [] };
        for (const db of Object.values(conns)) for (let i = 0; i < 20; i++) await op(db, i);  // warm-up
        // Timed in groups of `group` statements (the page's clock ticks in 0.1 ms steps), the two
        // connections taking turns group by group (so both see the same machine): the figures are
        // per statement, their spread that of the groups.
        const group = name.includes('1k rows') ? 1 : 10;
        for (let i = 0; i < count; i += group) {
          for (const [mode, db] of Object.entries(conns)) {
            const t = performance.now();
            for (let j = i; j < i + group; j++) await op(db, j);
            out[storage][name][mode].push((performance.now() - t) / group);
          }
        }
      }
      for (const db of Object.values(conns)) await db.close();
    }
    return out;
  }, { reps });

  console.log(`Chromium ${await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0])}, ${reps} awaited statements each ` +
              '(inserts on IndexedDB: at most 200), one at a time');
  for (const [storage, ops] of Object.entries(results)) {
    console.log(`\n${storage === 'memory' ? 'In memory' : 'IndexedDB (strict durability)'}`);
    console.log('| statement | main thread median | p95 | worker mode median | p95 | worker cost (median) |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, modes] of Object.entries(ops)) {
      const main = stats(modes.main);
      const worker = stats(modes.worker);
      console.log(`| ${name} | ${ms(main.median)} | ${ms(main.p95)} | ${ms(worker.median)} | ${ms(worker.p95)} | ` +
                  `+${ms(worker.median - main.median)} (${(worker.median / main.median).toFixed(1)}x) |`);
    }
  }
});
