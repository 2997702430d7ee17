// Plan introspection through the package API (docs/query-plan.md): query_plan(sql) as a
// table-valued function and EXPLAIN / EXPLAIN QUERY PLAN as statements give the same rows, one
// per plan node, with the access path each scan took.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Database } from 'opticdb';
import { reopened } from './reopened';

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

// Join order (ARCHITECTURE.md, "Join order"), after a reload: the tables come back unloaded, and
// once loaded the join written large table first runs from the small table the WHERE bounds.
it('after a reopen, a join written large table first runs from the bounded small table', async () => {
  const big = await reopened(`create table ev (id integer primary key, cat integer not null, amount integer not null);
     create index ev_cat on ev (cat);
     create table cats (id integer primary key, label text not null);
     insert into ev select value, value % 100, value * 3 from generate_series(1, 20000);
     insert into cats select value, 'cat' || value from generate_series(0, 99)`);
  try {
    const sql = 'select ev.id, ev.amount, cats.label from ev join cats on ev.cat = cats.id where cats.id = ? order by ev.id';
    const rows = await big.all(sql, [7]);
    expect(rows).toHaveLength(200);
    expect(rows[0]).toEqual({ id: 7, amount: 21, label: 'cat7' });
    // The same answer from the order the planner chose, written out.
    expect(await big.all('select ev.id, ev.amount, cats.label from cats join ev on ev.cat = cats.id where cats.id = ? order by ev.id', [7]))
      .toEqual(rows);
    const scans = await big.all("select object_name, detail from query_plan(?) where node_type like '%Scan' order by id", [sql]);
    expect(scans).toEqual([
      { object_name: 'main.cats', detail: 'primary key point id = ?' },
      { object_name: 'main.ev', detail: 'index ev_cat equality cat = ?' },
    ]);
  } finally {
    await big.close();
  }
});
