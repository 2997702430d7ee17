// Declared materialized-view schemas from JS (views.md §3.2, issue 28): a source write that
// would derive a NULL into a declared NOT NULL column fails as a ConstraintError (code
// CONSTRAINT) whose message names the view and the column, and nothing of the write stays; a
// declared CHECK and foreign key hold on the derived rows across a reopen of a file database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ConstraintError, Database } from 'opticdb';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec(`create table orders (id integer primary key, amount integer null);
                 insert into orders values (1, 5), (2, 7);
                 create materialized view spend (id integer not null, amount text not null, primary key (id))
                   as select id, amount from orders`);
});
afterEach(async () => {
  await db.close();
});

it('a write deriving NULL into a declared NOT NULL column is a ConstraintError naming the view and column', async () => {
  const e = await db.exec('insert into orders values (3, null)').catch((x) => x);
  expect(e).toBeInstanceOf(ConstraintError);
  expect(e.code).toBe('CONSTRAINT');
  expect(e.message).toMatch(/^NOT NULL constraint failed: spend\.amount/);
  expect(e.message).toContain("materialized view 'main.spend'");
  expect(await db.get('select count(*) as n from orders')).toEqual({ n: 2 });
  expect(await db.get('select count(*) as n from spend')).toEqual({ n: 2 });
});

it('the declared types are the view schema: the body output is converted as INSERT converts', async () => {
  expect(await db.get('select amount, typeof(amount) as t from spend where id = 1')).toEqual({ amount: '5', t: 'text' });
  expect(await db.get("select declared from materialized_view_info('spend')")).toEqual({ declared: 1 });
});

it('CHECK and REFERENCES in the definitions hold on derived rows, as ConstraintErrors, and survive a reopen', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opticdb-mvschema-'));
  try {
    const path = join(dir, 'app.odb');
    const file = await Database.open({ storage: 'file', path });
    await file.exec(`create table p (k integer primary key);
                     create table s (id integer primary key, k integer null, v integer);
                     insert into p values (1);
                     insert into s values (1, 1, 5);
                     create materialized view m (id integer not null, k integer null references p(k),
                       v integer not null constraint pos check (v > 0), primary key (id)) as select id, k, v from s`);
    const check = await file.run('insert into s values (2, 1, -1)').catch((x) => x);
    expect(check).toBeInstanceOf(ConstraintError);
    expect([check.code, check.message]).toEqual(['CONSTRAINT',
      "CHECK constraint failed: pos (v > 0) — row derived into maintained table 'main.m' violates its declared constraint"]);
    await file.close();

    const again = await Database.open({ storage: 'file', path });
    const fk = await again.run('insert into s values (2, 7, 1)').catch((x) => x);
    expect(fk).toBeInstanceOf(ConstraintError);
    expect(fk.message).toBe("FOREIGN KEY constraint failed: _fk_m_k — row derived into maintained table 'main.m' references a missing 'main.p'");
    expect(await again.all('select id, k, v from m order by id')).toEqual([{ id: 1, k: 1, v: 5 }]);
    await again.run('insert into s values (2, null, 3)');  // a NULL key is exempt
    expect(await again.all('select id from m order by id')).toEqual([{ id: 1 }, { id: 2 }]);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
