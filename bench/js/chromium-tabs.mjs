// Several tabs on one IndexedDB database in Debian's Chromium (playwright-core, headless), served
// by the web demo's Vite config: what the write lock shared by the tabs costs, and how fast a
// commit reaches another tab.
//   - a single-row autocommit insert, awaited, 200 times in one tab: alone, then with two more
//     tabs open on the database (each with a live query over the table);
//   - two tabs inserting at once, each awaiting each insert;
//   - a commit in one tab until the live query in another tab delivers it (performance.timeOrigin
//     + now(): one clock across the tabs of a browser), 100 times.
// Median and p95 per operation, side by side in one run.
//
//   node bench/js/chromium-tabs.mjs [--writes N]      (after `npm run build`)
import { stats, withChromium } from './chromium-page.mjs';
const writes = Number(process.argv[process.argv.indexOf('--writes') + 1]) || 200;

// A tab of the demo with a connection to `name` as window.bench.
async function openTab(context, url, name) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ready'), null, { timeout: 60_000 });
  await page.evaluate(async (name) => {
    const Database = await window.loadMainThreadDatabase();
    window.bench = await Database.open({ storage: 'indexeddb', name });
  }, name);
  return page;
}

// Times `n` awaited single-row inserts in the page; resolves to the durations in ms.
const timeInserts = (page, n, from) => page.evaluate(async ({ n, from }) => {
  const db = window.bench;
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await db.run('insert into item values (?, ?, ?)', [from + i, 'x', 0]);
    times.push(performance.now() - t);
  }
  return times;
}, { n, from });

const ms = (x) => `${x.toFixed(2)} ms`;

await withChromium(async ({ browser, url }) => {
  const context = await browser.newContext();
  const name = `tabs-${Date.now()}`;
  const one = await openTab(context, url, name);
  await one.evaluate(() => window.bench.exec('create table item (id integer primary key, v text, at real)'));
  await timeInserts(one, 20, 1_000_000);  // warm-up
  const alone = stats(await timeInserts(one, writes, 0));

  const others = [await openTab(context, url, name), await openTab(context, url, name)];
  for (const tab of others) {
    await tab.evaluate(() => {
      window.arrivals = [];
      window.bench.live('select id, at from item where id >= 2000000 order by id', [], (r) => {
        const now = performance.timeOrigin + performance.now();
        for (const [, at] of r.added) window.arrivals.push(now - at);
      });
    });
  }
  const withTabs = stats(await timeInserts(one, writes, 10_000));

  // Two tabs writing at once, each awaiting each insert: what sharing the lock costs a writer.
  const [mine, theirs] = await Promise.all([timeInserts(one, writes, 20_000), timeInserts(others[0], writes, 30_000)]);
  const contended = stats([...mine, ...theirs]);

  // A commit in `one` until the live query of the other tabs delivers it.
  await one.evaluate(async () => {
    for (let i = 0; i < 100; i++) {
      await window.bench.run('insert into item values (?, ?, ?)', [2_000_000 + i, 'live', performance.timeOrigin + performance.now()]);
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  await others[0].waitForFunction(() => window.arrivals.length >= 100, null, { timeout: 30_000 });
  const reach = stats(await others[0].evaluate(() => window.arrivals));

  console.log(`Chromium ${await one.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0])}, ${writes} awaited single-row inserts, strict durability`);
  console.log('| | median | p95 |');
  console.log('|---|---|---|');
  console.log(`| insert, one tab open | ${ms(alone.median)} | ${ms(alone.p95)} |`);
  console.log(`| insert, three tabs open (two with a live query) | ${ms(withTabs.median)} | ${ms(withTabs.p95)} |`);
  console.log(`| ratio three tabs / one | ${(withTabs.median / alone.median).toFixed(2)}x | ${(withTabs.p95 / alone.p95).toFixed(2)}x |`);
  console.log(`| insert, two tabs writing at once (both tabs' inserts) | ${ms(contended.median)} | ${ms(contended.p95)} |`);
  console.log(`| commit in one tab -> live query in another | ${ms(reach.median)} | ${ms(reach.p95)} |`);
});
