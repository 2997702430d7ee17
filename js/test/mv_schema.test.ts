// Declared materialized-view schemas from JS (views.md §3.2, issue 28): a source write that
// would derive a NULL into a declared NOT NULL column fails as a ConstraintError (code
// CONSTRAINT) whose message names the view and the column, and nothing of the write stays.
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
