// Worker mode's protocol in Node (opticdb/worker): WorkerDatabase on one end of a MessageChannel,
// serve() with the real engine on the other — the same messages a Worker carries, in one thread.
// Results, row batches, statements, transactions (and the callers they hold back), live queries,
// watches and events, errors with their class and fields, and a worker-mode connection beside a
// direct one on one IndexedDB database (fake-indexeddb): each sees the other's commits as remote,
// and their writes serialize through the shared write lock.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConstraintError, Database, MisuseError, OpticError, ParseError, type LiveResult } from 'opticdb';
import { serve, WorkerDatabase } from 'opticdb/worker';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const db of open.splice(0).reverse()) await db.close();
});

// A worker's end (serve) and the page's target, joined by a MessageChannel.
function channel(setup?: (db: Database) => void) {
  const { port1, port2 } = new MessageChannel();
  serve({ endpoint: port1 as never, setup });
  return port2;
}
async function connect(options = {}, setup?: (db: Database) => void): Promise<WorkerDatabase> {
  const db = await WorkerDatabase.open(channel(setup) as never, options);
  open.push(db);
  return db;
}
const tick = () => new Promise((r) => setTimeout(r, 20));
async function until(f: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('statements', () => {
  it('exec, run, get, all and eval answer as Database does', async () => {
    const db = await connect();
    await db.exec('create table t (id integer primary key, v text, b blob, n integer)');
    expect(await db.run('insert into t values (?, ?, ?, ?)', [1, 'a', new Uint8Array([1, 2, 3]), 2n ** 60n])).toEqual({ changes: 1 });
    expect(await db.run("insert into t values (2, 'b', x'', 0), (3, 'c', x'', 0)")).toEqual({ changes: 2 });
    expect(await db.get('select v, b, n from t where id = :id', { id: 1 }))
      .toEqual({ v: 'a', b: new Uint8Array([1, 2, 3]), n: 2n ** 60n });
    expect(await db.get('select v from t where id = 99')).toBeUndefined();
    expect(await db.all('select id, v from t order by id')).toEqual([{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'c' }]);
    const seen = [];
    for await (const r of db.eval<{ id: number }>('select id from t order by id')) seen.push(r.id);
    expect(seen).toEqual([1, 2, 3]);
    expect(db.persistent).toBe(false);
  });

  it('eval pulls a large result in batches, and a loop left early ends the execution', async () => {
    const db = await connect();
    await db.exec('create table big (id integer primary key, v text)');
    await db.run(`insert into big values ${Array.from({ length: 20000 }, (_, i) => `(${i + 1}, 'row ${i + 1}')`).join(',')}`);
    let n = 0;
    let sum = 0;
    for await (const r of db.eval<{ id: number }>('select id from big order by id')) {
      n++;
      sum += r.id;
    }
    expect(n).toBe(20000);
    expect(sum).toBe(20000 * 20001 / 2);
    const first = [];
    for await (const r of db.eval<{ id: number }>('select id from big order by id')) {
      first.push(r.id);
      if (first.length === 3) break;
    }
    expect(first).toEqual([1, 2, 3]);
    expect(await db.get('select count(*) as n from big')).toEqual({ n: 20000 });
  });

  it('prepare gives a statement handle: run, get, all, metadata, finalize', async () => {
    const db = await connect();
    await db.exec('create table t (id integer primary key, v text)');
    const ins = db.prepare('insert into t values (?, ?)');
    for (let i = 1; i <= 5; i++) expect(await ins.run([i, `v${i}`])).toEqual({ changes: 1 });
    await ins.finalize();
    await expect(ins.run([6, 'x'])).rejects.toBeInstanceOf(MisuseError);
    const q = db.prepare<{ id: number; v: string }>('select id, v from t where id > :min order by id');
    expect(await q.getColumnNames()).toEqual(['id', 'v']);
    expect(await q.getParameters()).toEqual(['min']);
    expect(await q.isQuery()).toBe(true);
    expect(await q.get({ min: 3 })).toEqual({ id: 4, v: 'v4' });
    expect(await q.all({ min: 3 }).toArray()).toEqual([{ id: 4, v: 'v4' }, { id: 5, v: 'v5' }]);
    expect(await q.iterateRows({ min: 4 }).toArray()).toEqual([[5, 'v5']]);
    const scope = await q.getChangeScope({ min: 3 });
    expect(scope.watches[0].table.table).toBe('t');
    q.dispose();
    // A statement that does not compile fails its first call, with the error of prepare.
    const bad = db.prepare('selec 1');
    await expect(bad.get()).rejects.toBeInstanceOf(ParseError);
  });
});

describe('errors', () => {
  it('keep their class, code, line, column and data', async () => {
    const db = await connect();
    await db.exec('create table t (id integer primary key, v text not null)');
    const parse = await db.exec('select 1;\nselect * fro t').catch((e) => e);
    expect(parse).toBeInstanceOf(ParseError);
    expect(parse).toBeInstanceOf(OpticError);
    expect(parse.code).toBe('SYNTAX');
    expect(parse.line).toBe(2);
    expect(parse.column).toBeGreaterThan(0);
    const direct = new Database();
    const expected = await direct.exec('select 1;\nselect * fro t').catch((e) => e);
    await direct.close();
    expect({ message: parse.message, line: parse.line, column: parse.column, name: parse.name })
      .toEqual({ message: expected.message, line: expected.line, column: expected.column, name: expected.name });

    const constraint = await db.run('insert into t values (1, null)').catch((e) => e);
    expect(constraint).toBeInstanceOf(ConstraintError);
    expect(constraint.code).toBe('CONSTRAINT');
    const missing = await db.all('select * from nowhere').catch((e) => e);
    expect(missing).toBeInstanceOf(OpticError);
    await db.exec(`create table base (id integer primary key, v integer);
                   create view doubled as select id, v * 2 as dbl from base`);
    const view = await db.run('update doubled set dbl = 4 where id = 1').catch((e) => e);
    expect(view).toBeInstanceOf(OpticError);
    expect(view.mutationDiagnostic).toEqual({ reason: 'no-inverse', view: 'doubled', column: 'dbl', operation: 'update' });
  });

  it('a call on a closed database fails with a MisuseError', async () => {
    const db = await connect();
    await db.close();
    expect(db.isOpen).toBe(false);
    await expect(db.get('select 1')).rejects.toBeInstanceOf(MisuseError);
  });
});

describe('transactions', () => {
  it('commits when fn resolves, rolls back when it throws, and holds other callers until it ends', async () => {
    const db = await connect();
    await db.exec('create table t (id integer primary key, v text)');
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const tx = db.transaction(async (tx) => {
      await tx.run("insert into t values (1, 'in tx')");
      await gate;
      await tx.run("insert into t values (2, 'in tx')");
      order.push('tx');
      return 'done';
    });
    await tick();
    const outside = db.all('select id from t order by id').then((rows) => { order.push('outside'); return rows; });
    await tick();
    expect(order).toEqual([]);  // waits for the transaction
    release();
    expect(await tx).toBe('done');
    expect(await outside).toEqual([{ id: 1 }, { id: 2 }]);
    expect(order).toEqual(['tx', 'outside']);

    const failure = new Error('no');
    await expect(db.transaction(async (tx) => {
      await tx.run("insert into t values (3, 'rolled back')");
      throw failure;
    })).rejects.toBe(failure);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 2 });
    expect(await db.getAutocommit()).toBe(true);
  });

  it('nest as savepoints; statements and rows through tx', async () => {
    const db = await connect();
    await db.exec('create table t (id integer primary key)');
    await db.transaction(async (tx) => {
      await tx.run('insert into t values (1)');
      await expect(tx.transaction(async (inner) => {
        await inner.run('insert into t values (2)');
        throw new Error('inner');
      })).rejects.toThrow('inner');
      await tx.transaction(async (inner) => { await inner.run('insert into t values (3)'); });
      const st = tx.prepare('insert into t values (?)');
      await st.run([4]);
      await st.finalize();
      expect(await tx.eval<{ id: number }>('select id from t order by id').toArray()).toEqual([{ id: 1 }, { id: 3 }, { id: 4 }]);
    });
    expect(await db.all('select id from t order by id')).toEqual([{ id: 1 }, { id: 3 }, { id: 4 }]);
  });
});

