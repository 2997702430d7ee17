// db.liveQuery: a live query as an observable value of object rows (the Svelte store contract,
// and getSnapshot for useSyncExternalStore): runs while subscribed, named parameters, errors as
// state.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Database, type LiveState } from 'opticdb';
import { reopened } from './reopened.js';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec(`create table t (id integer primary key, g text, v integer);
                 insert into t values (1, 'a', 10), (2, 'b', 20)`);
});
afterEach(async () => {
  await db.close();
});

it('delivers object rows, like get/all, to every subscriber; stops with the last one', async () => {
  const q = db.liveQuery<{ id: number; v: number }>('select id, v from t where g = :g order by id', { g: 'a' });
  expect(q.getSnapshot().rows).toEqual([]);  // nothing runs before a subscriber
  const a: LiveState<{ id: number; v: number }>[] = [];
  const b: number[][] = [];
  const offA = q.subscribe((s) => a.push(s));
  expect(a.map((s) => s.rows)).toEqual([[{ id: 1, v: 10 }]]);  // called at once (Svelte store contract)
  const offB = q.subscribe((s) => b.push(s.rows.map((r) => r.v)));
  expect(b).toEqual([[10]]);
  const snapshot = q.getSnapshot();
  expect(q.getSnapshot()).toBe(snapshot);  // stable until it changes
  await db.exec("insert into t values (3, 'a', 30)");
  expect(q.getSnapshot()).not.toBe(snapshot);
  expect(a.at(-1)!.rows).toEqual([{ id: 1, v: 10 }, { id: 3, v: 30 }]);
  expect(a.at(-1)!.result!.added).toEqual([[3, 30]]);
  expect(b.at(-1)).toEqual([10, 30]);
  offA();
  await db.exec("insert into t values (4, 'a', 40)");
  expect(b.at(-1)).toEqual([10, 30, 40]);
  expect(a).toHaveLength(2);
  offB();
  await db.exec("insert into t values (5, 'a', 50)");
  expect(b.at(-1)).toEqual([10, 30, 40]);
  // Subscribing again starts it again, from the current result.
  const off = q.subscribe(() => {});
  expect(q.getSnapshot().rows.map((r) => r.id)).toEqual([1, 3, 4, 5]);
  off();
});

it('db.live takes named parameters too', async () => {
  const got: unknown[][][] = [];
  const stop = db.live('select id from t where v > $min order by id', { min: 15 }, (r) => got.push(r.rows));
  expect(got).toEqual([[[2]]]);
  stop();
});

it('a query that cannot run is an error in the state, not a throw', () => {
  const q = db.liveQuery('select * from missing');
  const states: LiveState[] = [];
  const off = q.subscribe((s) => states.push(s));
  expect(states.at(-1)!.error?.message).toMatch(/missing/);
  expect(states.at(-1)!.rows).toEqual([]);
  off();
});

it('on a persistent database it starts once its table is loaded', async () => {
  const again = await reopened('create table k (id integer primary key); insert into k values (1), (2)');
  const q = again.liveQuery<{ n: number }>('select count(*) as n from k');
  const done = new Promise<LiveState<{ n: number }>>((resolve) => {
    q.subscribe((s) => { if (s.result) resolve(s); });
  });
  expect((await done).rows).toEqual([{ n: 2 }]);
  await again.close();
});
