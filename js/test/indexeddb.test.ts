// Persistence on IndexedDB (fake-indexeddb, the same API as the browser's): reopen, group commit,
// durability, clean failure. The Chromium e2e suite repeats the reload case in a real browser.
import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { Database, OpticError } from 'opticdb';

let counter = 0;
const freshName = () => `test-${process.pid}-${counter++}`;

describe('IndexedDB storage', () => {
  it('a reopened database has its tables, indexes and rows; memory tables are not stored', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    expect(db.persistent).toBe(true);
    await db.exec(`create table t (id integer primary key, name text, score real null);
                   create index t_name on t (name);
                   create table scratch (id integer primary key) using memory;
                   insert into scratch values (1)`);
    const ins = db.prepare('insert into t values (?, ?, ?)');
    for (let i = 1; i <= 100; i++) await ins.run([i, `n${i}`, i / 2]);
    await db.exec("update t set name = 'changed' where id = 7; delete from t where id > 90");
    await db.close();

    const again = await Database.open({ storage: 'indexeddb', name });
    expect(again.loadErrors).toEqual([]);
    expect(await again.get('select count(*) as n, sum(score) as s from t')).toEqual({ n: 90, s: 2047.5 });
    expect(await again.get('select id from t where name = ?', ['changed'])).toEqual({ id: 7 });
    await expect(again.exec('select * from scratch')).rejects.toThrow(/scratch/);
    await again.close();
  });

  it('an uncommitted transaction is not stored; a rolled-back one leaves nothing', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key)');
    await db.beginTransaction();
    await db.exec('insert into t values (1)');
    await db.rollback();
    await db.beginTransaction();
    await db.exec('insert into t values (2)');
    await db.commit();
    await db.beginTransaction();
    await db.exec('insert into t values (3)');  // never committed
    await db.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    const rows = [];
    for await (const r of again.eval('select id from t')) rows.push(r);
    expect(rows).toEqual([{ id: 2 }]);
    await again.close();
  });

  it('autocommit statements issued without awaiting share one IndexedDB transaction', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key)');
    const spy = vi.spyOn(IDBDatabase.prototype, 'transaction');
    const st = db.prepare('insert into t values (?)');
    await Promise.all(Array.from({ length: 50 }, (_, i) => st.run([i])));
    const writes = spy.mock.calls.filter((c) => c[1] === 'readwrite').length;
    spy.mockRestore();
    expect(writes).toBe(1);
    await db.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    expect(await again.get('select count(*) as n from t')).toEqual({ n: 50 });
    await again.close();
  });

  it('the statement promise settles only after its IndexedDB transaction completes', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name, durability: 'relaxed' });
    await db.exec('create table t (id integer primary key)');
    let completed = 0;
    const orig = IDBDatabase.prototype.transaction;
    const spy = vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...a: any[]) {
      const tx = (orig as any).apply(this, a);
      if (a[1] === 'readwrite') tx.addEventListener('complete', () => { completed++; });
      return tx;
    });
    await db.exec('insert into t values (1)');
    expect(completed).toBe(1);
    spy.mockRestore();
    await db.close();
  });

  it('a failed IndexedDB write fails the statement, closes the database, and storage keeps the state before it', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key); insert into t values (1)');
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('quota exceeded (simulated)', 'QuotaExceededError');
    });
    const err = await db.exec('insert into t values (2)').catch((e) => e);
    spy.mockRestore();
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/IndexedDB write failed: quota exceeded/);
    const later = await db.exec('select 1').catch((e) => e);
    expect(later).toBeInstanceOf(OpticError);
    expect(later.code).toBe('IOERR');
    const again = await Database.open({ storage: 'indexeddb', name });
    const rows = [];
    for await (const r of again.eval('select id from t')) rows.push(r);
    expect(rows).toEqual([{ id: 1 }]);
    await again.close();
  });

  it('another connection deleting the database closes this one cleanly', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key)');
    await new Promise<void>((resolve, reject) => {
      const r = indexedDB.deleteDatabase(`opticdb:${name}`);
      r.onsuccess = () => resolve();
      r.onerror = () => reject(r.error);
    });
    const e = await db.exec('insert into t values (1)').catch((x) => x);
    expect(e).toBeInstanceOf(OpticError);
    expect(e.message).toMatch(/closed by another connection/);
  });
});