describe('reactivity', () => {
  it('live delivers the first result and each change; unsubscribe stops it', async () => {
    const db = await connect();
    await db.exec("create table t (id integer primary key, v text); insert into t values (1, 'a')");
    const results: LiveResult[] = [];
    const stop = db.live('select id, v from t order by id', [], (r) => results.push(r));
    await until(() => results.length === 1);
    expect(results[0]).toMatchObject({ initial: true, rows: [[1, 'a']] });
    await db.run("insert into t values (2, 'b')");
    // The commit's delivery arrives before the call that committed settles.
    expect(results).toHaveLength(2);
    expect(results[1]).toMatchObject({ initial: false, added: [[2, 'b']] });
    stop();
    await db.run("insert into t values (3, 'c')");
    await tick();
    expect(results).toHaveLength(2);

    const errors: unknown[] = [];
    db.live('select * from nowhere', [], () => {}, (e) => errors.push(e));
    await until(() => errors.length === 1);
    expect(errors[0]).toBeInstanceOf(OpticError);

    const lq = db.liveQuery<{ id: number }>('select id from t where id > ? order by id', [1]);
    const states: number[][] = [];
    const unsubscribe = lq.subscribe((s) => states.push(s.rows.map((r) => r.id)));
    await until(() => states.length === 2);
    expect(states).toEqual([[], [2, 3]]);
    unsubscribe();
  });

  it('watch, onDataChange, onSchemaChange, onTransactionCommit', async () => {
    const db = await connect();
    await db.exec('create table t (id integer primary key, v text)');
    const scope = await db.prepare('select v from t where id = 1').getChangeScope();
    const watched: string[] = [];
    const data: unknown[] = [];
    const schema: unknown[] = [];
    const commits: unknown[] = [];
    const sub = db.watch(scope, (e) => { watched.push(e.txnId); });
    const offData = db.onDataChange((e) => data.push(e));
    const offSchema = db.onSchemaChange((e) => schema.push(e.objectName));
    const offCommit = db.onTransactionCommit((e) => commits.push(e));
    await db.run("insert into t values (2, 'miss')");
    await db.run("insert into t values (1, 'hit')");
    await db.exec('create table u (x integer)');
    expect(watched).toHaveLength(1);
    expect(data).toEqual([
      expect.objectContaining({ type: 'insert', tableName: 't', key: [2], newRow: [2, 'miss'], remote: false }),
      expect.objectContaining({ type: 'insert', tableName: 't', key: [1], newRow: [1, 'hit'], remote: false }),
    ]);
    expect(schema).toEqual(['u']);
    expect(commits).toHaveLength(3);
    sub.unsubscribe();
    offData();
    offSchema();
    offCommit();
    await db.run("update t set v = 'again' where id = 1");
    await tick();
    expect(watched).toHaveLength(1);
    expect(data).toHaveLength(2);
  });
});

