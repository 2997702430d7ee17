// The JS API of the opticdb package on the real wasm build: every Database and Statement method,
// parameters of every kind, value round-trips, errors, transactions, UDFs and handle lifetime.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConstraintError, Database, MisuseError, OpticError, ParseError, type SqlValue } from 'opticdb';
import { nativeModule } from '../dist/native.js';

let db: Database;
beforeEach(() => {
  db = new Database();
});
afterEach(async () => {
  await db.close();
});

async function rows(sql: string, params?: any): Promise<Record<string, SqlValue>[]> {
  const out = [];
  for await (const r of db.eval(sql, params)) out.push(r);
  return out;
}

describe('values cross the boundary as JS values', () => {
  const cases: [string, SqlValue][] = [
    ['null', null],
    ['small integer', 42],
    ['negative integer', -7],
    ['largest safe integer', Number.MAX_SAFE_INTEGER],
    ['integer beyond 2^53', 9007199254740993n],
    ['negative beyond 2^53', -9007199254740993n],
    ['beyond int64', 123456789012345678901234567890n],
    ['real', 3.25],
    ['text', 'hello'],
    ['unicode text', 'héllo wörld ✓ 𝄞'],
    ['long text', 'x'.repeat(10_000)],
    ['empty text', ''],
    ['blob', new Uint8Array([0, 1, 2, 255])],
    ['empty blob', new Uint8Array([])],
    ['true', true],
    ['false', false],
  ];
  for (const [name, v] of cases) {
    it(`round-trips ${name} through a parameter and a column`, async () => {
      const st = db.prepare('select ? as v');
      const r = await st.get([v]);
      expect(r).toEqual({ v });
      await st.finalize();
    });
  }

  it('normalises a small bigint parameter to a number', async () => {
    expect(await db.get('select ? as v', [5n])).toEqual({ v: 5 });
  });

  it('stores and returns JSON as parsed objects', async () => {
    await db.exec('create table j (id integer primary key, doc json)');
    await db.exec('insert into j values (1, ?)', [{ a: [1, 2, { b: null }], s: 'x' }]);
    await db.exec('insert into j values (2, ?)', [[1, 'two']]);
    await db.exec(`insert into j values (3, '"scalar"')`);
    expect(await rows('select doc from j order by id')).toEqual([
      { doc: { a: [1, 2, { b: null }], s: 'x' } },
      { doc: [1, 'two'] },
      { doc: 'scalar' },
    ]);
  });

  it('keeps integer and real columns apart in the engine', async () => {
    expect(await db.get('select typeof(?) as a, typeof(?) as b', [1, 1.5])).toEqual({ a: 'integer', b: 'real' });
  });
});

describe('parameters', () => {
  beforeEach(async () => {
    await db.exec('create table t (id integer primary key, name text)');
  });

  it('binds positional parameters from an array', async () => {
    await db.exec('insert into t values (?, ?)', [1, 'a']);
    expect(await rows('select * from t')).toEqual([{ id: 1, name: 'a' }]);
  });

  it('binds named parameters with and without sigils', async () => {
    const st = db.prepare('insert into t values (:id, $name)');
    await st.run({ id: 1, name: 'a' });
    await st.run({ ':id': 2, $name: 'b' });
    await st.finalize();
    expect(await rows('select * from t order by id')).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
  });

  it('binds numeric keys to positions', async () => {
    await db.exec('insert into t values (:1, :2)', { '1': 7, '2': 'seven' });
    expect(await db.get('select name from t where id = 7')).toEqual({ name: 'seven' });
  });

  it('bind and bindAll keep bindings across runs until cleared', async () => {
    const st = db.prepare('select :a as a, :b as b');
    st.bind(':a', 1).bind('b', 'x');
    expect(await st.get()).toEqual({ a: 1, b: 'x' });
    st.bindAll({ a: 2 });
    expect(await st.get()).toEqual({ a: 2, b: 'x' });
    st.bind(1, 3);
    expect(await st.get()).toEqual({ a: 3, b: 'x' });
    st.clearBindings();
    expect(await st.get()).toEqual({ a: null, b: null });
  });

  it('reports parameters in slot order', () => {
    expect(db.prepare('select ?, :name, $other').getParameters()).toEqual([null, 'name', 'other']);
  });

  it('refuses an unknown name and a bad position', () => {
    const st = db.prepare('select :a');
    expect(() => st.bind(':nope', 1)).toThrow(MisuseError);
    expect(() => st.bind(0, 1)).toThrow(MisuseError);
  });
});

