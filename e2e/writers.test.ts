// Several tabs writing one IndexedDB database in real Chromium (one browser context: one origin's
// IndexedDB, Web Locks and BroadcastChannel): 300 random transactions from three tabs at once —
// transfers written from values read inside the transaction, colliding unique keys, a
// read-modify-write counter — lose nothing, and every tab and a tab opened afterwards agree row
// for row. A tab closed inside a transaction loses only that transaction and frees the lock.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openConnectionTab, openDemoBrowser, type DemoBrowser } from './harness.js';

let demo: DemoBrowser;

// A demo tab with a connection to the database `name` as `window.bank`: on the page's main thread,
// or in worker mode (a WorkerDatabase served by a Worker of its own).
const openTab = (name: string, mode: 'main' | 'worker' = 'main'): Promise<Page> => openConnectionTab(demo, name, mode, 'bank');

beforeAll(async () => {
  demo = await openDemoBrowser();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

// Runs `count` random operations in the page's connection, all issued at once (seeded per tab).
// Resolves to what the test checks: increments made, keys claimed, unexpected errors.
async function runWorkload(page: Page, seed: number, count: number) {
  return page.evaluate(async ({ seed, count }) => {
    const db = (window as any).bank;
    let a = seed >>> 0;
    const random = (n: number) => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
    let increments = 0;
    const claimed: string[] = [];
    const unexpected: string[] = [];
    const ops: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const kind = random(3);
      if (kind === 0) {
        increments++;
        ops.push(db.run('update counter set n = n + 1 where id = 1').catch((e: Error) => { unexpected.push(e.message); }));
      } else if (kind === 1) {
        const from = 1 + random(10), to = 1 + random(10), amount = 1 + random(20);
        ops.push(db.transaction(async (tx: any) => {
          const x = await tx.get('select balance from account where id = ?', [from]);
          await tx.run('update account set balance = ? where id = ?', [x.balance - amount, from]);
          const y = await tx.get('select balance from account where id = ?', [to]);
          await tx.run('update account set balance = ? where id = ?', [y.balance + amount, to]);
        }).catch((e: Error) => { unexpected.push(e.message); }));
      } else {
        const key = `k${random(60)}`;
        ops.push(db.run('insert into claim values (?, ?)', [key, seed * 1000 + i]).then(
          () => { claimed.push(key); },
          (e: any) => { if (e.code !== 'CONSTRAINT') unexpected.push(e.message); }));
      }
    }
    await Promise.all(ops);
    return { increments, claimed, unexpected };
  }, { seed, count });
}

// Everything the page's connection holds, after a write (a write first applies every commit
// other tabs stored).
async function contents(page: Page) {
  return page.evaluate(async () => {
    const db = (window as any).bank;
    await db.run('update counter set n = n where id = 1');
    return {
      account: await db.all('select * from account order by id'),
      counter: await db.all('select * from counter'),
      claim: await db.all('select * from claim order by k'),
      total: await db.all('select * from total'),
    };
  });
}

it('three tabs run 300 random transactions together: totals hold, one winner per key, every tab agrees', async () => {
  const name = `bank-${Date.now()}`;
  // Two on the main thread, one in worker mode: one write lock for them all.
  const tabs = [await openTab(name), await openTab(name, 'worker'), await openTab(name)];
  await tabs[0].evaluate(async () => {
    await (window as any).bank.exec(`
      create table account (id integer primary key, balance integer not null);
      create table counter (id integer primary key, n integer not null);
      create table claim (k text primary key, owner integer not null);
      create materialized view total as select sum(balance) as s, count(*) as c from account;
      insert into account select value, 100 from generate_series(1, 10);
      insert into counter values (1, 0);`);
  });
  const results = await Promise.all(tabs.map((tab, i) => runWorkload(tab, i + 1, 100)));
  for (const r of results) expect(r.unexpected).toEqual([]);
  const claimed = results.flatMap((r) => r.claimed);
  expect(new Set(claimed).size).toBe(claimed.length);  // exactly one insert won each key

  const expected = await contents(tabs[0]);
  expect(expected.counter).toEqual([{ id: 1, n: results.reduce((n, r) => n + r.increments, 0) }]);
  expect(expected.total).toEqual([{ s: 1000, c: 10 }]);
  expect(expected.claim.map((r: { k: string }) => r.k).sort()).toEqual([...claimed].sort());
  for (const tab of tabs.slice(1)) expect(await contents(tab)).toEqual(expected);
  expect(await contents(await openTab(name))).toEqual(expected);
  expect(await contents(await openTab(name, 'worker'))).toEqual(expected);
}, 240_000);

it('a tab closed inside a transaction loses that transaction only, and the others write on', async () => {
  const name = `closed-${Date.now()}`;
  const one = await openTab(name, 'worker');  // its worker holds the lock, and goes with the tab
  const two = await openTab(name);
  await one.evaluate(async () => {
    const db = (window as any).bank;
    await db.exec("create table t (id integer primary key, v text); insert into t values (1, 'kept')");
    await db.exec("begin; insert into t values (2, 'never committed')");
  });
  const waiting = two.evaluate(() => (window as any).bank.run("insert into t values (3, 'two')"));
  await one.close();  // the browser releases the dead tab's lock
  await waiting;
  const rows = () => (window as any).bank.all('select * from t order by id');
  expect(await two.evaluate(rows)).toEqual([{ id: 1, v: 'kept' }, { id: 3, v: 'two' }]);
  expect(await (await openTab(name)).evaluate(rows)).toEqual([{ id: 1, v: 'kept' }, { id: 3, v: 'two' }]);
}, 120_000);
