// Live queries through the JS API (issue 6): the first result, then one delivery per commit that
// changes the answer, with the difference keyed by the result's unique key; nothing for commits
// that miss the query's scope, leave the answer as it was, or roll back.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Database, type LiveResult } from 'opticdb';

let db: Database;
let results: LiveResult[];
const collect = (r: LiveResult) => { results.push(r); };

beforeEach(async () => {
  db = new Database();
  results = [];
  await db.exec(`create table t (id integer primary key, v text, g integer);
                 create table other (id integer primary key);
                 insert into t values (1, 'a', 1), (2, 'b', 1), (3, 'c', 2)`);
});
afterEach(async () => {
  await db.close();
});

describe('live', () => {
  it('delivers the first result at once, keyed by the inferred unique key', () => {
    db.live('select id, v from t where g = ? order by id', [1], collect);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      initial: true, txnId: '', columns: ['id', 'v'], rows: [[1, 'a'], [2, 'b']], keyColumns: [0],
      added: [[1, 'a'], [2, 'b']], removed: [], changed: [],
    });
  });

  it('a changed row is reported as changed, an insert and a delete in one transaction as one delivery', async () => {
    db.live('select id, v from t where g = 1 order by id', [], collect);
    await db.exec("update t set v = 'bb' where id = 2");
    expect(results).toHaveLength(2);
    expect(results[1]).toMatchObject({
      initial: false, rows: [[1, 'a'], [2, 'bb']], added: [], removed: [],
      changed: [{ before: [2, 'b'], after: [2, 'bb'] }],
    });
    expect(results[1].txnId).toMatch(/^txn:\d+$/);

    await db.beginTransaction();
    await db.exec("insert into t values (4, 'd', 1)");
    await db.exec('delete from t where id = 1');
    expect(results).toHaveLength(2);  // nothing before the commit
    await db.commit();
    expect(results).toHaveLength(3);
    expect(results[2]).toMatchObject({ rows: [[2, 'bb'], [4, 'd']], added: [[4, 'd']], removed: [[1, 'a']], changed: [] });
  });

  it('stays silent for commits outside its scope, commits that keep its answer, and rollbacks', async () => {
    db.live('select v from t where id = ?', [3], collect);
    await db.exec('insert into other values (1)');                 // another table
    await db.exec("update t set v = 'z' where id = 1");             // another row
    await db.exec('update t set g = 9 where id = 3');               // its row, not its columns' answer
    await db.exec("begin; update t set v = 'gone' where id = 3; rollback");
    expect(results).toHaveLength(1);
    await db.exec("update t set v = 'cc' where id = 3");
    expect(results).toHaveLength(2);
    // id is not an output column: no key, so the change is a removal and an addition.
    expect(results[1]).toMatchObject({ keyColumns: [], rows: [['cc']], added: [['cc']], removed: [['c']], changed: [] });
  });

  it('delivers results in commit order, each reflecting its whole commit (never torn)', async () => {
    db.live('select sum(g) as total, count(*) as n from t', [], collect);
    await db.exec('begin; update t set g = g + 10 where id = 1; update t set g = g + 10 where id = 2; commit');
    await db.exec("insert into t values (5, 'e', 100)");
    expect(results.map((r) => r.rows)).toEqual([[[4, 3]], [[24, 3]], [[124, 4]]]);
    const txns = results.slice(1).map((r) => Number(r.txnId.slice(4)));
    expect(txns[1]).toBeGreaterThan(txns[0]);
  });

  it('follows writes through a view and a materialized view over its table', async () => {
    await db.exec(`create view ones as select id, v from t where g = 1;
                   create materialized view per_g as select g, count(*) as n from t group by g`);
    db.live('select g, n from per_g order by g', [], collect);
    await db.exec("insert into ones (id, v) values (7, 'via view')");
    expect(results).toHaveLength(2);
    expect(results[1].rows).toEqual([[1, 3], [2, 1]]);
    expect(results[1].changed).toEqual([{ before: [1, 2], after: [1, 3] }]);
  });

  it('a throwing onResult never breaks the commit; unsubscribing stops delivery', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const stopBad = db.live('select count(*) as n from t', [], (r) => {
      if (!r.initial) throw new Error('UI bug');
    });
    const stop = db.live('select count(*) as n from t', [], collect);
    await db.exec("insert into t values (6, 'f', 1)");
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 4 });
    expect(results.map((r) => r.rows)).toEqual([[[3]], [[4]]]);
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    stop();
    stopBad();
    await db.exec('delete from t where id = 6');
    expect(results).toHaveLength(2);
  });

  it('refuses a statement that does not prepare or leaves a parameter unbound', () => {
    expect(() => db.live('select * from nope', [], collect)).toThrow(/nope/);
    expect(() => db.live('select v from t where id = ?', [], collect)).toThrow();
    expect(results).toEqual([]);
  });
});