describe('statements', () => {
  beforeEach(async () => {
    await db.exec('create table t (id integer primary key, name text); insert into t values (1, \'a\'), (2, \'b\'), (3, \'c\')');
  });

  it('get returns the first row or undefined', async () => {
    const st = db.prepare('select name from t where id > ? order by id');
    expect(await st.get([1])).toEqual({ name: 'b' });
    expect(await st.get([9])).toBeUndefined();
  });

  it('all yields row objects, iterateRows arrays, allRows every row at once', async () => {
    const st = db.prepare('select id, name from t order by id');
    const objs = [];
    for await (const r of st.all()) objs.push(r);
    expect(objs).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }]);
    const arrays = [];
    for await (const r of st.iterateRows()) arrays.push(r);
    expect(arrays).toEqual([[1, 'a'], [2, 'b'], [3, 'c']]);
    expect(st.allRows()).toEqual(arrays);
  });

  it('iterators also iterate synchronously, and end the execution when left early', async () => {
    const st = db.prepare('select id from t order by id');
    const ids = [];
    for (const [id] of st.iterateRows()) ids.push(id);
    expect(ids).toEqual([1, 2, 3]);
    for (const r of st.all()) {
      expect(r).toEqual({ id: 1 });
      break;
    }
    expect(st.iterateRows().toArray()).toEqual([[1], [2], [3]]);
    expect([...db.eval('select count(*) as n from t')]).toEqual([{ n: 3 }]);
  });

  it('suffixes repeated column names in row objects', async () => {
    expect(await db.get('select 1 as a, 2 as a, 3 as a')).toEqual({ a: 1, 'a:1': 2, 'a:2': 3 });
  });

  it('streams large results in batches and can stop early', async () => {
    const st = db.prepare('select value from generate_series(1, 100000)');
    let n = 0;
    let sum = 0;
    for await (const [v] of st.iterateRows()) {
      n++;
      sum += v as number;
    }
    expect(n).toBe(100000);
    expect(sum).toBe(100000 * 100001 / 2);
    let first = 0;
    for await (const [v] of st.iterateRows()) {
      first = v as number;
      break;
    }
    expect(first).toBe(1);
    expect(await st.get()).toEqual({ value: 1 });  // usable again after the early exit
  });

  it('column metadata and isQuery', () => {
    const q = db.prepare('select id, name as n from t');
    expect(q.getColumnNames()).toEqual(['id', 'n']);
    expect(q.getColumnName(1)).toBe('n');
    expect(() => q.getColumnName(2)).toThrow(MisuseError);
    expect(q.isQuery()).toBe(true);
    expect(db.prepare('delete from t').isQuery()).toBe(false);
    expect(q.sql).toBe('select id, name as n from t');
  });

  it('a statement is busy while it is being iterated', async () => {
    const st = db.prepare('select id from t');
    const it = st.iterateRows();
    await it.next();
    await expect(st.run()).rejects.toThrow(/Statement busy/);
    await it.return(undefined);
    await st.run();
  });

  it('a finalized statement refuses every call', async () => {
    const st = db.prepare('select 1');
    await st.finalize();
    await st.finalize();  // idempotent
    await expect(st.get()).rejects.toThrow(MisuseError);
    expect(() => st.bind(1, 1)).toThrow(/finalized/);
  });

  it('exec runs every statement; a syntax error anywhere runs nothing', async () => {
    await expect(db.exec("insert into t values (4, 'd'); selec 1")).rejects.toThrow(ParseError);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 3 });
  });

  it('eval yields the rows of the last statement only', async () => {
    expect(await rows("insert into t values (4, 'd'); select count(*) as n from t")).toEqual([{ n: 4 }]);
  });

  it('RETURNING rows come back from DML', async () => {
    expect(await rows("insert into t values (5, 'e') returning id, upper(name) as u")).toEqual([{ id: 5, u: 'E' }]);
  });
});

describe('errors', () => {
  it('a syntax error is a ParseError with code, line and column', async () => {
    const e = await db.exec('select 1;\nselect * fro t').catch((x) => x);
    expect(e).toBeInstanceOf(ParseError);
    expect(e).toBeInstanceOf(OpticError);
    expect(e.code).toBe('SYNTAX');
    expect(e.line).toBe(2);
    expect(e.column).toBe(10);
  });

  it('a constraint failure is a ConstraintError and changes nothing', async () => {
    await db.exec('create table t (id integer primary key, v integer check (v > 0))');
    await db.exec('insert into t values (1, 1)');
    const e = await db.exec('insert into t values (2, 5), (3, -1)').catch((x) => x);
    expect(e).toBeInstanceOf(ConstraintError);
    expect(e.code).toBe('CONSTRAINT');
    expect(e.message).toMatch(/CHECK constraint failed/);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 1 });
  });

  it('the database stays usable after any failed statement', async () => {
    for (const bad of ['select * from missing', 'select 1 +', 'insert into nope values (1)', 'drop table nope']) {
      await expect(db.exec(bad)).rejects.toBeInstanceOf(OpticError);
    }
    expect(await db.get('select 1 + 1 as v')).toEqual({ v: 2 });
  });

  it('pathologically deep nesting is a ParseError, not a stack overflow', async () => {
    const deep = 'select ' + '('.repeat(100_000) + '1' + ')'.repeat(100_000);
    await expect(db.exec(deep)).rejects.toBeInstanceOf(ParseError);
    expect(await db.get('select 1 as v')).toEqual({ v: 1 });
  });

  it('prepare of a bad statement throws; preparing two statements is a misuse', () => {
    expect(() => db.prepare('select from where')).toThrow(ParseError);
    expect(() => db.prepare('select 1; select 2')).toThrow(MisuseError);
  });

  it('a closed database refuses calls', async () => {
    const d = new Database();
    const st = d.prepare('select 1');
    await d.close();
    await d.close();  // idempotent
    await expect(d.exec('select 1')).rejects.toThrow(/closed/);
    await expect(st.get()).rejects.toThrow(/finalized/);  // close finalized it
  });
});

