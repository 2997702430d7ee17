// Writes through views from JS: they reach the base table, and a refused write carries the
// spec's mutationDiagnostic (views.md §2.8) and changes nothing.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Database, OpticError } from 'opticdb';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec(`create table t (id integer primary key, v integer, note text null);
                 insert into t values (1, 10, null), (2, 20, null);
                 create view doubled as select id, v * 2 as dbl, note from t where v > 5`);
});
afterEach(async () => {
  await db.close();
});

it('an update through a view reaches the base table, RETURNING through the view', async () => {
  const rows = [];
  for await (const r of db.eval("update doubled set note = 'x' where id = 2 returning id, dbl, note")) rows.push(r);
  expect(rows).toEqual([{ id: 2, dbl: 40, note: 'x' }]);
  expect(await db.get('select note from t where id = 2')).toEqual({ note: 'x' });
});

it('a computed column without an inverse is refused with a mutationDiagnostic', async () => {
  const e = await db.exec('update doubled set dbl = 4 where id = 1').catch((x) => x);
  expect(e).toBeInstanceOf(OpticError);
  expect(e.mutationDiagnostic).toEqual({ reason: 'no-inverse', view: 'doubled', column: 'dbl', operation: 'update' });
  expect(await db.get('select v from t where id = 1')).toEqual({ v: 10 });
});

it('names outside the view are refused by the encapsulation guard', async () => {
  const e = await db.exec('update doubled set note = null where v = 10').catch((x) => x);
  expect(e).toBeInstanceOf(OpticError);
  expect(e.message).toMatch(/'v' is not a column of the view/);
  expect(e.mutationDiagnostic).toEqual({ reason: 'unknown-view-column', view: 'doubled', column: 'v', operation: 'update' });
});

it('an error that is not about a view write has no mutationDiagnostic', async () => {
  const e = await db.exec('insert into t values (1, 1, null)').catch((x) => x);
  expect(e.mutationDiagnostic).toBeUndefined();
});
