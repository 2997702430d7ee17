// What a query or a write resolves to: db.all's array, run()'s { changes } (counted by the engine's
// DML executor: through views and materialized views too), typed rows.
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { Database, type RunResult } from 'opticdb';
import { reopened } from './reopened.js';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec(`create table t (id integer primary key, g text, v integer);
                 insert into t values (1, 'a', 10), (2, 'a', 20), (3, 'b', 30)`);
});
afterEach(async () => {
  await db.close();
});

describe('db.all', () => {
  it('resolves to the rows of the last statement as objects', async () => {
    expect(await db.all('select id, v from t where v > ? order by id', [15])).toEqual([{ id: 2, v: 20 }, { id: 3, v: 30 }]);
    expect(await db.all("insert into t values (4, 'c', 40); select count(*) as n from t where g = :g", { g: 'c' }))
      .toEqual([{ n: 1 }]);
    expect(await db.all('select * from t where id < 0')).toEqual([]);
  });

  it('waits for a table not loaded yet (where toArray would throw NOT_LOADED)', async () => {
    const again = await reopened("create table big (id integer primary key, x text); insert into big values (1, 'one'), (2, 'two')");
    try {
      expect(await again.all('select x from big order by id')).toEqual([{ x: 'one' }, { x: 'two' }]);
    } finally {
      await again.close();
    }
  });
});

describe('run() resolves { changes }', () => {
  it('counts inserted, updated and deleted rows, and nothing for other statements', async () => {
    const ins = db.prepare('insert into t values (?, ?, ?)');
    expect(await ins.run([10, 'x', 1])).toEqual({ changes: 1 });
    expect(await db.run("insert into t select id + 100, 'y', v from t")).toEqual({ changes: 4 });
    expect(await db.run("update t set v = v + 1 where g = 'y'")).toEqual({ changes: 4 });
    expect(await db.run('update t set v = 0 where id < 0')).toEqual({ changes: 0 });
    expect(await db.run('delete from t where id >= 100')).toEqual({ changes: 4 });
    expect(await db.run('select * from t')).toEqual({ changes: 0 });
    expect(await db.run('create table u (id integer primary key)')).toEqual({ changes: 0 });
  });

  it('skipped rows do not count; an upsert that updates does', async () => {
    expect(await db.run("insert or ignore into t values (1, 'dup', 0), (50, 'new', 0)")).toEqual({ changes: 1 });
    expect(await db.run("insert into t values (1, 'z', 0) on conflict do nothing")).toEqual({ changes: 0 });
    expect(await db.run("insert into t values (1, 'z', 0), (51, 'z', 0) on conflict (id) do update set v = 99"))
      .toEqual({ changes: 2 });
    expect(await db.get('select v from t where id = 1')).toEqual({ v: 99 });
  });

  it("a foreign-key cascade and materialized-view maintenance are not the statement's changes", async () => {
    await db.exec(`create table parent (id integer primary key);
                   create table child (id integer primary key, p integer references parent(id) on delete cascade);
                   insert into parent values (1); insert into child values (1, 1), (2, 1);
                   create materialized view per_g as select g, count(*) as n from t group by g`);
    expect(await db.run('delete from parent where id = 1')).toEqual({ changes: 1 });
    expect(await db.get('select count(*) as n from child')).toEqual({ n: 0 });
    expect(await db.run("insert into t values (9, 'c', 1)")).toEqual({ changes: 1 });
  });

  it("counts the view's rows through a view and a materialized view", async () => {
    await db.exec(`create view big as select id, g, v from t where v >= 20;
                   create materialized view mt as select id, g, v from t`);
    expect(await db.run("update big set g = 'z'")).toEqual({ changes: 2 });
    expect(await db.run("insert into big values (7, 'q', 70)")).toEqual({ changes: 1 });
    expect(await db.run("delete from big where g = 'z'")).toEqual({ changes: 2 });
    expect(await db.run('update mt set v = v * 10')).toEqual({ changes: 2 });
    expect(await db.all('select id, v from t order by id')).toEqual([{ id: 1, v: 100 }, { id: 7, v: 700 }]);
    expect(await db.run("delete from mt where id = 7")).toEqual({ changes: 1 });
  });

  it('counts view rows through a join view', async () => {
    await db.exec(`create table owner (id integer primary key, name text);
                   create table pet (id integer primary key, owner_id integer, kind text);
                   insert into owner values (1, 'ann'), (2, 'bob');
                   insert into pet values (1, 1, 'cat'), (2, 2, 'dog'), (3, 2, 'eel');
                   create view owned as select p.id, p.kind, o.name from pet p join owner o on o.id = p.owner_id`);
    expect(await db.run("update owned set kind = 'fish' where name = 'bob'")).toEqual({ changes: 2 });
  });

  it('counts a set-operation view\'s rows once, whichever legs hold them', async () => {
    await db.exec(`create table a (id integer primary key, v integer);
                   create table b (id integer primary key, v integer);
                   insert into a values (1, 1), (2, 2); insert into b values (1, 1);
                   create view ab as select id, v from a union exists left as ina, exists right as inb select id, v from b`);
    expect(await db.run('update ab set v = v + 10')).toEqual({ changes: 2 });
    expect(await db.run('insert into ab (id, v, ina, inb) values (3, 3, true, true)')).toEqual({ changes: 1 });
    expect(await db.run('delete from ab where id in (1, 3)')).toEqual({ changes: 2 });
    expect(await db.all('select id, v from a union all select id, v from b')).toEqual([{ id: 2, v: 12 }]);
  });
});

describe('typed rows', () => {
  interface Item { id: number; v: number }
  it('get<T>, all<T>, prepare<T> and eval<T> type their rows', async () => {
    const one = await db.get<Item>('select id, v from t where id = 1');
    expectTypeOf(one).toEqualTypeOf<Item | undefined>();
    expect(one?.v).toBe(10);
    const all = await db.all<Item>('select id, v from t order by id');
    expectTypeOf(all).toEqualTypeOf<Item[]>();
    expect(all.map((r) => r.v)).toEqual([10, 20, 30]);
    const st = db.prepare<Item>('select id, v from t where id = ?');
    const got = await st.get([2]);
    expectTypeOf(got).toEqualTypeOf<Item | undefined>();
    expect(got).toEqual({ id: 2, v: 20 });
    for await (const r of st.all([3])) {
      expectTypeOf(r).toEqualTypeOf<Item>();
      expect(r.v).toBe(30);
    }
    await st.finalize();
    for await (const r of db.eval<Item>('select id, v from t where id = 1')) expect(r.id).toBe(1);
    expectTypeOf(await db.run('delete from t where id = 0')).toEqualTypeOf<RunResult>();
  });
});