describe('transactions', () => {
  beforeEach(async () => {
    await db.exec('create table t (id integer primary key)');
  });

  it('begin/commit/rollback through the API and getAutocommit', async () => {
    expect(db.getAutocommit()).toBe(true);
    await db.beginTransaction();
    expect(db.getAutocommit()).toBe(false);
    await db.exec('insert into t values (1)');
    await db.rollback();
    expect(db.getAutocommit()).toBe(true);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 0 });
    await db.beginTransaction();
    await db.exec('insert into t values (2)');
    await db.commit();
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 1 });
  });

  it('savepoints roll back their layer only', async () => {
    await db.beginTransaction();
    await db.exec('insert into t values (1); savepoint s1; insert into t values (2)');
    await db.exec('rollback to s1');
    await db.exec('insert into t values (3); release s1');
    await db.commit();
    expect(await rows('select id from t order by id')).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('an autocommit failure leaves earlier statements committed', async () => {
    await expect(db.exec('insert into t values (1); insert into t values (1)')).rejects.toThrow(ConstraintError);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 1 });
  });
});

describe('user-defined functions', () => {
  it('scalar functions get and return SQL values', async () => {
    db.createScalarFunction('js_concat', { numArgs: -1 }, (...args) => args.map(String).join('|'));
    db.createScalarFunction('js_big', { numArgs: 1 }, (x) => BigInt(x as number) * 10n ** 20n);
    db.createScalarFunction('js_obj', { numArgs: 0 }, () => ({ ok: true }));
    db.createScalarFunction('js_bytes', { numArgs: 1 }, (b) => (b as Uint8Array).length);
    expect(await db.get("select js_concat(1, 'a', null) as v")).toEqual({ v: '1|a|null' });
    expect(await db.get('select js_big(3) as v')).toEqual({ v: 300000000000000000000n });
    expect(await db.get('select js_bytes(x\'0102\') as v')).toEqual({ v: 2 });
    expect(await db.get("select json_extract(js_obj(), '$.ok') as v")).toEqual({ v: true });
  });

  it('an exception in a UDF fails the statement with its message', async () => {
    db.createScalarFunction('boom', { numArgs: 0 }, () => {
      throw new Error('kaboom');
    });
    await expect(db.get('select boom()')).rejects.toThrow(/kaboom/);
    expect(await db.get('select 1 as v')).toEqual({ v: 1 });
  });

  it('aggregate functions accumulate per group', async () => {
    db.createAggregateFunction('js_sum', { numArgs: 1, initialValue: 0 }, (acc, x) => acc + (x as number),
                               (acc) => acc);
    await db.exec('create table t (g text, v integer, primary key (g, v))');
    await db.exec("insert into t values ('a', 1), ('a', 2), ('b', 5)");
    expect(await rows('select g, js_sum(v) as s from t group by g order by g')).toEqual([
      { g: 'a', s: 3 },
      { g: 'b', s: 5 },
    ]);
  });
});

describe('options', () => {
  it('setOption/getOption map onto pragmas', () => {
    db.setOption('default_vtab_module', 'memory');
    expect(db.getOption('default_vtab_module')).toBe('memory');
    expect(() => db.setOption('bad name', 1)).toThrow(MisuseError);
  });
});

describe('handle lifetime', () => {
  it('100k prepare/finalize cycles do not grow wasm memory', async () => {
    const memory = () => nativeModule().HEAPU8.length;
    for (let i = 0; i < 2000; i++) await db.prepare('select ? + 1').finalize();
    const before = memory();
    for (let i = 0; i < 100_000; i++) {
      const st = db.prepare('select ? + 1');
      st.bind(1, i);
      st.dispose();
    }
    expect(memory()).toBe(before);
  });

  it('closing a database frees the statements the user never finalized', async () => {
    const round = async () => {
      const d = new Database();
      for (let i = 0; i < 20_000; i++) d.prepare('select 1');  // never finalized by the user
      await d.close();
    };
    await round();
    const after = nativeModule().HEAPU8.length;
    for (let i = 0; i < 5; i++) await round();  // each round reuses what the previous close freed
    expect(nativeModule().HEAPU8.length).toBe(after);
  });
});
