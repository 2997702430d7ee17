// Lazy hydration (issue 4): a database opened on IndexedDB reads its catalog only; each store
// table is read the first time a statement may touch it (core/persistence/store_load.h, the bridge's
// readRanges). The reads are counted by wrapping the bridge's reads (idb_reads.ts), so the tests
// see what was read from storage, not only what the engine answers.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { Database, type DataChangeEvent } from 'opticdb';
import { countIdbReads } from './idb_reads.js';

let counter = 0;
const freshName = () => `hydrate-${process.pid}-${counter++}`;
const open: Database[] = [];
async function openDb(name: string): Promise<Database> {
  const db = await Database.open({ storage: 'indexeddb', name });
  open.push(db);
  return db;
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

// Every entry getAll hands back, counted.
const { readSince } = countIdbReads();

async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function seed(name: string, sql: string): Promise<void> {
  const db = await Database.open({ storage: 'indexeddb', name });
  await db.exec(sql);
  await db.close();
}
const count = async (db: Database, table: string) => (await db.get(`select count(*) as n from ${table}`))!.n;

describe('lazy hydration', () => {
  it('opening reads the catalog only; a query reads its own table only', async () => {
    const name = freshName();
    await seed(name, `create table t (id integer primary key, v text);
                      create table u (id integer primary key, w integer);
                      create index u_w on u (w);
                      create table z (id integer primary key);
                      insert into t select value, 'v' || value from generate_series(1, 300);
                      insert into u select value, value % 7 from generate_series(1, 200);
                      insert into z values (1)`);
    readSince();
    const db = await openDb(name);
    expect(readSince()).toBe(4);  // three catalog entries and the clean-shutdown marker
    expect(await count(db, 't')).toBe(300);
    expect(readSince()).toBe(300);  // t's rows (it has no index)
    expect(await count(db, 't')).toBe(300);
    expect(readSince()).toBe(0);  // loaded once
    expect(await db.get('select count(*) as n from u where w = 3')).toEqual({ n: 29 });
    expect(readSince()).toBe(400);  // u's rows and its index entries
    const st = db.prepare('select id from z');
    expect(() => st.allRows()).toThrow(/not loaded yet/);  // a synchronous first read cannot wait
    let rows: unknown[] = [];
    await until(async () => {
      try {
        rows = st.allRows();
        return true;
      } catch {
        return false;
      }
    }, 'the load it started');
    expect(rows).toEqual([[1]]);
    expect(readSince()).toBe(1);  // read once, by the load the failed read started
    st.finalize();
  });

  it('statements run in call order while a load is read', async () => {
    const name = freshName();
    await seed(name, 'create table t (id integer primary key); insert into t values (1)');
    const db = await openDb(name);
    const order: string[] = [];
    const first = db.get('select count(*) as n from t').then((r) => order.push(`read ${r!.n}`));
    const second = db.exec('insert into t values (2)').then(() => order.push('insert'));
    const third = db.get('select count(*) as n from t').then((r) => order.push(`read ${r!.n}`));
    await Promise.all([first, second, third]);
    expect(order).toEqual(['read 1', 'insert', 'read 2']);
  });

  it('a cascade and a materialized view reach tables not yet loaded, in memory and after reopen', async () => {
    const name = freshName();
    await seed(name, `create table p (id integer primary key);
                      create table c (id integer primary key, p integer references p(id) on delete cascade);
                      create table a (id integer primary key, g integer);
                      insert into p values (1), (2); insert into c values (10, 1), (11, 1), (20, 2);
                      insert into a values (1, 1), (2, 1), (3, 2)`);
    const db = await openDb(name);
    await db.exec('delete from p where id = 1');  // c is read before, so the cascade finds its rows
    expect(await db.get('select group_concat(id) as ids from c')).toEqual({ ids: '20' });
    await db.exec(`create materialized view if not exists per_g using memory as
                   select g, count(*) as n from a group by g`);
    await db.exec('insert into a values (4, 2)');
    expect(await db.get("select group_concat(g || ':' || n) as s from (select * from per_g order by g)"))
      .toEqual({ s: '1:2,2:2' });
    await db.close();
    const again = await openDb(name);
    expect(await again.get('select group_concat(id) as ids from c')).toEqual({ ids: '20' });
    expect(await again.get('select group_concat(id) as ids from p')).toEqual({ ids: '2' });
    expect(await count(again, 'a')).toBe(4);
  });

  it('an explicit transaction loads a table mid-way, and rollback restores exactly', async () => {
    const name = freshName();
    await seed(name, `create table t (id integer primary key); create table u (id integer primary key);
                      insert into t values (1); insert into u values (5), (6)`);
    const db = await openDb(name);
    await db.beginTransaction();
    await db.exec('insert into t values (2)');
    await db.exec('insert into t select id from u');  // u is loaded inside the transaction
    expect(await db.get('select group_concat(id) as ids from (select id from t order by id)')).toEqual({ ids: '1,2,5,6' });
    await db.rollback();
    expect(await db.get('select group_concat(id) as ids from t')).toEqual({ ids: '1' });
    expect(await count(db, 'u')).toBe(2);
    await db.close();
    const again = await openDb(name);
    expect(await again.get('select group_concat(id) as ids from t')).toEqual({ ids: '1' });
  });

  it("another tab's writes to a table not loaded here are read once, then followed", async () => {
    const name = freshName();
    await seed(name, `create table t (id integer primary key); create table u (id integer primary key, v text);
                      insert into u values (1, 'one')`);
    const a = await openDb(name);
    const b = await openDb(name);
    const events: DataChangeEvent[] = [];
    a.onDataChange((e) => events.push(e));
    expect(await count(a, 't')).toBe(0);  // a loads t only
    await b.exec("insert into u values (2, 'two'), (3, 'three')");
    await new Promise((r) => setTimeout(r, 20));  // the broadcast reached a: u is not loaded there
    expect(events).toEqual([]);
    expect(await a.get('select group_concat(id) as ids from (select id from u order by id)')).toEqual({ ids: '1,2,3' });
    await b.exec("update u set v = 'uno' where id = 1");
    await until(async () => (await a.get('select v from u where id = 1'))!.v === 'uno', 'the broadcast');
    expect(events.map((e) => [e.type, e.tableName, e.remote])).toEqual([['update', 'u', true]]);
    expect(await count(a, 'u')).toBe(3);
  });
});
