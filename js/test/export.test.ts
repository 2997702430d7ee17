// Database.export / Database.import: a whole database as the bytes of a database file (the native
// file store's format): every value type, indexes, views and materialized views survive the round
// trip IndexedDB → file bytes → the Node file store and → IndexedDB again.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Database, MisuseError } from 'opticdb';
import { expectValueRows, writeValueRows } from './value_types.js';
import { native } from './native_cli.js';

const dir = mkdtempSync(join(tmpdir(), 'opticdb-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const fresh = () => `export-${process.pid}-${counter++}`;

async function fill(db: Database): Promise<void> {
  await writeValueRows(db);
  await db.exec(`create view small as select id, t from v where id < 3;
                 create materialized view by_flag as select f, count(*) as n from v group by f`);
}
async function expectWhole(db: Database): Promise<void> {
  await db.all('select id from v');  // loads v (a lazily opened IndexedDB database)
  await expectValueRows(db, db.prepare('select * from v order by id').allRows());
  expect(await db.all('select id from small order by id')).toEqual([{ id: 1 }, { id: 2 }]);
  expect(await db.all('select f, n from by_flag order by n, f')).toEqual([{ f: null, n: 1 }, { f: false, n: 1 }, { f: true, n: 1 }]);
  expect(await db.run('update small set t = t where id = 2')).toEqual({ changes: 1 });  // still writable through
}

it('IndexedDB → export → the Node file store and → import into IndexedDB: everything comes back', async () => {
  const source = await Database.open({ storage: 'indexeddb', name: fresh() });
  await fill(source);
  const bytes = await source.export();
  await source.close();
  expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('OPTICDB1');

  const path = join(dir, 'exported.odb');
  writeFileSync(path, bytes);
  expect(native(path, 'select count(*) as n from v; select count(*) as n from small;')).toMatch(/3[^]*2/);
  const file = await Database.open({ storage: 'file', path });
  await expectWhole(file);
  const again = await file.export();  // a file database exports too
  await file.close();

  const name = fresh();
  const imported = await Database.import(again, { name });
  await expectWhole(imported);
  await imported.close();
  const reopened = await Database.open({ storage: 'indexeddb', name });
  expect(await reopened.all('select id from small order by id')).toEqual([{ id: 1 }, { id: 2 }]);
  await reopened.close();
});

it('import replaces a database of the same name; bad bytes and in-memory exports are refused', async () => {
  const name = fresh();
  const old = await Database.open({ storage: 'indexeddb', name });
  await old.exec('create table gone (id integer primary key)');
  await old.close();
  const source = await Database.open({ storage: 'indexeddb', name: fresh() });
  await source.exec('create table kept (id integer primary key); insert into kept values (1)');
  const bytes = await source.export();
  await source.close();
  const db = await Database.import(bytes, { name });
  expect(await db.all('select id from kept')).toEqual([{ id: 1 }]);
  await expect(db.exec('select * from gone')).rejects.toThrow(/gone/);
  await db.close();
  await expect(Database.import(new TextEncoder().encode('not a database'), { name })).rejects.toBeInstanceOf(MisuseError);
  const memory = new Database();
  await expect(memory.export()).rejects.toBeInstanceOf(MisuseError);
  await memory.close();
});
