// The IndexedDB layout of issue 29 (fake-indexeddb): commits appended to a log, compaction
// folding it into sorted pages (js/src/idb/). Reads that merge pages and log, compaction with
// small pages and thresholds, two connections compacting while the other writes, the version-1
// layout migrated once, a newer format refused, and a compaction that fails changing nothing.
// Every check compares against a reference computed apart: an in-memory database given the same
// statements.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Database, StorageError, type DatabaseOptions } from 'opticdb';
import { IndexedDbBridge } from '../dist/indexeddb.js';
import { generator } from './random.js';

let counter = 0;
const freshName = () => `idbfmt-${process.pid}-${counter++}`;
const open: Database[] = [];
async function connect(name: string, compaction?: DatabaseOptions['compaction']): Promise<Database> {
  const db = await Database.open({ storage: 'indexeddb', name, compaction });
  open.push(db);
  return db;
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close().catch(() => {});
});
// Compaction only when asked (compactStorage), with small pages so tables span many.
const manual = { commits: Infinity, bytes: Infinity, idleMs: 1e9, pageBytes: 512 };
// Compaction after every commit, small pages.
const eager = { commits: 1, bytes: 1, idleMs: 0, pageBytes: 512 };


const SCHEMA = `create table t (id integer primary key, v text, n integer);
                create index t_v on t (v);
                create table u (id integer primary key, w integer);
                create index u_w on u (w)`;
// A random statement of the workload: inserts, updates, deletes (single and by range), on two
// tables with indexes; now and then a table dropped and made again (a range erase).
function statement(rand: (n: number) => number): string {
  const id = rand(400);
  switch (rand(10)) {
    case 0: case 1: case 2:
      return `insert or replace into t values (${id}, 'v${rand(50)}', ${rand(1000)})`;
    case 3:
      return `insert into t select value, 'b' || value, value from generate_series(${id * 10 + 1000}, ${id * 10 + 1000 + rand(60)}) ` +
             'where true on conflict do nothing';
    case 4:
      return `update t set v = 'u${rand(50)}', n = n + 1 where id between ${id} and ${id + rand(30)}`;
    case 5:
      return `delete from t where id between ${id} and ${id + rand(40)}`;
    case 6:
      return `insert or replace into u values (${id}, ${rand(20)})`;
    case 7:
      return `delete from u where w = ${rand(20)}`;
    case 8:
      return rand(8) === 0 ? 'drop table u; create table u (id integer primary key, w integer); create index u_w on u (w)'
                           : `update u set w = w + 1 where id < ${id}`;
    default:
      return `delete from t where v = 'v${rand(50)}'`;
  }
}
async function contents(db: Database): Promise<unknown> {
  return {
    t: await db.all('select id, v, n from t order by id'),
    tv: await db.all("select id from t where v >= 'm' order by v, id"),
    u: await db.all('select id, w from u order by id'),
    uw: await db.all('select count(*) as c, sum(w) as s from u where w > 5'),
  };
}
async function memoryReference(statements: string[]): Promise<unknown> {
  const ref = new Database();
  await ref.exec(SCHEMA);
  for (const s of statements) await ref.exec(s);
  const out = await contents(ref);
  await ref.close();
  return out;
}
async function storedEntries(name: string): Promise<string[]> {
  const bridge = await IndexedDbBridge.open(name, { durability: 'strict' });
  try {
    const all = await bridge.storedEntries();
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    return all.map(([k, v]) => `${hex(k)}=${hex(v)}`);
  } finally {
    await bridge.close();
  }
}
function raw<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

