// Logical schemas and lenses through the package (views.md §4): a logical table over a columnar
// decomposition the basis advertises, written through the lens; its logical CHECK and FOREIGN
// KEY hold on the member each reads, the errors reach JS with their class and code, nothing of
// a refused write reaches the basis, and all of it survives a reopen on IndexedDB and on the
// file store.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConstraintError, Database, type DatabaseOptions } from 'opticdb';

const dir = mkdtempSync(join(tmpdir(), 'opticdb-lens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const stores: Record<string, () => DatabaseOptions> = {
  indexeddb: () => ({ storage: 'indexeddb', name: `lens-${process.pid}-${counter++}` }),
  file: () => ({ storage: 'file', path: join(dir, `db${counter++}.odb`) }),
};

const member = (table: string, cols: string, presence: string, mapped: string) =>
  `create table ${table} (${cols}) with tags ("quereus.lens.decomp.logical.d1" = 'Car',
     "quereus.lens.decomp.role.d1" = 'primary-storage', "quereus.lens.decomp.anchor.d1" = 'Car_core',
     "quereus.lens.decomp.presence.d1" = '${presence}', "quereus.lens.decomp.keykind.d1" = 'logical-tuple',
     "quereus.lens.decomp.key.d1" = 'id', ${mapped});`;
const schema = member('Car_core', 'id integer primary key, make text null', 'mandatory',
                      `"quereus.lens.decomp.col.d1.id" = 'id', "quereus.lens.decomp.col.d1.make" = 'make'`) +
  member('Car_perf', 'id integer primary key, speed integer null', 'optional', `"quereus.lens.decomp.col.d1.maxSpeed" = 'speed'`) + `
  create table Maker (name text primary key);
  insert into Maker values ('Honda'), ('Mazda');
  declare logical schema app {
    table Maker { name text primary key }
    table Car { id integer primary key, make text null references Maker(name), maxSpeed integer null check (maxSpeed < 500) }
  };
  declare lens for app over main { };
  apply schema app;`;

async function refused(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(ConstraintError);
  expect(e.code).toBe('CONSTRAINT');
  return e.message as string;
}

for (const [kind, options] of Object.entries(stores)) {
  describe(`a lens over a decomposition (${kind})`, () => {
    it('writes through the logical table, refuses what breaks its rules, and keeps both across a reopen', async () => {
      const opts = options();
      const db = await Database.open(opts);
      await db.exec(schema);
      await db.run("insert into app.Car values (1, 'Honda', 180), (2, 'Mazda', null)");
      expect(await refused(db.run("insert into app.Car values (3, 'Mazda', 900)"))).toBe('CHECK constraint failed: lens:_check_maxSpeed');
      expect(await refused(db.run("update app.Car set make = 'Nope' where id = 1")))
        .toBe('FOREIGN KEY constraint failed: Car (make) references a missing app.Maker');
      expect(await db.all('select id, speed from Car_perf order by id')).toEqual([{ id: 1, speed: 180 }]);
      await db.close();

      const again = await Database.open(opts);
      expect(again.rehydration.errors).toEqual([]);
      expect(await again.all('select * from app.Car order by id'))
        .toEqual([{ id: 1, make: 'Honda', maxSpeed: 180 }, { id: 2, make: 'Mazda', maxSpeed: null }]);
      expect(await refused(again.run('update app.Car set maxSpeed = 1000 where id = 2'))).toBe('CHECK constraint failed: lens:_check_maxSpeed');
      await again.run("insert into app.Car values (3, 'Honda', 499)");
      expect(await again.all('select id, make from Car_core order by id'))
        .toEqual([{ id: 1, make: 'Honda' }, { id: 2, make: 'Mazda' }, { id: 3, make: 'Honda' }]);
      await again.close();
    });
  });
}
