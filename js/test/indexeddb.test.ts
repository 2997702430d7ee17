// Persistence on IndexedDB (fake-indexeddb, the same API as the browser's): reopen, group commit,
// durability, clean failure. The Chromium e2e suite repeats the reload case in a real browser.
import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { Database, OpticError, StorageError, type SqlValue } from 'opticdb';
import { expectValueRows, writeValueRows } from './value_types.js';

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

  it('every value type and every index survives a reopen', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await writeValueRows(db);
    await db.close();

    const again = await Database.open({ storage: 'indexeddb', name });
    expect(again.loadErrors).toEqual([]);
    const st = again.prepare('select * from v order by id');
    // The first read of a table after opening loads it (lazily), so it is awaited.
    const back: SqlValue[][] = [];
    for await (const r of st.iterateRows()) back.push(r);
    st.finalize();
    await expectValueRows(again, back);
    await again.close();
  });

  // No index here: fake-indexeddb queues a transaction's requests in an array it shifts, so a
  // transaction's cost grows with the square of its puts (200k puts take ~20 s, 100k ~6 s);
  // indexes are covered above, and Chromium has no such cliff (bench/js/chromium-indexeddb.mjs).
  it('100k rows survive a reopen', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key, name text, grp integer)');
    const ins = db.prepare('insert into t values (?, ?, ?)');
    await db.beginTransaction();
    for (let i = 0; i < 100_000; i++) await ins.run([i, `n${i}`, i % 97]);
    await db.commit();
    ins.finalize();
    await db.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    expect(await again.get('select count(*) as n, sum(id) as s, min(name) as lo from t'))
      .toEqual({ n: 100_000, s: 4_999_950_000, lo: 'n0' });
    expect(await again.get('select count(*) as n from t where grp = 5')).toEqual({ n: 1031 });
    expect(await again.get('select count(*) as n from t where id between 500 and 1499')).toEqual({ n: 1000 });
    expect(await again.get('select name from t where id = 99999')).toEqual({ name: 'n99999' });
    await again.close();
  }, 60_000);

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

  it('text with an unpaired surrogate is refused before anything is stored, bound or in SQL', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key, v text)');
    const insert = db.prepare('insert into t values (?, ?)');
    await expect(insert.run([1, 'a\ud800b'])).rejects.toThrow(/unpaired surrogate \(U\+D800 at offset 1\)/);
    await expect(insert.run([2, '\udc00'])).rejects.toThrow(/unpaired surrogate/);
    // In SQL text a lone high surrogate is fused with the next code unit by Emscripten's string
    // conversion, so the statement fails to parse: refused all the same, nothing written.
    await expect(db.exec("insert into t values (3, 'x\ud83d')")).rejects.toThrow(OpticError);
    await insert.run([4, 'paired \ud83d\ude00 stays']);
    await db.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    expect(await again.get('select count(*) as n, min(v) as v from t')).toEqual({ n: 1, v: 'paired \ud83d\ude00 stays' });
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

  it('a failed IndexedDB write fails the statement, rolls memory back, and the database stays usable', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key); insert into t values (1)');
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('quota exceeded (simulated)', 'QuotaExceededError');
    });
    const err = await db.exec('insert into t values (2)').catch((e) => e);
    spy.mockRestore();
    expect(err).toBeInstanceOf(StorageError);
    expect(err.code).toBe('FULL');  // a QuotaExceededError is the documented code FULL
    expect(err.message).toMatch(/IndexedDB write failed: quota exceeded \(simulated\); commits \d+\.\.\d+ were rolled back/);
    // Memory holds exactly what storage holds, and writing goes on.
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 1 });
    await db.exec('insert into t values (3)');
    await db.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    const rows = [];
    for await (const r of again.eval('select id from t order by id')) rows.push(r);
    expect(rows).toEqual([{ id: 1 }, { id: 3 }]);
    await again.close();
  });

  it('an IndexedDB transaction aborted mid-commit loses its group of commits, memory and storage both', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key, v text); insert into t values (1, \'kept\')');
    const seen: number[] = [];
    const stop = db.live('select count(*) as n from t', [], (r) => seen.push(Number(r.rows[0][0])));
    // Abort the next readwrite transaction after its puts were issued.
    const orig = IDBDatabase.prototype.transaction;
    const spy = vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...a: any[]) {
      const tx = (orig as any).apply(this, a);
      if (a[1] === 'readwrite') queueMicrotask(() => tx.abort());
      return tx;
    });
    const st = db.prepare('insert into t values (?, ?)');
    const results = await Promise.allSettled([st.run([2, 'a']), st.run([3, 'b']), db.exec("update t set v = 'lost' where id = 1")]);
    spy.mockRestore();
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(StorageError);
    expect((results[0] as PromiseRejectedResult).reason.code).toBe('IOERR');
    expect(await db.get('select count(*) as n, max(v) as v from t')).toEqual({ n: 1, v: 'kept' });
    // The live query showed the lost rows, then the stored result again.
    expect(seen[0]).toBe(1);
    expect(seen.at(-1)).toBe(1);
    expect(Math.max(...seen)).toBe(3);
    await st.run([4, 'after']);
    stop();
    await db.close();
    const again = await Database.open({ storage: 'indexeddb', name });
    const rows = [];
    for await (const r of again.eval('select id, v from t order by id')) rows.push(r);
    expect(rows).toEqual([{ id: 1, v: 'kept' }, { id: 4, v: 'after' }]);
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

  it('Database.delete removes a stored database; one open on it fails cleanly', async () => {
    const name = freshName();
    const db = await Database.open({ storage: 'indexeddb', name });
    await db.exec('create table t (id integer primary key); insert into t values (1)');
    const other = await Database.open({ storage: 'indexeddb', name: `${name}-kept` });
    await other.exec('create table k (id integer primary key); insert into k values (7)');
    await other.close();
    await Database.delete(name);
    await expect(db.get('select 1 as x')).rejects.toBeInstanceOf(StorageError);
    await db.close();
    const fresh = await Database.open({ storage: 'indexeddb', name });
    await expect(fresh.exec('select * from t')).rejects.toThrow(/t/);
    await fresh.close();
    const kept = await Database.open({ storage: 'indexeddb', name: `${name}-kept` });
    expect(await kept.all('select id from k')).toEqual([{ id: 7 }]);
    await kept.close();
  });
});
