// db.transaction(async (tx) => …): commits when the callback resolves, rolls back when it throws,
// nests by savepoints, and queues every other caller until it ends (so no other caller's
// statement joins it, and none sees its uncommitted writes).
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ConstraintError, Database, MisuseError } from 'opticdb';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec('create table acct (id integer primary key, balance integer)');
  await db.exec('insert into acct values (1, 100), (2, 0)');
});
afterEach(async () => {
  await db.close();
});

const balances = async () => (await db.all<{ balance: number }>('select balance from acct order by id')).map((r) => r.balance);
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

it('commits what the callback wrote and resolves to its result', async () => {
  const r = await db.transaction(async (tx) => {
    await tx.run('update acct set balance = balance - 30 where id = 1');
    await tx.run('update acct set balance = balance + 30 where id = 2');
    return (await tx.get<{ s: number }>('select sum(balance) as s from acct'))!.s;
  });
  expect(r).toBe(100);
  expect(await balances()).toEqual([70, 30]);
  expect(db.getAutocommit()).toBe(true);
});

it('rolls back when the callback throws, and rethrows', async () => {
  const boom = new Error('boom');
  await expect(db.transaction(async (tx) => {
    await tx.run('update acct set balance = 0 where id = 1');
    throw boom;
  })).rejects.toBe(boom);
  expect(await balances()).toEqual([100, 0]);
  expect(db.getAutocommit()).toBe(true);
  // A failing statement inside: the same.
  await expect(db.transaction(async (tx) => {
    await tx.run('update acct set balance = 1 where id = 2');
    await tx.run('insert into acct values (1, 5)');
  })).rejects.toBeInstanceOf(ConstraintError);
  expect(await balances()).toEqual([100, 0]);
});

it('queues other callers until it ends: they neither join it nor see its writes', async () => {
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  const tx = db.transaction(async (t) => {
    await t.run('update acct set balance = 0 where id = 1');
    seen.push('tx wrote');
    await gate;  // other callers run now, if they could
    seen.push('tx ends');
    throw new Error('abandon');
  });
  // Issued while the transaction is open: each waits, then sees the rolled-back state.
  const read = db.get<{ balance: number }>('select balance from acct where id = 1').then((r) => {
    seen.push(`read ${r!.balance}`);
  });
  const write = db.run('update acct set balance = balance + 1 where id = 2').then((r) => {
    seen.push(`write ${r.changes}`);
  });
  const listed = db.all<{ balance: number }>('select balance from acct order by id');
  const iterated: number[] = [];
  const iterate = (async () => {
    for await (const r of db.eval<{ balance: number }>('select balance from acct order by id')) iterated.push(r.balance);
  })();
  await tick();
  expect(seen).toEqual(['tx wrote']);
  release();
  await expect(tx).rejects.toThrow('abandon');
  await Promise.all([read, write, iterate]);
  expect(seen).toEqual(['tx wrote', 'tx ends', 'read 100', 'write 1']);
  expect(await listed).toEqual([{ balance: 100 }, { balance: 1 }]);
  expect(iterated).toEqual([100, 1]);
  expect(await balances()).toEqual([100, 1]);
});

it('runs concurrent transactions one at a time, in call order', async () => {
  const order: string[] = [];
  const t = (name: string, id: number) => db.transaction(async (tx) => {
    order.push(`${name} begins`);
    const { balance } = (await tx.get<{ balance: number }>('select balance from acct where id = ?', [id]))!;
    await tick();
    await tx.run('update acct set balance = ? where id = ?', [balance + 10, id]);
    order.push(`${name} ends`);
  });
  await Promise.all([t('a', 1), t('b', 1), t('c', 2)]);
  expect(order).toEqual(['a begins', 'a ends', 'b begins', 'b ends', 'c begins', 'c ends']);
  expect(await balances()).toEqual([120, 10]);  // no lost update
});

it('nests by savepoints: an inner failure rolls back the inner part only', async () => {
  await db.transaction(async (tx) => {
    await tx.run('update acct set balance = 50 where id = 1');
    await expect(tx.transaction(async (inner) => {
      await inner.run('update acct set balance = 7 where id = 2');
      expect(await inner.get('select balance from acct where id = 2')).toEqual({ balance: 7 });
      throw new Error('inner');
    })).rejects.toThrow('inner');
    expect(await tx.get('select balance from acct where id = 2')).toEqual({ balance: 0 });
    const kept = await tx.transaction(async (inner) => {
      await inner.run('update acct set balance = 8 where id = 2');
      return inner.transaction(async (deepest) => (await deepest.run('delete from acct where id = 99')).changes);
    });
    expect(kept).toBe(0);
  });
  expect(await balances()).toEqual([50, 8]);
});

it('statements prepared through tx run inside it; synchronous reads by others are refused meanwhile', async () => {
  await db.transaction(async (tx) => {
    const st = tx.prepare<{ balance: number }>('select balance from acct where id = ?');
    await tx.run('update acct set balance = 3 where id = 1');
    expect(await st.get([1])).toEqual({ balance: 3 });
    expect([...st.all([1])]).toEqual([{ balance: 3 }]);
    expect(() => db.prepare('select 1 as x').allRows()).toThrow(MisuseError);
    await st.finalize();
  });
  expect(await balances()).toEqual([3, 0]);
});

it('works on a persistent database: the commit is stored once it resolves', async () => {
  const name = `tx-${Math.random()}`;
  const p = await Database.open({ storage: 'indexeddb', name });
  await p.exec('create table k (id integer primary key)');
  await p.transaction(async (tx) => {
    await tx.run('insert into k values (1), (2)');
  });
  await expect(p.transaction(async (tx) => {
    await tx.run('insert into k values (3)');
    throw new Error('no');
  })).rejects.toThrow('no');
  await p.close();
  const q = await Database.open({ storage: 'indexeddb', name });
  expect(await q.all('select id from k order by id')).toEqual([{ id: 1 }, { id: 2 }]);
  await q.close();
});