describe('IndexedDB pages and log', () => {
  it('reads merge pages and the log tail: each reopen, before and after compactions, equals a reference', async () => {
    const name = freshName();
    const rand = generator(29);
    const done: string[] = [];
    let db = await connect(name, manual);
    await db.exec(SCHEMA);
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 40; i++) {
        const s = statement(rand);
        await db.exec(s);
        done.push(s);
      }
      if (round % 2 === 0) {
        const r = await db.compactStorage();
        expect(r.commits).toBeGreaterThan(0);
      }
      // A second connection reads what storage holds: pages plus, on odd rounds, a log tail.
      const other = await connect(name, manual);
      expect(await contents(other)).toEqual(await memoryReference(done));
      await other.close();
      if (round === 3) {
        await db.close();
        db = await connect(name, manual);
      }
    }
    expect(await contents(db)).toEqual(await memoryReference(done));
    // Export reads the merged state too: the same entries before and after a final compaction.
    const before = await storedEntries(name);
    await db.compactStorage();
    expect(await storedEntries(name)).toEqual(before);
  });

  it('eager compaction with small pages: many pages split and dropped, a reopen equals a reference', async () => {
    const name = freshName();
    const rand = generator(7);
    const done: string[] = [];
    const db = await connect(name, eager);
    await db.exec(SCHEMA);
    for (let i = 0; i < 150; i++) {
      const s = statement(rand);
      await db.exec(s);
      done.push(s);
    }
    await db.exec('delete from t where id % 3 = 0');
    done.push('delete from t where id % 3 = 0');
    await db.compactStorage();
    const stats = db.storageStats()!;
    expect(stats.compactions).toBeGreaterThan(10);
    await db.close();
    const again = await connect(name, eager);
    expect(await contents(again)).toEqual(await memoryReference(done));
  });

  it('100k rows with an index, through compaction, updates in the log and reopen', async () => {
    const name = freshName();
    const db = await connect(name, { ...manual, pageBytes: 64 * 1024 });
    await db.exec('create table t (id integer primary key, name text, grp integer); create index t_grp on t (grp)');
    await db.exec("insert into t select value, 'n' || value, value % 97 from generate_series(0, 109999)");
    const r = await db.compactStorage();
    expect(r.pagesWritten).toBeGreaterThan(50);
    await db.exec('update t set grp = 1000 where id % 1000 = 0');  // in the log only
    await db.exec('delete from t where id between 5000 and 5999');
    await db.close();
    const again = await connect(name, manual);
    expect(await again.get('select count(*) as n, sum(id) as s, min(name) as lo from t'))
      .toEqual({ n: 109_000, s: 6_049_945_000 - 5_499_500, lo: 'n0' });
    expect(await again.get('select count(*) as n from t where grp = 1000')).toEqual({ n: 109 });
    expect(await again.get('select count(*) as n from t where grp = 5')).toEqual({ n: 1123 });
    await again.compactStorage();
    await again.close();
    const third = await connect(name, manual);
    expect(await third.get('select count(*) as n from t where grp = 1000')).toEqual({ n: 109 });
    expect(await third.get('select name from t where id = 109999')).toEqual({ name: 'n109999' });
  }, 60_000);

  it('two connections: each compacts while the other writes and catches up; copies and storage agree', async () => {
    const name = freshName();
    const a = await connect(name, eager);
    await a.exec('create table c (k integer primary key, n integer)');
    const b = await connect(name, { ...eager, idleMs: 1 });
    const rand = generator(3);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      const db = rand(2) ? a : b;
      const k = rand(30);
      writes.push(db.exec(`insert into c values (${k}, 1) on conflict (k) do update set n = n + 1`));
      if (i % 25 === 0) writes.push(db.compactStorage());
    }
    await Promise.all(writes);
    // Each copy is complete once its connection writes (it catches up under the lock); before, it
    // may still wait for the other's last broadcasts.
    await a.exec('insert into c values (1000, 0)');
    const expected = await a.get('select count(*) as keys, sum(n) as n from c');
    expect(expected!.n).toBe(200);
    await b.exec('insert into c values (1001, 0)');
    expect(await b.get('select count(*) - 1 as keys, sum(n) as n from c')).toEqual(expected);
    await a.compactStorage();
    await b.compactStorage();
    const fresh = await connect(name, manual);
    expect(await fresh.all('select * from c order by k')).toEqual(await b.all('select * from c order by k'));
  });

  it('a version-1 database (one record per entry) is migrated once, row for row', async () => {
    const name = freshName();
    // The entries of a database, as today's layout holds them, written in version 1's layout.
    const source = freshName();
    const db = await connect(source, manual);
    await db.exec(`${SCHEMA}; insert into t select value, 'v' || (value % 50), value from generate_series(1, 3000);
                   insert into u select value, value % 20 from generate_series(1, 500)`);
    await db.close();
    const bridge = await IndexedDbBridge.open(source, { durability: 'strict' });
    const stored = await bridge.storedEntries();
    await bridge.close();
    const v1 = await raw(Object.assign(indexedDB.open(`opticdb:${name}`, 1), {
      onupgradeneeded(this: IDBOpenDBRequest) {
        this.result.createObjectStore('kv');
      },
    }));
    const tx = v1.transaction('kv', 'readwrite');
    const kv = tx.objectStore('kv');
    for (const [k, v] of stored) kv.put(v.slice(), k);
    kv.put(17, new Uint8Array([0]));  // the commit sequence number
    kv.put([new Uint8Array([1, 2])], new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 17]));  // a log record
    await new Promise((resolve) => { tx.oncomplete = resolve; });
    v1.close();

    const migrated = await connect(name, manual);
    const reference = await connect(source, manual);
    expect(await contents(migrated)).toEqual(await contents(reference));
    await migrated.exec("insert into t values (5000, 'after', 1)");
    await migrated.close();
    const idb = await raw(indexedDB.open(`opticdb:${name}`));
    expect(idb.version).toBe(2);
    expect([...idb.objectStoreNames].sort()).toEqual(['log', 'meta', 'segments']);
    expect(await raw(idb.transaction('meta').objectStore('meta').get('seq'))).toBe(19);  // 17, the insert, the clean close
    idb.close();
    const again = await connect(name, manual);
    expect(await again.get('select count(*) as n from t')).toEqual({ n: 3001 });
    expect(await again.all('select * from u order by id')).toEqual(await reference.all('select * from u order by id'));
  });

  it('a database of a newer format is refused with both versions named', async () => {
    const name = freshName();
    const v3 = await raw(Object.assign(indexedDB.open(`opticdb:${name}`, 3), {
      onupgradeneeded(this: IDBOpenDBRequest) {
        this.result.createObjectStore('log');
      },
    }));
    v3.close();
    const e = await Database.open({ storage: 'indexeddb', name }).catch((x) => x);
    expect(e).toBeInstanceOf(StorageError);
    expect(e.message).toMatch(/storage format version 3, newer than this version of OpticDB knows \(format 2\)/);

    const other = freshName();
    (await connect(other)).close();
    open.pop();
    const idb = await raw(indexedDB.open(`opticdb:${other}`, 2));
    await raw(idb.transaction('meta', 'readwrite').objectStore('meta').put({ format: 5, compactedThrough: 0 }, 'state'));
    idb.close();
    const e5 = await Database.open({ storage: 'indexeddb', name: other }).catch((x) => x);
    expect(e5).toBeInstanceOf(StorageError);
    expect(e5.message).toMatch(/format version 5, newer .*\(format 2\)/);
  });

  it('a compaction refused for quota, or aborted, changes nothing; writing and compacting go on', async () => {
    const name = freshName();
    const db = await connect(name, manual);
    await db.exec(SCHEMA);
    const rand = generator(11);
    const done: string[] = [];
    const run = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const s = statement(rand);
        await db.exec(s);
        done.push(s);
      }
    };
    await run(60);
    await db.compactStorage();
    await run(60);
    const before = await storedEntries(name);
    const put = IDBObjectStore.prototype.put;
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...a) {
      if (this.name === 'segments') throw new DOMException('quota exceeded (simulated)', 'QuotaExceededError');
      return put.apply(this, a);
    });
    const e = await db.compactStorage().catch((x) => x);
    spy.mockRestore();
    expect(e).toBeInstanceOf(StorageError);
    expect(e.code).toBe('FULL');
    expect(await storedEntries(name)).toEqual(before);
    // An abort after the pages were rewritten (at compaction's last put): nothing changes either.
    const abortSpy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...a) {
      const r = put.apply(this, a);
      if (this.name === 'meta' && this.transaction.objectStoreNames.contains('segments')) this.transaction.abort();
      return r;
    });
    const aborted = await db.compactStorage().catch((x) => x);
    abortSpy.mockRestore();
    expect(aborted).toBeInstanceOf(StorageError);
    expect(await storedEntries(name)).toEqual(before);
    // The database goes on: writes, a compaction that succeeds, a reopen equal to a reference.
    await run(30);
    expect((await db.compactStorage()).commits).toBeGreaterThan(60);
    await db.close();
    const again = await connect(name, manual);
    expect(await contents(again)).toEqual(await memoryReference(done));
  });
});
