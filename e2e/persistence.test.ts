// Persistence in a real browser: Debian's Chromium on a profile directory of its own. Committed
// rows survive a page reload and a full browser restart on the same profile; a transaction rolled
// back, or left open, before the reload leaves nothing behind.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { chromiumOptions, serveDemo } from './harness.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const profile = mkdtempSync(join(tmpdir(), 'opticdb-e2e-profile-'));
let server: ViteDevServer;
let context: BrowserContext | null = null;
let url = '';

async function launch(): Promise<Page> {
  context = await chromium.launchPersistentContext(profile, chromiumOptions);
  const page = context.pages()[0] ?? (await context.newPage());
  await open(page);
  return page;
}
async function open(page: Page): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'), null,
                             { timeout: 60_000 });
}
// The ids in table `kept`, read through the page's database (window.opticdb).
function ids(page: Page): Promise<number[]> {
  return page.evaluate(async () => {
    const db = (window as any).opticdb;
    const out: number[] = [];
    for await (const r of db.eval('select id from kept order by id')) out.push(r.id);
    return out;
  });
}

beforeAll(async () => {
  ({ server, url } = await serveDemo());
}, 120_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  rmSync(profile, { recursive: true, force: true });
});

it('keeps committed rows across a reload and a browser restart; rolled-back and open transactions leave nothing', async () => {
  let page = await launch();
  await page.evaluate(async () => {
    const db = (window as any).opticdb;
    await db.exec('create table kept (id integer primary key, note text)');
    await db.exec("insert into kept values (1, 'autocommit')");
    await db.beginTransaction();
    await db.exec("insert into kept values (2, 'committed'), (3, 'committed')");
    await db.commit();
    await db.beginTransaction();
    await db.exec("insert into kept values (4, 'rolled back'); delete from kept where id = 1");
    await db.rollback();
    await db.beginTransaction();
    await db.exec("insert into kept values (5, 'never committed')");  // the reload comes first
  });
  expect(await ids(page)).toEqual([1, 2, 3, 5]);  // the open transaction sees its own row

  await page.reload();
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'));
  expect(await ids(page)).toEqual([1, 2, 3]);
  await page.evaluate(() => (window as any).opticdb.exec("insert into kept values (6, 'after the reload')"));

  await context!.close();  // the whole browser goes; the profile directory stays
  context = null;
  page = await launch();
  expect(await ids(page)).toEqual([1, 2, 3, 6]);
}, 180_000);

// The page's database (window.opticdb): what the last open restored, and rows of a query.
function restored(page: Page): Promise<{ views: string[]; adopted: string[]; refilled: string[]; errors: string[] }> {
  return page.evaluate(() => (window as any).opticdb.rehydration);
}
function query(page: Page, sql: string): Promise<unknown[]> {
  return page.evaluate(async (sql) => {
    const out: unknown[] = [];
    for await (const r of (window as any).opticdb.eval(sql)) out.push(r);
    return out;
  }, sql);
}

it('keeps views and materialized views across a reload (refilled) and a clean close (adopted)', async () => {
  const page = context?.pages()[0] ?? (await launch());
  await page.evaluate(async () => {
    const db = (window as any).opticdb;
    await db.exec(`create table score (id integer primary key, team text, pts integer);
      create view high as select id, pts from score where pts >= 10;
      create materialized view by_team as select team, count(*) as n, sum(pts) as total from score group by team;
      create materialized view top as select id, team, pts from score where pts >= 10;
      insert into score values (1, 'a', 12), (2, 'b', 3), (3, 'a', 10)`);
  });
  const body = 'select team, count(*) as n, sum(pts) as total from score group by team order by team';

  await page.reload();  // no close(): like a crash, the views are refilled
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'));
  let report = await restored(page);
  expect(report.errors).toEqual([]);
  expect(report.views).toEqual(expect.arrayContaining(['main.high', 'main.open_todo']));
  expect(report.refilled).toEqual(expect.arrayContaining(['main.by_team', 'main.top']));
  expect(await page.textContent('#status')).toContain('restored');
  expect(await query(page, 'select * from by_team order by team')).toEqual(await query(page, body));
  expect(await query(page, 'select id from high order by id')).toEqual([{ id: 1 }, { id: 3 }]);
  // Refilled when first read (one never read stays pending, and the marker says so at close).
  expect(await query(page, 'select id from top order by id')).toEqual([{ id: 1 }, { id: 3 }]);

  await page.evaluate(() => (window as any).opticdb.close());
  await page.reload();  // after a clean close the stored rows are adopted
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'));
  report = await restored(page);
  expect(report.adopted).toEqual(expect.arrayContaining(['main.by_team', 'main.top']));
  expect(report.refilled).toEqual(['main.todo_stats']);  // memory-hosted: always derived again
  await page.evaluate(() => (window as any).opticdb.exec("insert into score values (4, 'b', 20)"));
  expect(await query(page, 'select * from by_team order by team')).toEqual(await query(page, body));
  expect(await query(page, 'select id from top order by id')).toEqual([{ id: 1 }, { id: 3 }, { id: 4 }]);
}, 180_000);
