// Worker mode in real Chromium (opticdb/worker, the web demo's db-worker.js): a WorkerDatabase
// answers queries with rows, keeps the page responsive while a long query runs (a main-thread
// connection does not), delivers live results in the page, keeps errors' class and code, and a
// worker-mode tab beside a main-thread tab on one IndexedDB database see each other's commits
// (remote) while their writes serialize. interrupt() and AbortSignals stop a statement while it
// runs in the worker (the demo is cross-origin isolated). A SharedWorker serves several tabs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadDemo, openConnectionTab, openDemoBrowser, type DemoBrowser } from './harness.js';

let demo: DemoBrowser;

beforeAll(async () => {
  demo = await openDemoBrowser();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

// A demo tab with a connection to `name` as window.conn: worker mode or the main thread.
const openTab = (name: string, mode: 'main' | 'worker'): Promise<Page> => openConnectionTab(demo, name, mode, 'conn');

it('answers with rows, in batches for a large result', async () => {
  const page = await openTab(`rows-${Date.now()}`, 'worker');
  const result = await page.evaluate(async () => {
    const db = (window as any).conn;
    await db.exec('create table t (id integer primary key, v text, b blob)');
    await db.run('insert into t select value, \'v\' || value, x\'0102\' from generate_series(1, 5000)');
    let n = 0;
    for await (const r of db.eval('select id from t order by id')) n += r.id > 0 ? 1 : 0;
    const st = db.prepare('select v, b from t where id = ?');
    const row = await st.get([42]);
    await st.finalize();
    return { n, row, all: (await db.all('select id from t where id <= 3 order by id')).map((r: any) => r.id),
             changes: (await db.run('delete from t where id > 4000')).changes };
  });
  expect(result).toEqual({ n: 5000, row: { v: 'v42', b: new Uint8Array([1, 2]) }, all: [1, 2, 3], changes: 1000 });
});

// Runs a heavy query on window.conn while a 10 ms interval ticks; resolves to the query's time and
// the longest gap between ticks.
const HEAVY = 'select sum(value % 7) as n from generate_series(1, 2000000)';
async function heavyWhileTicking(page: Page) {
  return page.evaluate(async (sql) => {
    const db = (window as any).conn;
    let last = performance.now();
    let gap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 10);
    const t = performance.now();
    const row = await db.get(sql);
    const ms = performance.now() - t;
    await new Promise((r) => setTimeout(r, 30));
    clearInterval(timer);
    return { ms, gap, n: row.n };
  }, HEAVY);
}

it('a long query in the worker leaves the page responsive (on the main thread it does not)', async () => {
  const name = `heavy-${Date.now()}`;
  const inWorker = await heavyWhileTicking(await openTab(name, 'worker'));
  const onMain = await heavyWhileTicking(await openTab(name, 'main'));
  console.log(`heavy query: in the worker ${inWorker.ms.toFixed(0)} ms, longest page gap ${inWorker.gap.toFixed(0)} ms; ` +
              `on the main thread ${onMain.ms.toFixed(0)} ms, longest gap ${onMain.gap.toFixed(0)} ms`);
  expect(inWorker.n).toBe(onMain.n);
  expect(inWorker.ms).toBeGreaterThan(250);  // long enough to matter
  expect(onMain.gap).toBeGreaterThan(onMain.ms * 0.8);  // the main thread was blocked throughout
  // The page kept ticking (allowing for a loaded machine's scheduling).
  expect(inWorker.gap).toBeLessThan(Math.min(150, inWorker.ms / 3));
});

it('errors keep their class, code and position', async () => {
  const page = await openTab(`errors-${Date.now()}`, 'worker');
  const errors = await page.evaluate(async () => {
    const db = (window as any).conn;
    await db.exec('create table t (id integer primary key)');
    const seen = [];
    for (const sql of ['select 1;\nselect * fro t', 'insert into t values (1), (1)', 'select * from nowhere']) {
      try {
        await db.exec(sql);
      } catch (e: any) {
        seen.push({ name: e.name, ctor: e.constructor.name, error: e instanceof Error, code: e.code, line: e.line, column: e.column });
      }
    }
    return seen;
  });
  expect(errors[0]).toMatchObject({ name: 'ParseError', ctor: 'ParseError', error: true, code: 'SYNTAX', line: 2 });
  expect(errors[0].column).toBeGreaterThan(0);
  expect(errors[1]).toMatchObject({ name: 'ConstraintError', ctor: 'ConstraintError', code: 'CONSTRAINT' });
  expect(errors[2]).toMatchObject({ name: 'OpticError', ctor: 'OpticError', error: true });
});

it("a worker-mode tab and a main-thread tab see each other's commits, and their writes serialize", async () => {
  const name = `mixed-${Date.now()}`;
  const worker = await openTab(name, 'worker');
  const main = await openTab(name, 'main');
  await main.evaluate(() => (window as any).conn.exec('create table counter (id integer primary key, n integer not null); insert into counter values (1, 0)'));
  // Each tab follows the counter with a live query and notes where commits came from.
  const follow = (page: Page) => page.evaluate(() => {
    const w = window as any;
    w.seen = [];
    w.remote = [];
    w.conn.live('select n from counter where id = 1', [], (r: any) => w.seen.push(r.rows[0]?.[0]));
    w.conn.onTransactionCommit((e: any) => w.remote.push(e.remote));
  });
  await follow(worker);
  await follow(main);
  await worker.waitForFunction(() => (window as any).seen.length === 1);
  await main.waitForFunction(() => (window as any).seen.length === 1);

  // 40 read-modify-write transactions from each tab at once: none lost.
  const bump = (page: Page) => page.evaluate(async () => {
    const db = (window as any).conn;
    await Promise.all(Array.from({ length: 40 }, () => db.transaction(async (tx: any) => {
      const { n } = await tx.get('select n from counter where id = 1');
      await tx.run('update counter set n = ? where id = 1', [n + 1]);
    })));
  });
  await Promise.all([bump(worker), bump(main)]);
  for (const page of [worker, main]) {
    await page.waitForFunction(() => (window as any).seen.at(-1) === 80, null, { timeout: 20_000 });
    const { remote, value } = await page.evaluate(async () => ({
      remote: (window as any).remote,
      value: await (window as any).conn.get('select n from counter where id = 1'),
    }));
    expect(value).toEqual({ n: 80 });
    expect(remote.filter((r: boolean) => r)).toHaveLength(40);   // the other tab's commits
    expect(remote.filter((r: boolean) => !r)).toHaveLength(40);  // its own
  }
}, 120_000);

// The demo is served cross-origin isolated, so the page shares memory with its worker: interrupt()
// and an aborted signal reach a statement while it runs, and the page's Stop button does.
const RUNAWAY = "with recursive r(n) as (select 1 union all select n + 1 from r where n < json('{}')) select count(*) as n from r";
it('interrupt() and an AbortSignal stop a statement while it runs in the worker; so does the Stop button', async () => {
  const page = await openTab(`stop-${Date.now()}`, 'worker');
  const result = await page.evaluate(async (sql) => {
    const db = (window as any).conn;
    const outcome = async (p: Promise<unknown>) => {
      const t = performance.now();
      const e: any = await p.then(() => null, (err) => err);
      return { name: e?.name, code: e?.code, message: e?.message, ms: performance.now() - t };
    };
    const running = db.all(sql);
    setTimeout(() => db.interrupt(), 300);
    const interrupted = await outcome(running);
    const ac = new AbortController();
    const aborting = db.get(sql, [], { signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const aborted = await outcome(aborting);
    await db.exec('create table t (x integer primary key)');
    const writing = db.run(`insert into t ${sql.replace('count(*) as n', 'n')}`);
    setTimeout(() => db.interrupt(), 300);
    const write = await outcome(writing);
    return { isolated: crossOriginIsolated, interrupted, aborted, write, after: await db.get('select count(*) as n from t') };
  }, RUNAWAY);
  expect(result.isolated).toBe(true);
  expect(result.interrupted).toMatchObject({ code: 'INTERRUPT', message: 'interrupted' });
  expect(result.aborted).toMatchObject({ name: 'AbortError', code: 'ABORT' });
  expect(result.write).toMatchObject({ code: 'INTERRUPT' });
  for (const o of [result.interrupted, result.aborted, result.write]) expect(o.ms).toBeLessThan(5000);
  expect(result.after).toEqual({ n: 0 });  // the interrupted insert rolled back

  // The demo's own connection: Run the runaway, then Stop.
  await page.fill('#sql', RUNAWAY);
  await page.click('#run');
  await page.waitForSelector('#stop:not([hidden])');
  await page.waitForTimeout(300);
  await page.click('#stop');
  await page.waitForSelector('#error:not([hidden])', { timeout: 10_000 });
  expect(await page.textContent('#error')).toBe('INTERRUPT: interrupted');
  expect(await page.isHidden('#stop')).toBe(true);
}, 120_000);

it('a SharedWorker serves several tabs from one engine', async () => {
  const name = `shared-${Date.now()}`;
  const open = async () => {
    const page = await demo.context.newPage();
    expect(await loadDemo(page, demo.url)).toEqual([]);
    await page.evaluate(async (name) => {
      const w = window as any;
      w.conn = await w.openWorkerDatabase({ storage: 'indexeddb', name },
                                          new SharedWorker('/db-worker.js', { type: 'module', name: 'opticdb' }));
    }, name);
    return page;
  };
  const one = await open();
  const two = await open();
  await one.evaluate(() => (window as any).conn.exec("create table t (id integer primary key, v text); insert into t values (1, 'one')"));
  await two.evaluate(() => {
    const w = window as any;
    w.seen = [];
    w.conn.live('select v from t order by id', [], (r: any) => w.seen.push(r.rows.map((x: any) => x[0])));
  });
  await two.waitForFunction(() => (window as any).seen.length === 1);
  await one.evaluate(() => (window as any).conn.run("insert into t values (2, 'shared')"));
  await two.waitForFunction(() => (window as any).seen.length === 2);
  expect(await two.evaluate(() => (window as any).seen)).toEqual([['one'], ['one', 'shared']]);
  await one.evaluate(() => (window as any).conn.close());
  expect(await two.evaluate(() => (window as any).conn.all('select count(*) as n from t'))).toEqual([{ n: 2 }]);
}, 120_000);

it('a worker that fails to load fails the open instead of leaving it waiting', async () => {
  const page = await demo.context.newPage();
  expect(await loadDemo(page, demo.url)).toEqual([]);
  const error = await page.evaluate(async () => {
    try {
      await (window as any).openWorkerDatabase({}, new Worker('/no-such-worker.js', { type: 'module' }));
      return null;
    } catch (e: any) {
      return { code: e.code, message: e.message };
    }
  });
  expect(error).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('the database worker failed') });
});
