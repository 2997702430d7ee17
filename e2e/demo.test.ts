// End to end in Chromium (Debian's, driven by playwright-core): the web demo served by Vite from
// the built package; the engine loads on the main thread and in a Web Worker, queries run, errors
// show their position, the live query re-renders after a write, and committed rows survive a
// reload (IndexedDB).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { chromiumOptions, loadDemo, serveDemo } from './harness.js';

let server: ViteDevServer;
let browser: Browser;
let page: Page;
let url = '';

beforeAll(async () => {
  ({ server, url } = await serveDemo());
  browser = await chromium.launch(chromiumOptions);
  page = await browser.newPage();
  expect(await loadDemo(page, url)).toEqual([]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const liveRows = () => page.locator('#live-result tbody tr').count();

it('shows the seeded live query', async () => {
  expect(await liveRows()).toBe(3);
  expect(await page.locator('#live-count').textContent()).toBe('first result');
});

it('runs SQL, writes through a view and re-renders the live query', async () => {
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('timing')?.textContent?.includes('row'));
  // the example ends with `select * from todo_stats`: the materialized view is current
  const stats = await page.locator('#result tbody tr').allTextContents();
  expect(stats).toEqual(['false3', 'true1']);
  expect(await liveRows()).toBe(4);
  expect(await page.locator('#live-count').textContent()).toMatch(/^updated by txn:\d+/);
  const row2 = await page.locator('#live-result tbody tr').nth(1).locator('td').allTextContents();
  expect(row2).toEqual(['2', 'Write through a view', 'false', '3']);
});

it('shows a syntax error with its position and keeps working', async () => {
  await page.fill('#sql', 'select 1;\nselect * fro todo');
  await page.click('#run');
  await expect.poll(() => page.locator('#error').textContent()).toMatch(/SYNTAX: .*line 2, column 10/);
  await page.fill('#sql', 'select count(*) as n from todo');
  await page.click('#run');
  await expect.poll(() => page.locator('#result td').first().textContent()).toBe('4');
});

it('shows the plan of a statement: a primary-key point read', async () => {
  await page.fill('#sql', 'select title from todo where id = 2;');
  await page.click('#plan');
  await expect.poll(() => page.locator('#plan-result tbody tr').count()).toBeGreaterThan(1);
  const scan = page.locator('#plan-result tbody tr', { hasText: 'TableScan' });
  const cells = (await scan.locator('td').allTextContents()).map((c) => c.trim());
  expect(cells).toEqual(['TableScan', 'main.todo', 'primary key point id = ?', '1']);
});

it('keeps committed rows in IndexedDB across a reload', async () => {
  await page.fill('#sql', "insert into todo (id, title) values (5, 'survives a reload')");
  await page.click('#run');
  await expect.poll(() => liveRows()).toBe(5);
  await page.reload();
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'));
  expect(await page.locator('#status').textContent()).toMatch(/reopened with 5 stored row/);
  expect(await liveRows()).toBe(5);
  await page.fill('#sql', 'select n from todo_stats where done = false');
  await page.click('#run');
  await expect.poll(() => page.locator('#result td').first().textContent()).toBe('4');
});

it('loads the engine in a Web Worker', async () => {
  const result = await page.evaluate(async () => {
    const w = new Worker('/worker.js', { type: 'module' });
    const messages: any[] = [];
    await new Promise<void>((resolve, reject) => {
      w.onerror = (e) => reject(new Error(e.message));
      w.onmessage = (e) => {
        messages.push(e.data);
        if (e.data.ready) w.postMessage('create table k (id integer primary key); insert into k values (7); select id * 6 as v from k');
        else resolve();
      };
    });
    w.terminate();
    return messages;
  });
  expect(result).toEqual([{ ready: true }, { rows: [{ v: 42 }] }]);
});
