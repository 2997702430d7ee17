// One table holding every value type, with indexes on several of them, shared by the persistence
// suites (indexeddb.test.ts, filestore.test.ts): write it, reopen, check it came back whole.
import { expect } from 'vitest';
import type { Database, SqlValue } from 'opticdb';

export const VALUE_TYPES_DDL = `create table v (id integer primary key, i integer null, big integer null, r real null,
                                   t text null, b blob null, f boolean null, j json null, d date null,
                                   tm time null, dt datetime null, ts timespan null);
                   create index v_t on v (t);
                   create unique index v_big on v (big);
                   create index v_d_r on v (d desc, r)`;

export const VALUE_ROWS: SqlValue[][] = [
  [1, -7, 123456789012345678901234567890n, 2.5, 'héllo wörld ✓ 😀', new Uint8Array([0, 255, 7]), true,
   { a: [1, 'x', null], b: { c: false } }, '2024-02-29', '13:45:30', '2024-02-29T13:45:30', 'PT1H30M'],
  [2, 2 ** 53 + 2, -(2n ** 70n), -0.125, '', new Uint8Array([]), false, [1, 2, 3], '1999-12-31', '00:00:00',
   '1999-12-31T23:59:59', 'P1DT2H'],
  [3, null, null, null, null, null, null, null, null, null, null, null],
];

/** Creates v and inserts VALUE_ROWS, one autocommit insert each. */
export async function writeValueRows(db: Database): Promise<void> {
  await db.exec(VALUE_TYPES_DDL);
  const ins = db.prepare('insert into v values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  for (const r of VALUE_ROWS) await ins.run(r);
  ins.finalize();
}

/** Checks `back` (select * from v order by id) against VALUE_ROWS, and that the indexes came
 *  back with the table: they answer seeks and still enforce uniqueness. */
export async function expectValueRows(db: Database, back: SqlValue[][]): Promise<void> {
  expect(back.map((r) => r.slice(0, 5))).toEqual(VALUE_ROWS.map((r) => r.slice(0, 5)).map((r) => r.map((x) => (x === 2 ** 53 + 2 ? BigInt(x) : x))));
  expect(back[0][5]).toEqual(new Uint8Array([0, 255, 7]));
  expect(back[1][5]).toEqual(new Uint8Array([]));
  expect(back.map((r) => r[6])).toEqual([true, false, null]);
  expect(back.map((r) => r[7])).toEqual([{ a: [1, 'x', null], b: { c: false } }, [1, 2, 3], null]);
  expect(back[0].slice(8)).toEqual(['2024-02-29', '13:45:30', '2024-02-29T13:45:30', 'PT1H30M']);
  expect(back[2].slice(8)).toEqual([null, null, null, null]);
  expect(await db.get('select id from v where t = ?', ['héllo wörld ✓ 😀'])).toEqual({ id: 1 });
  expect(await db.get('select id from v where big = ?', [-(2n ** 70n)])).toEqual({ id: 2 });
  await expect(db.exec('insert into v (id, big) values (9, -1180591620717411303424)')).rejects.toThrow(/UNIQUE/);
  expect(await db.get('select group_concat(id) as ids from (select id from v where d is not null order by d desc, r)'))
    .toEqual({ ids: '1,2' });
}
