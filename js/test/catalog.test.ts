// The durable catalog (issue 25): views and materialized views survive a reopen on IndexedDB
// (fake-indexeddb) and the Node file store, adopted after a clean close and refilled after a crash,
// with opening still reading the catalog only (a refill reads its sources when first touched).
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database, type DatabaseOptions } from 'opticdb';
import { countIdbReads } from './idb_reads.js';

let counter = 0;
const dir = mkdtempSync(join(tmpdir(), 'opticdb-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const stores: Record<string, () => DatabaseOptions> = {
  indexeddb: () => ({ storage: 'indexeddb', name: `catalog-${process.pid}-${counter++}` }),
  file: () => ({ storage: 'file', path: join(dir, `db${counter++}.odb`) }),
};

const schema = `
  create table t (id integer primary key, v integer);
  create table g (id integer primary key, label text);
  create view tv as select id, v from t where v > 0;
  create view tvv as select id from tv;
  create materialized view mv as select id, v from t;
  create materialized view agg as select count(*) as n, sum(v) as s from t;
  create materialized view joined as select t.id, g.label from t join g on g.id = t.v;
  create materialized view mem using memory as select id, v * 10 as w from t;
  create materialized view over_mv as select n from agg;
  create view over_agg as select s from agg`;

async function all(db: Database, sql: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const row of db.eval(sql)) out.push(row);
  return out;
}

// Each materialized view equals its body evaluated now.
async function expectCurrent(db: Database) {
  const pairs: [string, string][] = [
    ['select * from mv order by id', 'select id, v from t order by id'],
    ['select * from agg', 'select count(*) as n, sum(v) as s from t'],
    ['select * from joined order by id', 'select t.id, g.label from t join g on g.id = t.v order by t.id'],
    ['select * from mem order by id', 'select id, v * 10 as w from t order by id'],
    ['select * from over_mv', 'select count(*) as n from t'],
  ];
  for (const [view, body] of pairs) expect(await all(db, view), view).toEqual(await all(db, body));
}

