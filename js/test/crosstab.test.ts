// Across tabs (issue 6): two Database instances on one IndexedDB database (fake-indexeddb) in one
// process, as two tabs of one origin. Node's global BroadcastChannel connects them as the
// browser's does. A commit stored by one reaches the other's memory, watches, live queries and
// events (remote: true); DDL refreshes the other's catalog; a commit arriving during an explicit
// transaction waits for it to end.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { Database, type DataChangeEvent, type LiveResult, type SchemaChangeEvent } from 'opticdb';

let counter = 0;
const freshName = () => `xtab-${process.pid}-${counter++}`;
const open: Database[] = [];
async function openTab(name: string): Promise<Database> {
  const db = await Database.open({ storage: 'indexeddb', name });
  open.push(db);
  return db;
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

// Resolves when cond() holds (the broadcast is a later task than the write's completion).
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
// A few turns of the event loop: long enough for a broadcast to arrive if one were sent.
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('across tabs', () => {
  it("a commit in one tab reaches the other's events, watches and live queries, marked remote", async () => {
    const name = freshName();
    const a = await openTab(name);
    await a.exec("create table t (id integer primary key, v text); insert into t values (1, 'a'), (2, 'b')");
    const b = await openTab(name);
    const data: DataChangeEvent[] = [];
    const commits: { remote: boolean; dataChanges: number }[] = [];
    const watched: string[] = [];
    const live: LiveResult[] = [];
    b.onDataChange((e) => data.push(e));
    b.onTransactionCommit((e) => commits.push({ remote: e.remote, dataChanges: e.dataChanges }));
    b.watch(b.prepare('select v from t where id = 1').getChangeScope(), (e) => watched.push(e.txnId));
    b.live('select id, v from t order by id', [], (r) => live.push(r));

    await a.exec("begin; update t set v = 'z' where id = 1; insert into t values (3, 'c'); delete from t where id = 2; commit");
    await until(() => commits.length === 1, 'the remote commit');

    expect(data).toEqual([
      { type: 'update', moduleName: 'store', schemaName: 'main', tableName: 't', key: [1], oldRow: [1, 'a'], newRow: [1, 'z'], remote: true },
      { type: 'delete', moduleName: 'store', schemaName: 'main', tableName: 't', key: [2], oldRow: [2, 'b'], remote: true },
      { type: 'insert', moduleName: 'store', schemaName: 'main', tableName: 't', key: [3], newRow: [3, 'c'], remote: true },
    ]);  // in key order: the stored batch keeps each row's final state, not the other tab's write order
    expect(commits).toEqual([{ remote: true, dataChanges: 3 }]);
    expect(watched).toHaveLength(1);
    expect(live.map((r) => r.rows)).toEqual([[[1, 'a'], [2, 'b']], [[1, 'z'], [3, 'c']]]);
    expect(live[1]).toMatchObject({ added: [[3, 'c']], removed: [[2, 'b']], changed: [{ before: [1, 'a'], after: [1, 'z'] }] });
    expect(await b.get('select group_concat(v) as vs from (select v from t order by id)')).toEqual({ vs: 'z,c' });

    // The other way round: a's own events stay local, b's commit reaches a as remote.
    const aData: DataChangeEvent[] = [];
    a.onDataChange((e) => aData.push(e));
    await a.exec("insert into t values (4, 'd')");
    await b.exec("insert into t values (5, 'e')");
    await until(() => aData.length === 2, "b's commit in a");
    expect(aData.map((e) => [e.key, e.remote])).toEqual([[[4], false], [[5], true]]);
    await until(() => data.length === 5, "a's second commit in b");
    // (b's own commit may come first: the broadcast is a later task than a's exec settling)
    expect(data.slice(3).map((e) => [e.key, e.remote]).sort()).toEqual([[[4], true], [[5], false]]);
    expect(await a.get('select count(*) as n from t')).toEqual({ n: 4 });
    expect(await b.get('select count(*) as n from t')).toEqual({ n: 4 });
  });

  it("DDL in one tab refreshes the other's catalog, with remote schema events", async () => {
    const name = freshName();
    const a = await openTab(name);
    await a.exec("create table t (id integer primary key, v text); insert into t values (1, 'a')");
    const b = await openTab(name);
    const schema: SchemaChangeEvent[] = [];
    b.onSchemaChange((e) => schema.push(e));
    const live: LiveResult[] = [];
    b.live('select * from t', [], (r) => live.push(r));

    await a.exec('alter table t add column w integer default 9');
    await a.exec('create table u (k integer primary key); insert into u values (7)');
    await until(() => schema.length === 2, 'the remote schema changes');

    expect(schema.map((e) => [e.type, e.objectType, e.objectName, e.remote])).toEqual([
      ['alter', 'table', 't', true],
      ['create', 'table', 'u', true],
    ]);
    expect(live.at(-1)!.columns).toEqual(['id', 'v', 'w']);
    expect(live.at(-1)!.rows).toEqual([[1, 'a', 9]]);
    expect(await b.get('select k from u')).toEqual({ k: 7 });
    // b writes to the table it learnt about; a and a fresh tab see it.
    await b.exec('insert into u values (8)');
    const c = await openTab(name);
    expect(await c.get('select group_concat(k) as ks from (select k from u order by k)')).toEqual({ ks: '7,8' });
  });

  it("another tab's write waits for an explicit transaction, then runs on its commit and arrives after it", async () => {
    const name = freshName();
    const a = await openTab(name);
    await a.exec('create table t (id integer primary key)');
    const b = await openTab(name);
    const data: DataChangeEvent[] = [];
    b.onDataChange((e) => data.push(e));

    await b.beginTransaction();
    await b.exec('insert into t values (10)');
    let written = false;
    const write = a.exec('insert into t select max(id) + 1 from t').then(() => { written = true; });
    await settle();
    expect(written).toBe(false);  // b holds the write lock
    expect(data).toEqual([]);  // events come at commit
    expect(await b.get('select count(*) as n from t')).toEqual({ n: 1 });  // b reads its transaction
    await b.commit();
    await write;
    await until(() => data.length === 2, "a's commit in b");
    expect(data.map((e) => [e.key, e.remote])).toEqual([[[10], false], [[11], true]]);  // a saw b's row
    expect(await b.get('select group_concat(id) as ids from (select id from t order by id)')).toEqual({ ids: '10,11' });
  });

  it('commits of several tabs interleave in storage order, and a reopened tab sees them all', async () => {
    const name = freshName();
    const a = await openTab(name);
    await a.exec('create table t (id integer primary key, who text)');
    const b = await openTab(name);
    const c = await openTab(name);
    await Promise.all([
      a.exec("insert into t values (1, 'a')"),
      b.exec("insert into t values (2, 'b')"),
      c.exec("insert into t values (3, 'c')"),
      a.exec("insert into t values (4, 'a')"),
    ]);
    const all = async (db: Database) => (await db.get('select group_concat(id) as ids from (select id from t order by id)'))!.ids;
    const count = (db: Database) => {
      const st = db.prepare('select count(*) from t');
      try {
        return st.allRows()[0][0];
      } finally {
        st.finalize();
      }
    };
    for (const db of [a, b, c]) await until(() => count(db) === 4, 'every commit');
    expect([await all(a), await all(b), await all(c)]).toEqual(['1,2,3,4', '1,2,3,4', '1,2,3,4']);
    const d = await openTab(name);
    expect(await all(d)).toEqual('1,2,3,4');
  });
});
