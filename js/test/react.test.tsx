// @vitest-environment jsdom
// useLiveQuery in a real React tree (react-dom on jsdom): first result, re-render after a
// commit that changes the answer, no re-render for one that does not, unsubscribe on unmount;
// under concurrent rendering (a transition, several readers) every reader shows the same rows.
import { act, createElement, startTransition, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { expect, it } from 'vitest';
import { Database } from 'opticdb';
import { useLiveQuery } from 'opticdb/react';

(globalThis as any).IS_REACT_ACT_ENVIRONMENT = true;

it('renders live rows and re-renders only when they change', async () => {
  const db = new Database();
  await db.exec(`create table todo (id integer primary key, title text, done boolean default false);
                 insert into todo (id, title) values (1, 'a'), (2, 'b')`);
  let renders = 0;
  function Open({ done }: { done: boolean }) {
    renders++;
    const { rows, error } = useLiveQuery(db, 'select id, title from todo where done = ? order by id', [done]);
    if (error) return createElement('p', null, error.message);
    return createElement('ul', null, rows.map((r) => createElement('li', { key: String(r.id) }, String(r.title))));
  }
  const el = document.createElement('div');
  const root = createRoot(el);
  await act(async () => root.render(createElement(Open, { done: false })));
  expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['a', 'b']);

  await act(async () => { await db.exec("insert into todo (id, title) values (3, 'c')"); });
  expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['a', 'b', 'c']);

  const before = renders;
  await act(async () => { await db.exec("insert into todo (id, title, done) values (4, 'd', true)"); });
  expect(renders).toBe(before);  // a commit that leaves the answer unchanged does not re-render

  await act(async () => root.unmount());
  await db.exec("insert into todo (id, title) values (5, 'e')");  // no subscriber left to deliver to
  expect(el.innerHTML).toBe('');
  await db.close();
});

it('shows a query error instead of throwing', async () => {
  const db = new Database();
  function Bad() {
    const { error } = useLiveQuery(db, 'select * from missing');
    return createElement('p', null, error ? error.message : 'ok');
  }
  const el = document.createElement('div');
  const root = createRoot(el);
  await act(async () => root.render(createElement(Bad)));
  expect(el.textContent).toMatch(/missing/);
  await act(async () => root.unmount());
  await db.close();
});

it('readers of one query never disagree under concurrent rendering, and named parameters work', async () => {
  const db = new Database();
  await db.exec(`create table item (id integer primary key, kind text);
                 insert into item values (1, 'x'), (2, 'y')`);
  const seen: string[][] = [];
  function Count({ label }: { label: string }) {
    const { rows } = useLiveQuery<{ n: number }>(db, 'select count(*) as n from item where kind = :kind', { kind: 'x' });
    seen.push([label, String(rows[0]?.n)]);
    return createElement('i', null, String(rows[0]?.n ?? ''));
  }
  let setMany!: (n: number) => void;
  function Page() {
    const [many, set] = useState(3);
    setMany = set;
    return createElement('div', null, ...Array.from({ length: many }, (_, i) => createElement(Count, { key: i, label: `r${i}` })));
  }
  const el = document.createElement('div');
  const root = createRoot(el);
  await act(async () => root.render(createElement(Page)));
  expect([...el.querySelectorAll('i')].map((i) => i.textContent)).toEqual(['1', '1', '1']);
  // A transition re-renders the readers while a commit lands between their renders.
  await act(async () => {
    startTransition(() => setMany(6));
    await db.exec("insert into item values (3, 'x')");
  });
  expect([...el.querySelectorAll('i')].map((i) => i.textContent)).toEqual(['2', '2', '2', '2', '2', '2']);
  await act(async () => root.unmount());
  await db.close();
});
