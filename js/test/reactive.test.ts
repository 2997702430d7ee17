// Change scopes, watch and the event channels through the JS API (api-and-watch.md §4–8).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Database, bindParameters, describesEverything, deserializeChangeScope, intersectScopes, isEmpty, serializeChangeScope,
  unionScopes, type ChangeScope, type WatchEvent,
} from 'opticdb';

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

  // The rest of the statement shapes of api-and-watch.md §4's table, as exact wire JSON.
  const wire = (sql: string) => serializeChangeScope(db.prepare(sql).getChangeScope());
  const fullOn = (table: string, columns: string[] | 'all') =>
    ({ table: { schema: 'main', table }, columns, scope: { kind: 'full' } });

  it('a grouped read is a full scope on the columns it reads', () => {
    expect(wire('select g, count(*) from t group by g')).toEqual(
      { watches: [fullOn('t', ['g'])], nonDeterministicSources: [], unboundParameters: [] });
  });

  it('a materialized view read is a full watch on its source table', async () => {
    await db.exec('create materialized view mv as select id, v from t');
    expect(wire('select v from mv where id = 1')).toEqual(
      { watches: [fullOn('t', 'all')], nonDeterministicSources: [], unboundParameters: [] });
  });

  it('DML watches nothing unless it returns rows, and lists its parameters', () => {
    expect(wire('update t set v = ? where id = ?')).toEqual(
      { watches: [], nonDeterministicSources: [], unboundParameters: [1, 2] });
    expect(wire("update t set v = 'x' where id = 1 returning v")).toEqual(
      { watches: [fullOn('t', 'all')], nonDeterministicSources: [], unboundParameters: [] });
  });

  it('a key compared with a subquery degrades both tables to full', async () => {
    await db.exec('create table u (x integer primary key)');
    expect(wire('select v from t where id in (select x from u)')).toEqual({
      watches: [fullOn('t', ['id', 'v']), fullOn('u', ['x'])], nonDeterministicSources: [], unboundParameters: [],
    });
  });

  it('serialize/deserialize round-trip, bigints and blobs included', () => {
    const scope = db.prepare('select v from t where id = ?').getChangeScope([2n ** 70n]);
    const wire = JSON.parse(JSON.stringify(serializeChangeScope(scope)));
    expect(wire.watches[0].scope.values).toEqual([[{ v: { $bigint: (2n ** 70n).toString() } }]]);
    expect(deserializeChangeScope(wire)).toEqual(scope);
  });
});

