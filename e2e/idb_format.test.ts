// The IndexedDB layout in Debian's Chromium (issue 29): quota exhausted during a compaction, after
// it wrote some pages, changes nothing stored, and a database
// of the version-1 layout (one record per entry), written with raw IndexedDB calls, is migrated
// on open and checked row for row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadDemo, openDemoBrowser, type DemoBrowser } from './harness.js';

let demo: DemoBrowser;
let page: Page;
beforeAll(async () => {
  demo = await openDemoBrowser();
  page = await demo.context.newPage();
  expect(await loadDemo(page, demo.url)).toEqual([]);
}, 120_000);
afterAll(async () => {
  await demo?.close();
});

it('quota exhausted mid-compaction: a StorageError FULL, storage unchanged, and compaction succeeds once there is room', async () => {
  const name = `quota-${Date.now()}`;
  await page.evaluate(async (name) => {
    const w = window as any;
    const Database = await w.loadMainThreadDatabase();
    const db = await Database.open({ storage: 'indexeddb', name,
                                     compaction: { commits: Infinity, bytes: Infinity, idleMs: 1e9 } });
    w.quotaDb = db;
    await db.exec('create table t (id integer primary key, v text)');
    await db.exec(`insert into t select value, value || '${'x'.repeat(190)}' from generate_series(1, 40000)`);
  }, name);
  // The quota runs out after compaction wrote a few pages: Chromium's DevTools quota override
  // does not reach IndexedDB in this build, so the refusal is the browser's own
  // QuotaExceededError thrown by put, as a full disk throws it.
  const failed = await page.evaluate(async () => {
    const put = IDBObjectStore.prototype.put;
    let pages = 0;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...a: any[]) {
      if (this.name === 'segments' && ++pages > 3) throw new DOMException('the quota is exhausted', 'QuotaExceededError');
      return (put as any).apply(this, a);
    };
    try {
      const db = (window as any).quotaDb;
      return await db.compactStorage().then(() => null, (x: any) => ({ name: x.name, code: x.code, message: x.message }));
    } finally {
      IDBObjectStore.prototype.put = put;
    }
  });
  expect(failed).toMatchObject({ name: 'StorageError', code: 'FULL' });
  expect(failed!.message).toMatch(/compaction failed \(nothing was changed\)/);
  const after = await page.evaluate(async (name) => {
    const w = window as any;
    const Database = await w.loadMainThreadDatabase();
    const other = await Database.open({ storage: 'indexeddb', name });
    const before = await other.get('select count(*) as n, sum(length(v)) as s from t');
    await other.close();
    const folded = await w.quotaDb.compactStorage();
    await w.quotaDb.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    const reopened = await again.get('select count(*) as n, sum(length(v)) as s from t');
    await again.close();
    return { before, commits: folded.commits, reopened };
  }, name);
  const full = { n: 40000, s: 40000 * 190 + 9 + 90 * 2 + 900 * 3 + 9000 * 4 + 30001 * 5 };
  expect(after).toMatchObject({ before: full, reopened: full });
  expect(after.commits).toBeGreaterThan(0);  // what was left to fold (the other connection's close may fold first)
}, 120_000);

it('a database in the version-1 layout is migrated on open, row for row', async () => {
  const result = await page.evaluate(async (suffix) => {
    const w = window as any;
    const Database = await w.loadMainThreadDatabase();
    const source = `v1-source-${suffix}`, target = `v1-target-${suffix}`;
    const src = await Database.open({ storage: 'indexeddb', name: source });
    await src.exec(`create table t (id integer primary key, v text, n real); create index t_v on t (v);
                    insert into t select value, 'v' || (value % 37), value / 4.0 from generate_series(1, 20000)`);
    await src.compactStorage();
    await src.close();
    const req = <T>(r: IDBRequest<T>) => new Promise<T>((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    // The stored entries, from the format-2 pages (each a puts batch: tag 1, key, value; lengths
    // as 7-bit varints).
    const v2 = await req(indexedDB.open(`opticdb:${source}`));
    const pages: { data: Uint8Array }[] = await req(v2.transaction('segments').objectStore('segments').getAll());
    v2.close();
    const entries: [Uint8Array, Uint8Array][] = [];
    for (const { data } of pages) {
      let p = 0;
      const field = () => {
        let n = 0, scale = 1;
        for (;;) {
          const b = data[p++];
          n += (b & 0x7f) * scale;
          scale *= 128;
          if (!(b & 0x80)) break;
        }
        p += n;
        return data.slice(p - n, p);
      };
      while (p < data.length) {
        if (data[p++] !== 1) throw new Error('not a puts batch');
        const k = field();
        entries.push([k, field()]);
      }
    }
    // Version 1: one object store `kv`, every entry a record, the sequence number at [0].
    const open = indexedDB.open(`opticdb:${target}`, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('kv');
    const v1 = await req(open);
    const tx = v1.transaction('kv', 'readwrite');
    for (const [k, v] of entries) tx.objectStore('kv').put(v, k);
    tx.objectStore('kv').put(5, new Uint8Array([0]));
    await new Promise((r) => { tx.oncomplete = r; });
    v1.close();

    const rows = async (name: string) => {
      const db = await Database.open({ storage: 'indexeddb', name });
      const all = await db.all('select * from t order by id');
      const byV = await db.all("select id from t where v = 'v5' order by id");
      await db.close();
      return { all, byV };
    };
    const expected = await rows(source);
    const migrated = await rows(target);
    const reopened = await rows(target);
    const check = await req(indexedDB.open(`opticdb:${target}`));
    const stores = [...check.objectStoreNames].sort();
    check.close();
    return { entries: entries.length, same: JSON.stringify(migrated) === JSON.stringify(expected),
             sameAgain: JSON.stringify(reopened) === JSON.stringify(expected), rows: expected.all.length, stores };
  }, String(Date.now()));
  expect(result).toMatchObject({ same: true, sameAgain: true, rows: 20000, stores: ['log', 'meta', 'segments'] });
  expect(result.entries).toBeGreaterThan(40000);
}, 120_000);
