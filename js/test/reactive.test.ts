// Change scopes, watch and the event channels through the JS API (api-and-watch.md §4–8).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Database, deserializeChangeScope, serializeChangeScope, type WatchEvent } from 'opticdb';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec(`create table t (id integer primary key, v text, g integer);
                 insert into t values (1, 'a', 1), (2, 'b', 1), (3, 'c', 2)`);
});
afterEach(async () => {
  await db.close();
});

describe('getChangeScope', () => {
  it('a key lookup is a rows scope on the key, with the parameter as a placeholder', () => {
    const scope = db.prepare('select v from t where id = ?').getChangeScope();
    expect(scope.unboundParameters).toEqual([1]);
    expect(scope.watches).toHaveLength(1);
    const w = scope.watches[0];
    expect(w.table).toEqual({ schema: 'main', table: 't' });
    expect(w.columns).toEqual(new Set(['id', 'v']));
    expect(w.scope).toEqual({
      kind: 'rows', key: ['id'],
      values: [[{ kind: 'param', index: 1, type: { typeName: 'INTEGER', nullable: false } }]],
    });
  });

  it('params bind the placeholder', () => {
    const scope = db.prepare('select v from t where id = ?').getChangeScope([7]);
    expect(scope.unboundParameters).toEqual([]);
    expect(scope.watches[0].scope).toEqual({ kind: 'rows', key: ['id'], values: [[7]] });
  });

  it('a full scan is a full scope on all columns', () => {
    const scope = db.prepare('select * from t').getChangeScope();
    expect(scope.watches.map((w) => [w.columns, w.scope])).toEqual([['all', { kind: 'full' }]]);
  });

  it('a view read reports the base table', async () => {
    await db.exec('create view vv as select id, v from t where g = 1');
    const scope = db.prepare('select * from vv').getChangeScope();
    expect(scope.watches.map((w) => w.table.table)).toEqual(['t']);
  });

  it('time and random builtins are non-deterministic sources without watches', () => {
    const scope = db.prepare("select datetime('now'), random()").getChangeScope();
    expect(scope.watches).toEqual([]);
    expect(scope.nonDeterministicSources).toEqual([{ kind: 'random' }, { kind: 'time' }]);
  });

  it('serialize/deserialize round-trip, bigints and blobs included', () => {
    const scope = db.prepare('select v from t where id = ?').getChangeScope([2n ** 70n]);
    const wire = JSON.parse(JSON.stringify(serializeChangeScope(scope)));
    expect(wire.watches[0].scope.values).toEqual([[{ v: { $bigint: (2n ** 70n).toString() } }]]);
    expect(deserializeChangeScope(wire)).toEqual(scope);
  });
});

describe('watch', () => {
  it('a row-scoped watch fires for its row only, once per commit, after the commit', async () => {
    const events: WatchEvent[] = [];
    db.watch(db.prepare('select v from t where id = ?').getChangeScope([2]), (e) => { events.push(e); });
    await db.exec("update t set v = 'x' where id = 1");
    expect(events).toEqual([]);
    await db.exec("update t set v = 'y' where id = 2");
    expect(events).toHaveLength(1);
    expect(events[0].matched[0].hits).toEqual([[2]]);
    expect(events[0].txnId).toMatch(/^txn:\d+$/);
  });

  it('coalesces a transaction into one event and fires nothing on rollback', async () => {
    const handler = vi.fn();
    db.watch(db.prepare('select * from t').getChangeScope(), handler);
    await db.beginTransaction();
    await db.exec("update t set v = 'p' where id = 1; update t set v = 'q' where id = 2");
    expect(handler).not.toHaveBeenCalled();  // nothing before commit
    await db.commit();
    expect(handler).toHaveBeenCalledTimes(1);
    await db.beginTransaction();
    await db.exec('delete from t');
    await db.rollback();
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('writes through a view and FK cascades reach the base-table watch', async () => {
    await db.exec(`create table child (id integer primary key, tid integer references t(id) on delete cascade);
                   insert into child values (10, 3);
                   create view vv as select id, v from t where g = 2`);
    const child = vi.fn();
    const base = vi.fn();
    db.watch(db.prepare('select * from child').getChangeScope(), child);
    db.watch(db.prepare('select v from t where id = ?').getChangeScope([3]), base);
    await db.exec("update vv set v = 'through' where id = 3");
    expect(base).toHaveBeenCalledTimes(1);
    await db.exec('delete from t where id = 3');
    expect(child).toHaveBeenCalledTimes(1);
    expect(await db.get('select count(*) as n from child')).toEqual({ n: 0 });
  });

  it('a throwing handler never breaks the commit; unsubscribe stops delivery', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const sub = db.watch(db.prepare('select * from t').getChangeScope(), () => {
      throw new Error('handler bug');
    });
    await db.exec("insert into t values (4, 'd', 3)");
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 4 });
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    const after = vi.fn();
    sub.unsubscribe();
    db.watch(db.prepare('select * from t').getChangeScope(), after);
    await db.exec('delete from t where id = 4');
    expect(after).toHaveBeenCalledTimes(1);
    expect(sub.id).toMatch(/^watch:[a-z2-7]{6}:/);
  });

  it('refuses a scope with unbound parameters', () => {
    expect(() => db.watch(db.prepare('select v from t where id = ?').getChangeScope(), () => {})).toThrow();
  });

  it('a handler that writes gets its own commit delivered after the current one', async () => {
    const seen: string[] = [];
    db.onTransactionCommit((e) => { seen.push(e.txnId); });
    let once = true;
    db.watch(db.prepare('select v from t where id = ?').getChangeScope([1]), async () => {
      if (!once) return;
      once = false;
      await db.exec("update t set v = 'from-handler' where id = 2");
    });
    await db.exec("update t set v = 'z' where id = 1");
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toHaveLength(2);
    expect(Number(seen[1].slice(4))).toBeGreaterThan(Number(seen[0].slice(4)));
    expect(await db.get('select v from t where id = 2')).toEqual({ v: 'from-handler' });
  });
});

describe('events', () => {
  it('onDataChange delivers each change after commit, in write order', async () => {
    const events: unknown[] = [];
    const off = db.onDataChange((e) => { events.push(e); });
    await db.exec("update t set v = 'z' where id = 2; insert into t values (9, 'n', 9)");
    expect(events).toEqual([
      { type: 'update', moduleName: 'memory', schemaName: 'main', tableName: 't', key: [2],
        oldRow: [2, 'b', 1], newRow: [2, 'z', 1], changedColumns: ['v'], remote: false },
      { type: 'insert', moduleName: 'memory', schemaName: 'main', tableName: 't', key: [9],
        newRow: [9, 'n', 9], remote: false },
    ]);
    off();
    await db.exec('delete from t where id = 9');
    expect(events).toHaveLength(2);
  });

  it('onSchemaChange reports DDL after commit; a failed DDL reports nothing', async () => {
    const events: any[] = [];
    db.onSchemaChange((e) => { events.push(e); });
    await db.exec('alter table t add column w integer null');
    await expect(db.exec('create table t (x integer primary key)')).rejects.toThrow();
    expect(events).toEqual([expect.objectContaining({
      type: 'alter', objectType: 'column', schemaName: 'main', objectName: 't', columnName: 'w', remote: false,
    })]);
  });

  it('onTransactionCommit counts the changes of each commit', async () => {
    const events: any[] = [];
    db.onTransactionCommit((e) => { events.push(e); });
    await db.exec("insert into t values (5, 'e', 1), (6, 'f', 1)");
    expect(events).toEqual([expect.objectContaining({ dataChanges: 2, schemaChanges: 0, remote: false })]);
  });
});