describe('scope helpers', () => {
  const scopeOf = (sql: string, params?: unknown[]) => db.prepare(sql).getChangeScope(params as any);

  it('bindParameters fills placeholders by position or by name, as getChangeScope(params) does', () => {
    expect(bindParameters(scopeOf('select v from t where id = ?'), [7])).toEqual(scopeOf('select v from t where id = ?', [7]));
    const named = scopeOf('select v from t where id = :id');
    expect(named.unboundParameters).toEqual(['id']);
    const expected = { kind: 'rows', key: ['id'], values: [[7]] };
    expect(bindParameters(named, { id: 7 }).watches[0].scope).toEqual(expected);
    expect(bindParameters(named, { ':id': 7 }).watches[0].scope).toEqual(expected);
    expect(bindParameters(named, { ':id': 7 }).unboundParameters).toEqual([]);
  });

  it('unionScopes merges same-key rows and widens to full; intersectScopes narrows', () => {
    const one = scopeOf('select v from t where id = ?', [1]);
    const two = scopeOf('select v from t where id = ?', [2]);
    const all = scopeOf('select * from t');
    expect(unionScopes(one, two).watches.map((w) => w.scope)).toEqual([{ kind: 'rows', key: ['id'], values: [[1], [2]] }]);
    expect(unionScopes(one, all).watches.map((w) => w.scope)).toEqual([{ kind: 'full' }]);
    expect(intersectScopes(all, two).watches.map((w) => w.scope)).toEqual([{ kind: 'rows', key: ['id'], values: [[2]] }]);
    expect(intersectScopes(one, two).watches).toEqual([]);
  });

  it('isEmpty and describesEverything', () => {
    expect(isEmpty(scopeOf("delete from t where id = 3"))).toBe(true);
    expect(isEmpty(scopeOf('select * from t'))).toBe(false);
    expect(describesEverything(scopeOf('select * from t'))).toBe(true);
    expect(describesEverything(scopeOf('select v from t where id = 1'))).toBe(false);
  });

  it('a malformed scope is a clear error', () => {
    const bad = { watches: [{ table: { schema: 'main' }, columns: 'all', scope: { kind: 'full' } }] };
    expect(() => isEmpty(bad as unknown as ChangeScope)).toThrow(/watch table name/);
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

describe('watch scopes and lifetimes', () => {
  it('a groups watch reports the touched group keys, old and new', async () => {
    const events: WatchEvent[] = [];
    const groups: ChangeScope = {
      watches: [{ table: { schema: 'main', table: 't' }, columns: 'all', scope: { kind: 'groups', groupBy: ['g'] } }],
      nonDeterministicSources: [], unboundParameters: [],
    };
    db.watch(groups, (e) => { events.push(e); });
    await db.exec("update t set v = 'x' where g = 1");
    await db.exec('update t set g = 2 where id = 1');
    expect(events.map((e) => e.matched[0].hits)).toEqual([[[1]], [[1], [2]]]);
  });

  it('a savepoint rolled back takes its changes out of the commit', async () => {
    const events: WatchEvent[] = [];
    db.watch(db.prepare('select v from t where id in (1, 2)').getChangeScope(), (e) => { events.push(e); });
    await db.exec(`begin; update t set v = 'keep' where id = 1; savepoint s; update t set v = 'drop' where id = 2;
                   rollback to s; commit`);
    expect(events).toHaveLength(1);
    expect(events[0].matched[0].hits).toEqual([[1]]);
  });

  it("notifyExternalChange fires the table's watches coarsely, rows watches with all their tuples", async () => {
    const events: WatchEvent[] = [];
    db.watch(db.prepare('select v from t where id in (?, ?)').getChangeScope([2, 3]), (e) => { events.push(e); });
    await db.notifyExternalChange('t');
    await db.notifyExternalChange('nothing_watches_this');
    expect(events).toHaveLength(1);
    expect(events[0].matched[0].hits).toEqual([[2], [3]]);
  });

  it('altering or dropping a watched table disposes the subscription', async () => {
    const handler = vi.fn();
    db.watch(db.prepare('select * from t').getChangeScope(), handler);
    await db.exec('alter table t add column w integer null');
    await db.exec("insert into t values (8, 'h', 1, 0)");
    expect(handler).not.toHaveBeenCalled();
    await db.exec('create table d (id integer primary key)');
    db.watch(db.prepare('select * from d').getChangeScope(), handler);
    await db.exec('drop table d; create table d (id integer primary key); insert into d values (1)');
    expect(handler).not.toHaveBeenCalled();
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

  it('an update that moves the primary key is a delete then an insert', async () => {
    const events: any[] = [];
    db.onDataChange((e) => { events.push(e); });
    await db.exec('update t set id = 10 where id = 1');
    expect(events.map((e) => [e.type, e.key, e.changedColumns])).toEqual([['delete', [1], undefined], ['insert', [10], undefined]]);
  });

  it('schema events carry the canonical DDL; a savepoint rolled back retracts its events', async () => {
    const events: any[] = [];
    db.onSchemaChange((e) => { events.push(e); });
    await db.exec(`begin; create table kept (id integer primary key); savepoint s;
                   create table dropped (id integer primary key); rollback to s; commit`);
    expect(events.map((e) => [e.type, e.objectType, e.objectName])).toEqual([['create', 'table', 'kept']]);
    expect(events[0].ddl).toMatch(/^create table .*kept/i);
  });

  it('onTransactionCommit counts the changes of each commit', async () => {
    const events: any[] = [];
    db.onTransactionCommit((e) => { events.push(e); });
    await db.exec("insert into t values (5, 'e', 1), (6, 'f', 1)");
    expect(events).toEqual([expect.objectContaining({ dataChanges: 2, schemaChanges: 0, remote: false })]);
  });
});
