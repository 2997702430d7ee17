// Plan introspection through the package API (docs/query-plan.md): query_plan(sql) as a
// table-valued function and EXPLAIN / EXPLAIN QUERY PLAN as statements give the same rows, one
// per plan node, with the access path each scan took.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Database } from 'opticdb';

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec(`create table ev (id integer primary key, cat integer not null, ts integer not null);
                 create index ev_cat on ev (cat);
                 create index ev_ts on ev (ts);
                 insert into ev values (1, 1, 10), (2, 1, 20), (3, 2, 30)`);
});
afterEach(async () => {
  await db.close();
});

it('query_plan(sql) lists the plan with the access path of each scan', async () => {
  const rows = await db.all('select id, parent_id, node_type, detail, object_name from query_plan(?) order by id',
    ['select id from ev where cat = ?']);
  expect(rows[0].parent_id).toBeNull();
  const scan = rows.find((r) => r.node_type === 'IndexScan');
  expect(scan).toMatchObject({ object_name: 'main.ev', detail: 'index ev_cat equality cat = ?, covering' });
  for (const r of rows.slice(1)) expect(r.parent_id).toBeLessThan(r.id as number);
});

it('ORDER BY … LIMIT on an indexed column is a reverse ordered scan, no sort', async () => {
  const rows = await db.all("select node_type, detail from query_plan('select id from ev order by ts desc limit 2')");
  expect(rows.map((r) => r.node_type)).not.toContain('Sort');
  expect(rows.find((r) => r.node_type === 'IndexScan')?.detail).toBe('index ev_ts full scan, ordered, reverse, covering');
});

it('EXPLAIN and EXPLAIN QUERY PLAN give the rows of query_plan, without running the statement', async () => {
  const sql = 'delete from ev where cat = 1';
  const viaFunction = await db.all('select * from query_plan(?)', [sql]);
  expect(await db.all(`explain ${sql}`)).toEqual(viaFunction);
  expect(await db.all(`explain query plan ${sql}`)).toEqual(viaFunction);
  expect(viaFunction[0]).toMatchObject({ node_type: 'Delete', op: 'DELETE', object_name: 'ev' });
  expect(await db.get('select count(*) as n from ev')).toEqual({ n: 3 });
});