for (const [kind, options] of Object.entries(stores)) {
  describe(`the durable catalog (${kind})`, () => {
    it('views and materialized views survive a clean close, their stored rows adopted', async () => {
      const opts = options();
      const db = await Database.open(opts);
      await db.exec(schema);
      await db.exec("insert into t values (1, 5), (2, 1); insert into g values (1, 'one'), (5, 'five')");
      const before = await all(db, 'select type, name, sql from schema() order by type, name');
      await db.close();

      const again = await Database.open(opts);
      expect(again.rehydration.errors).toEqual([]);
      expect(again.rehydration.views.sort()).toEqual(['main.over_agg', 'main.tv', 'main.tvv']);
      expect(again.rehydration.adopted.sort()).toEqual(['main.agg', 'main.joined', 'main.mv', 'main.over_mv']);
      expect(again.rehydration.refilled).toEqual(['main.mem']);  // a memory backing is never stored
      expect(again.rehydration.unconfirmedKeys).toEqual([]);  // no declared key went unproven
      expect(await all(again, 'select type, name, sql from schema() order by type, name')).toEqual(before);
      expect(await all(again, 'select * from tv order by id')).toEqual([{ id: 1, v: 5 }, { id: 2, v: 1 }]);
      expect(await all(again, 'select * from tvv order by id')).toEqual([{ id: 1 }, { id: 2 }]);
      await again.exec('insert into t values (3, 7)');  // the case: maintained after the reopen
      expect(await again.get('select count(*) as c from mv')).toEqual({ c: 3 });
      expect(await again.get('select * from agg')).toEqual({ n: 3, s: 13 });
      expect(await again.get('select * from over_agg')).toEqual({ s: 13 });
      await expectCurrent(again);
      await again.close();
    });

    it('a declared key the body no longer proves is reported on reopen, and still enforced', async () => {
      const opts = options();
      const db = await Database.open(opts);
      await db.exec(`create table users (id integer primary key, email text, constraint uq unique (email));
        insert into users values (1, 'a@x'), (2, 'b@x');
        create materialized view u (id integer not null, email text not null, primary key (id), unique (email))
          as select id, email from users;
        alter table users drop constraint uq`);
      await db.close();

      const again = await Database.open(opts);
      expect(again.rehydration.errors).toEqual([]);
      expect(again.rehydration.unconfirmedKeys).toEqual(['main.u: unique ("email")']);
      expect(await again.get("select unconfirmed_keys as k from materialized_view_info('u')")).toEqual({ k: '["unique (\\"email\\")"]' });
      await again.run("insert into users values (3, 'c@x')");  // the view keeps running
      expect(await all(again, 'select id from u order by id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
      await expect(again.run("insert into users values (4, 'a@x')")).rejects.toMatchObject({ code: 'CONSTRAINT' });
      expect(await again.get('select count(*) as n from users')).toEqual({ n: 3 });
      await again.close();
    });

    it('a dropped or renamed object is gone or renamed after a reopen', async () => {
      const opts = options();
      const db = await Database.open(opts);
      await db.exec(schema);
      await db.exec('drop view tvv; drop materialized view over_mv; drop view over_agg; drop materialized view agg');
      await db.exec('alter table t rename to t2');
      await db.close();
      const again = await Database.open(opts);
      expect(again.rehydration.errors).toEqual([]);
      expect(await all(again, "select name from schema() where type not in ('table', 'function') order by name"))
        .toEqual([{ name: 'joined' }, { name: 'mem' }, { name: 'mv' }, { name: 'tv' }]);
      await again.exec('insert into t2 values (1, 1)');
      expect(await all(again, 'select * from tv')).toEqual([{ id: 1, v: 1 }]);
      expect(await all(again, 'select * from mem')).toEqual([{ id: 1, w: 10 }]);
      await again.close();
    });

    it('a materialized view over a memory table that is gone is reported and refuses reads', async () => {
      const opts = options();
      const db = await Database.open(opts);
      await db.exec('create table m (id integer primary key) using memory; create materialized view mm as select id from m');
      await db.close();
      const again = await Database.open(opts);
      expect(again.rehydration.errors).toHaveLength(1);
      expect(again.rehydration.errors[0]).toMatch(/^main\.mm: /);
      await expect(all(again, 'select * from mm')).rejects.toThrow(/could not be restored when the database opened/);
      await again.exec('drop materialized view mm');
      await again.close();
      const third = await Database.open(opts);
      expect(third.rehydration.errors).toEqual([]);
      await third.close();
    });
  });
}

describe('the durable catalog on IndexedDB, lazily loaded', () => {
  const { readSince } = countIdbReads();  // entries read from storage

  it('after a crash the views are refilled when first touched, never at open', async () => {
    const opts = stores.indexeddb();
    const db = await Database.open(opts);
    await db.exec('create table t (id integer primary key, v integer); create table other (id integer primary key)');
    await db.exec('create materialized view agg as select count(*) as n, sum(v) as s from t');
    await db.beginTransaction();
    const ins = db.prepare('insert into t values (?, ?)');
    for (let i = 0; i < 2000; i++) await ins.run([i, i % 10]);
    await db.commit();
    await db.exec('insert into other values (1)');
    // No close(): the tab crashed. A second connection opens what storage holds.
    readSince();
    const again = await Database.open(opts);
    expect(again.rehydration.refilled).toEqual(['main.agg']);
    expect(readSince()).toBeLessThan(20);  // the catalog only
    expect(await again.get('select count(*) as n from other')).toEqual({ n: 1 });
    expect(readSince()).toBeLessThan(10);  // still not t: the refill waits for agg or t
    expect(await again.get('select * from agg')).toEqual({ n: 2000, s: 9000 });
    await again.close();

    readSince();
    const third = await Database.open(opts);  // the refill was stored, then a clean close
    expect(third.rehydration.adopted).toEqual(['main.agg']);
    expect(await third.get('select * from agg')).toEqual({ n: 2000, s: 9000 });
    expect(readSince()).toBeLessThan(20);  // the catalog and agg's one row: an adopted view needs no source
    await third.exec('delete from t where id < 1000');
    expect(await third.get('select * from agg')).toEqual({ n: 1000, s: 4500 });
    await third.close();
    await db.close();  // the crashed tab's object, let go only now (its close is a write of its own)
  });

  it('a memory-hosted view over a store table refills from it on first read', async () => {
    const opts = stores.indexeddb();
    const db = await Database.open(opts);
    await db.exec("create table t (id integer primary key, v text); insert into t values (1, 'a'), (2, 'b')");
    await db.exec('create materialized view up using memory as select id, upper(v) as u from t');
    await db.close();
    const again = await Database.open(opts);
    expect(again.rehydration.refilled).toEqual(['main.up']);
    expect(await all(again, 'select * from up order by id')).toEqual([{ id: 1, u: 'A' }, { id: 2, u: 'B' }]);
    await again.close();
  });
});