describe('setup and options', () => {
  it('serve({ setup }) registers SQL functions in the worker; options pass through', async () => {
    const db = await connect({}, (d) => d.createScalarFunction('twice', { numArgs: 1 }, (x) => (x as number) * 2));
    expect(await db.get('select twice(21) as v')).toEqual({ v: 42 });
    await db.setSchemaPath(['main']);
    expect(await db.getSchemaPath()).toEqual(['main']);
  });

  it('a call aborted through its signal fails with code ABORT', async () => {
    const db = await connect();
    const controller = new AbortController();
    controller.abort();
    await expect(db.all('select 1', [], { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORT' });
  });
});

describe('IndexedDB beside a direct connection', () => {
  it("each sees the other's commits as remote, and their writes serialize", async () => {
    const name = `worker-${process.pid}-${Date.now()}`;
    const direct = await Database.open({ storage: 'indexeddb', name });
    open.push(direct);
    await direct.exec('create table counter (id integer primary key, n integer); insert into counter values (1, 0)');
    const viaWorker = await connect({ storage: 'indexeddb', name });
    expect(viaWorker.persistent).toBe(true);

    const seenByWorker: LiveResult[] = [];
    viaWorker.live('select n from counter where id = 1', [], (r) => seenByWorker.push(r));
    const remoteCommits: boolean[] = [];
    viaWorker.onTransactionCommit((e) => remoteCommits.push(e.remote));
    await until(() => seenByWorker.length === 1);
    await direct.run('update counter set n = n + 1 where id = 1');
    await until(() => seenByWorker.length === 2);
    expect(seenByWorker[1].rows).toEqual([[1]]);
    expect(remoteCommits).toEqual([true]);

    const seenDirect: boolean[] = [];
    direct.onDataChange((e) => seenDirect.push(e.remote));
    // Read-modify-write from both sides at once: the write lock serializes them, nothing is lost.
    const bump = (db: Database | WorkerDatabase) =>
      (db as WorkerDatabase).transaction(async (tx) => {
        const { n } = (await tx.get<{ n: number }>('select n from counter where id = 1'))!;
        await tx.run('update counter set n = ? where id = 1', [n + 1]);
      });
    await Promise.all(Array.from({ length: 10 }, (_, i) => bump(i % 2 ? direct : viaWorker)));
    expect(await viaWorker.get('select n from counter where id = 1')).toEqual({ n: 11 });
    await until(() => seenDirect.length >= 5);
    expect(seenDirect.filter((r) => r)).toHaveLength(5);
    expect(await direct.get('select n from counter where id = 1')).toEqual({ n: 11 });
    const bytes = await viaWorker.export();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes.length).toBeGreaterThan(0);
  });
});
