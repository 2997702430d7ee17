// Closing a tab mid-commit and mid-compaction (issue 29), in Debian's Chromium: a page writes
// transactions in a loop on a database that compacts after every few commits (small pages), or
// starts a compaction and stops, and is closed at a random moment; the next page reopens the
// database and checks that storage holds exactly a prefix of the commits, then writes on. The
// loop runs up to 50 times, bounded to about 20 s (at least 10 rounds).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadDemo, openDemoBrowser, type DemoBrowser } from './harness.js';

let demo: DemoBrowser;
beforeAll(async () => {
  demo = await openDemoBrowser();
}, 120_000);
afterAll(async () => {
  await demo?.close();
});

const NAME = `crash-${Date.now()}`;
// OPTIC_CRASH_ROUNDS=50 runs every round, however long it takes.
const ROUNDS = Number(process.env.OPTIC_CRASH_ROUNDS) || 50;
const BUDGET_MS = process.env.OPTIC_CRASH_ROUNDS ? Infinity : 20_000;

// The stored state after commits 1..k: commit t inserts rows t*10 .. t*10+9 (v = t), deletes the
// first five rows of commit t-5, and sets the counter to t.
function expected(k: number): { ids: number[]; n: number | null } {
  const ids: number[] = [];
  for (let t = 1; t <= k; t++) for (let j = t <= k - 5 ? 5 : 0; j < 10; j++) ids.push(t * 10 + j);
  return { ids, n: k ? k : null };
}

// Opens the database in `page`, returns the last commit stored (checking the whole state is that
// of a prefix), and starts writing from the next one: in a loop (`compact` false), or a few
// commits and then a compaction, left running.
async function reopenCheckAndWrite(page: Page, compact: boolean): Promise<number> {
  const state = await page.evaluate(async ({ name, compact }) => {
    const w = window as any;
    // Counts the compaction transactions in flight (readwrite over the pages).
    w.compacting = 0;
    w.compactions = 0;
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...a: any[]) {
      const tx = (transaction as any).apply(this, a);
      if (a[1] === 'readwrite' && [a[0]].flat().includes('segments')) {
        w.compacting++;
        w.compactions++;
        const end = () => { w.compacting--; };
        tx.addEventListener('complete', end);
        tx.addEventListener('abort', end);
      }
      return tx;
    };
    const Database = await w.loadMainThreadDatabase();
    const db = await Database.open({ storage: 'indexeddb', name,
                                     compaction: { commits: 3, bytes: 1e9, idleMs: 0, pageBytes: 2048 } });
    w.crashDb = db;
    await db.exec('create table if not exists w (id integer primary key, v integer, pad text); ' +
                  'create table if not exists c (k integer primary key, n integer)');
    const ids: number[] = (await db.all('select id from w order by id')).map((r: any) => r.id);
    const n = (await db.get('select n from c where k = 1'))?.n ?? null;
    const writeFrom = async (first: number, count: number) => {
      for (let t = first; t < first + count; t++) {
        await db.beginTransaction();
        await db.exec(`insert into w select value, ${t}, '${'p'.repeat(1000)}' from generate_series(${t * 10}, ${t * 10 + 9});
                       delete from w where id between ${(t - 5) * 10} and ${(t - 5) * 10 + 4};
                       insert into c values (1, ${t}) on conflict (k) do update set n = ${t}`);
        await db.commit();
      }
    };
    const next = (n ?? 0) + 1;
    if (compact) {
      void writeFrom(next, 4).then(() => db.compactStorage()).catch(() => {});
    } else {
      void writeFrom(next, 1_000_000).catch(() => {});
    }
    return { ids, n };
  }, { name: NAME, compact });
  const k = state.n ?? 0;
  expect(state).toEqual(expected(k));
  return k;
}

it('a page closed mid-commit or mid-compaction leaves exactly a prefix of its commits', async () => {
  const started = Date.now();
  let last = 0;
  let rounds = 0;
  let progressed = 0;
  let midCompaction = 0;  // closes while a compaction transaction was in flight
  for (; rounds < ROUNDS && (rounds < 10 || Date.now() - started < BUDGET_MS); rounds++) {
    const page = await demo.context.newPage();
    const errors = await loadDemo(page, demo.url);
    expect(errors).toEqual([]);
    const k = await reopenCheckAndWrite(page, rounds % 2 === 1);
    expect(k).toBeGreaterThanOrEqual(last);  // nothing stored is lost
    if (k > last) progressed++;
    last = k;
    if (rounds % 2 === 1) {
      // Close as soon as a compaction's transaction is seen (it may have finished by then).
      await page.waitForFunction(() => (window as any).compactions > 0, null, { polling: 1, timeout: 10_000 }).catch(() => {});
    } else {
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 150)));
    }
    if (await page.evaluate(() => (window as any).compacting > 0)) midCompaction++;
    await page.close();
  }
  const page = await demo.context.newPage();
  await loadDemo(page, demo.url);
  last = await reopenCheckAndWrite(page, true);
  await page.close();
  console.log(`crash: ${rounds} rounds, ${progressed} stored new commits, ${midCompaction} closed mid-compaction, ${last} commits in all`);
  expect(rounds).toBeGreaterThanOrEqual(10);
  expect(progressed).toBeGreaterThan(rounds / 3);
  expect(last).toBeGreaterThan(rounds);
}, process.env.OPTIC_CRASH_ROUNDS ? 900_000 : 120_000);
