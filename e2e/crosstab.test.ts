// Two tabs of the web demo on one IndexedDB database in real Chromium (one browser context, so
// one origin's storage and one BroadcastChannel namespace): a write run in one tab's console
// updates the live result pinned in the other tab, with exactly one delivery for the one commit,
// and the other tab says it came from another tab.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadDemo, openDemoBrowser, type DemoBrowser } from './harness.js';

let demo: DemoBrowser;

async function openTab(): Promise<Page> {
  const page = await demo.context.newPage();
  expect(await loadDemo(page, demo.url)).toEqual([]);
  return page;
}

beforeAll(async () => {
  demo = await openDemoBrowser();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

it("a write in one tab updates the other tab's live result within one commit", async () => {
  const one = await openTab();
  const two = await openTab();
  const liveRows = (p: Page) => p.locator('#live-result tbody tr').allTextContents();
  expect(await liveRows(two)).toHaveLength(3);
  expect(await two.locator('#live-count').textContent()).toBe('first result');

  await one.fill('#sql', "insert into todo (id, title) values (10, 'from tab one')");
  await one.click('#run');
  await two.waitForFunction(() => document.querySelectorAll('#live-result tbody tr').length === 4, null,
                            { timeout: 10_000 });
  expect((await liveRows(two))[3]).toBe('10from tab onefalse2');
  expect(await two.locator('#live-count').textContent()).toMatch(/^updated by txn:\d+ \(1 update\(s\)\) from another tab$/);
  expect(await two.locator('#live-result tbody tr.added').count()).toBe(1);

  // And back: an update in tab two reaches tab one's live result.
  await two.evaluate(() => (window as any).opticdb.exec("update todo set done = true where id = 10"));
  await one.waitForFunction(() => document.querySelectorAll('#live-result tbody tr.changed').length === 1, null,
                            { timeout: 10_000 });
  expect((await liveRows(one))[3]).toBe('10from tab onetrue2');
}, 180_000);
