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
