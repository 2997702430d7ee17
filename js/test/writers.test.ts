// Several writers on one IndexedDB database (fake-indexeddb), as several tabs are: writes are
// serialized by the database's write lock and each runs on every commit stored before it, so
// read-modify-write loses nothing, constraints see every connection's rows, and every copy ends
// equal to storage (and to a connection opened afterwards, and after a reopen).
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConstraintError, Database, StorageError } from 'opticdb';
import { generator } from './random.js';

let counter = 0;
const freshName = () => `writers-${process.pid}-${counter++}`;
const open: Database[] = [];
async function connect(name: string, lockTimeout?: number): Promise<Database> {
  const db = await Database.open({ storage: 'indexeddb', name, lockTimeout });
  open.push(db);
  return db;
}
// A connection opened without BroadcastChannel: it hears of other connections' commits only
// from the commit log, when it writes.
async function connectDeaf(name: string): Promise<Database> {
  const channel = globalThis.BroadcastChannel;
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  try {
    return await connect(name);
  } finally {
    globalThis.BroadcastChannel = channel;
  }
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});


const SCHEMA = `
  create table account (id integer primary key, balance integer not null);
  create table counter (id integer primary key, n integer not null);
  create table claim (k text primary key, owner integer not null);
  create index claim_owner on claim (owner);
  create materialized view total as select sum(balance) as s, count(*) as c from account;`;

async function contents(db: Database): Promise<unknown> {
  return {
    account: await db.all('select * from account order by id'),
    counter: await db.all('select * from counter order by id'),
    claim: await db.all('select * from claim order by k'),
    total: await db.all('select * from total'),
  };
}

describe('several writers on one database', () => {
  it('300 concurrent random transactions from three connections: nothing lost, one winner per key, copies agree', async () => {
    const name = freshName();
    const dbs = [await connect(name), await connect(name), await connect(name)];
    await dbs[0].exec(SCHEMA);
    await dbs[0].exec(`insert into account select value, 100 from generate_series(1, 10); insert into counter values (1, 0)`);
    const random = generator(26);
    let increments = 0;
    const claimed = new Map<string, number>();  // key -> successful inserts
    const unexpected: unknown[] = [];
    const ops: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      const db = dbs[random(3)];
      const kind = random(3);
      if (kind === 0) {
        increments++;
        ops.push(db.run('update counter set n = n + 1 where id = 1').then(() => {}, (e) => { unexpected.push(e); }));
      } else if (kind === 1) {
        // A transfer written from values read inside the transaction: a stale copy would lose money.
        const from = 1 + random(10), to = 1 + random(10), amount = 1 + random(20);
        ops.push(db.transaction(async (tx) => {
          const a = await tx.get<{ balance: number }>('select balance from account where id = ?', [from]);
          await tx.run('update account set balance = ? where id = ?', [a!.balance - amount, from]);
          const b = await tx.get<{ balance: number }>('select balance from account where id = ?', [to]);
          await tx.run('update account set balance = ? where id = ?', [b!.balance + amount, to]);
        }).catch((e) => { unexpected.push(e); }));
      } else {
        const key = `k${random(40)}`;
        ops.push(db.run('insert into claim values (?, ?)', [key, i]).then(
          () => { claimed.set(key, (claimed.get(key) ?? 0) + 1); },
          (e) => { if (!(e instanceof ConstraintError)) unexpected.push(e); }));
      }
    }
    await Promise.all(ops);
    expect(unexpected).toEqual([]);
    expect([...claimed.values()].every((n) => n === 1)).toBe(true);

    // A read sees this connection's copy, which has every commit once its broadcast arrives; a
    // write catches up first: compare after a write through each.
    for (const db of dbs) await db.run('update counter set n = n where id = 1');
    const expected = await contents(dbs[0]);
    expect(expected).toMatchObject({
      counter: [{ id: 1, n: increments }],
      total: [{ s: 1000, c: 10 }],
    });
    expect((expected as { claim: unknown[] }).claim).toHaveLength(claimed.size);
    for (const db of dbs) expect(await contents(db)).toEqual(expected);
    expect(await contents(await connect(name))).toEqual(expected);
    for (const db of open.splice(0)) await db.close();
    expect(await contents(await connect(name))).toEqual(expected);
  });

  it('a write waits for another connection\'s open transaction, and fails with BUSY after lockTimeout', async () => {
    const name = freshName();
    const a = await connect(name);
    const b = await connect(name, 100);
    await a.exec('create table t (id integer primary key, v text)');
    await a.exec("begin; insert into t values (1, 'a')");
    const started = Date.now();
    const refused = await b.run("insert into t values (2, 'b')").then(() => null, (e) => e);
    expect(refused).toBeInstanceOf(StorageError);
    expect(refused).toMatchObject({ code: 'BUSY' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    // Reads never wait: b sees what is committed (nothing yet), a its own transaction.
    expect(await b.all('select * from t')).toEqual([]);
    const waiting = b.run("insert into t values (1, 'b')").then(() => 'inserted', (e) => e);
    await new Promise((r) => setTimeout(r, 20));
    await a.exec('commit');
    // b's insert ran after a's commit and on it: the key is taken.
    expect(await waiting).toBeInstanceOf(ConstraintError);
    expect(await b.all('select * from t')).toEqual([{ id: 1, v: 'a' }]);
  });

  it('a connection closed inside a transaction loses only that transaction, and lets the others write', async () => {
    const name = freshName();
    const a = await connect(name);
    const b = await connect(name);
    await a.exec("create table t (id integer primary key, v text); insert into t values (1, 'kept')");
    await a.exec("begin; insert into t values (2, 'never committed')");
    const waiting = b.run("insert into t values (3, 'b')");
    await a.close();
    await waiting;
    expect(await b.all('select * from t order by id')).toEqual([{ id: 1, v: 'kept' }, { id: 3, v: 'b' }]);
    expect(await (await connect(name)).all('select * from t order by id')).toEqual([{ id: 1, v: 'kept' }, { id: 3, v: 'b' }]);
  });

  it('a burst of unawaited writes shares the lock and still lands in order, interleaved with another writer', async () => {
    const name = freshName();
    const a = await connect(name);
    const b = await connect(name);
    await a.exec('create table log (seq integer primary key, who text, n integer)');
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      const db = i % 2 ? a : b;
      // each row numbers itself from what the writer sees: a stale copy would collide
      writes.push(db.run('insert into log select coalesce(max(seq), 0) + 1, ?, ? from log', [i % 2 ? 'a' : 'b', i]));
    }
    await Promise.all(writes);
    await a.run('update log set n = n where seq = 1');  // a read sees b's last commits once a catches up
    const rows = await a.all<{ seq: number }>('select seq from log order by seq');
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await b.run('update log set n = n where seq = 1');
    expect(await b.all('select * from log order by seq')).toEqual(await a.all('select * from log order by seq'));
  });

  it('a connection that hears no broadcasts catches up from the commit log before it writes', async () => {
    const name = freshName();
    const a = await connect(name);
    await a.exec('create table t (id integer primary key, n integer); insert into t values (1, 0)');
    const deaf = await connectDeaf(name);
    expect(await deaf.all('select n from t')).toEqual([{ n: 0 }]);  // loaded now
    for (let i = 0; i < 5; i++) await a.run('update t set n = n + 1 where id = 1');
    await a.exec('create table u (id integer primary key)');
    expect(await deaf.all('select n from t')).toEqual([{ n: 0 }]);  // its copy, never told
    await deaf.run('update t set n = n * 10 where id = 1');  // applies the five, then writes
    await deaf.run('insert into u values (1)');              // a table it learnt of from the log
    expect(await deaf.all('select n from t')).toEqual([{ n: 50 }]);
    await a.run('update t set n = n + 1 where id = 1');
    expect(await a.all('select n from t')).toEqual([{ n: 51 }]);
    expect(await a.all('select id from u')).toEqual([{ id: 1 }]);
  });

  it('a connection further behind than the commit log reaches reads again what it holds, then writes on the union', async () => {
    const name = freshName();
    const a = await connect(name);
    await a.exec(`create table t (id integer primary key, n integer, tag text); create index t_tag on t (tag);
                  insert into t values (1, 0, 'x'), (2, 0, 'y'); create table gone (k integer primary key);
                  create materialized view tally as select tag, sum(n) as s from t group by tag`);
    const deaf = await connectDeaf(name);
    expect(await deaf.all('select n from t order by id')).toEqual([{ n: 0 }, { n: 0 }]);  // loaded now
    const live: unknown[] = [];
    deaf.live('select sum(n) as s from t', [], (r) => live.push(r.rows[0][0]));
    let watched = 0;
    deaf.watch(deaf.prepare("select n from t where tag = 'x'").getChangeScope(), () => { watched++; });
    const events: string[] = [];
    deaf.onDataChange((e) => { if (e.tableName === 't') events.push(`${e.type}:${e.remote}`); });
    for (let i = 0; i < 1100; i++) await a.run('update t set n = n + 1 where id = 1');
    await a.exec(`delete from t where id = 2; insert into t values (3, 7, 'y'); drop table gone;
                  create table fresh (k integer primary key); insert into fresh values (9)`);
    expect(await deaf.all('select n from t where id = 1')).toEqual([{ n: 0 }]);  // its copy, never told

    await deaf.run('update t set n = n * 2 where id = 1');  // reads again, then writes on it
    expect(deaf.isOpen).toBe(true);
    expect(await deaf.all('select id, n from t order by id')).toEqual([{ id: 1, n: 2200 }, { id: 3, n: 7 }]);
    expect(await deaf.all("select id from t where tag = 'y'")).toEqual([{ id: 3 }]);  // its index followed
    expect(await deaf.all('select tag, s from tally order by tag')).toEqual([{ tag: 'x', s: 2200 }, { tag: 'y', s: 7 }]);
    expect(await deaf.all('select k from fresh')).toEqual([{ k: 9 }]);  // created meanwhile: loaded on use
    await expect(deaf.all('select * from gone')).rejects.toThrow(/gone/);
    expect(live).toEqual([0, 1107, 2207]);  // the read-again as one commit, then its own write
    expect(watched).toBe(2);  // the read-again, its own write
    expect(events.sort()).toEqual(['delete:true', 'insert:true', 'update:false', 'update:true']);

    await a.run('update t set n = n + 1 where id = 3');  // and back: a builds on deaf's write
    expect(await a.all('select id, n from t order by id')).toEqual([{ id: 1, n: 2200 }, { id: 3, n: 8 }]);
    const reopened = await connect(name);
    expect(await reopened.all('select id, n from t order by id')).toEqual([{ id: 1, n: 2200 }, { id: 3, n: 8 }]);
    expect(await reopened.all('select tag, s from tally order by tag')).toEqual([{ tag: 'x', s: 2200 }, { tag: 'y', s: 8 }]);
  }, 60_000);

  it('a commit of another connection that cannot be applied here is replaced by reading again what storage holds', async () => {
    const name = freshName();
    const a = await connect(name);
    await a.exec('create table t (id integer primary key, n integer); insert into t values (1, 1)');
    const b = await connect(name);
    expect(await b.all('select n from t')).toEqual([{ n: 1 }]);  // loaded now
    const live: unknown[] = [];
    b.live('select sum(n) as s from t', [], (r) => live.push(r.rows[0][0]));
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
    };
    await a.run('update t set n = 5 where id = 1');
    await until(() => live.length === 2);
    expect(live).toEqual([1, 5]);
    // A broadcast b cannot apply (bytes that are no batch), numbered after every stored commit.
    const channel = new BroadcastChannel(`opticdb:${name}`);
    await a.run('update t set n = 6 where id = 1');
    const seq = 4;  // the table, its row, the two updates
    channel.postMessage({ seq: seq + 1, batches: [new Uint8Array([0xff, 0xfe, 0xfd])] });
    channel.close();
    await until(() => live.at(-1) === 6);
    expect(b.isOpen).toBe(true);
    expect(await b.all('select n from t')).toEqual([{ n: 6 }]);
    expect(live.at(-1)).toBe(6);
  });

  it('updates by an indexed column on a 100k-row table from two connections: both copies equal storage', async () => {
    const name = freshName();
    const a = await connect(name);
    await a.exec('create table item (id integer primary key, grp integer not null, qty integer not null); create index item_grp on item (grp)');
    await a.exec('insert into item select value, value % 1000, 0 from generate_series(1, 100000)');
    const b = await connect(name);
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      ops.push((i % 2 ? a : b).run('update item set qty = qty + 1 where grp = ?', [i % 5]));
    }
    await Promise.all(ops);
    const summary = 'select grp, sum(qty) as q, count(*) as c from item where grp < 6 group by grp order by grp';
    const expected = [0, 1, 2, 3, 4].map((g) => ({ grp: g, q: 8 * 100, c: 100 })).concat([{ grp: 5, q: 0, c: 100 }]);
    await a.run('update item set qty = qty where id = 1');
    expect(await a.all(summary)).toEqual(expected);
    await b.run('update item set qty = qty where id = 1');
    expect(await b.all(summary)).toEqual(expected);
    await a.close();
    await b.close();
    open.length = 0;
    expect(await (await connect(name)).all(summary)).toEqual(expected);
  }, 120_000);
});
