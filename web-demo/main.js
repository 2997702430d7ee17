// The OpticDB web demo: a database kept in this browser's IndexedDB (it survives reloads),
// seeded on first use with a small todo schema (a table, a view you can write through, a
// materialized view), a SQL editor, and a live query that re-renders only when a commit changes
// its answer. Open the page in a second tab: a write in either updates the other's live query
// (the commit reaches it through BroadcastChannel, marked remote).
//
// Worker mode: the engine runs in a dedicated Worker (db-worker.js), one per tab; the page holds
// a WorkerDatabase with the same async API, so a long query never blocks the page. Tabs share the
// database's write lock, as main-thread connections do.
import { WorkerDatabase } from 'opticdb/worker';

const SCHEMA = `create table if not exists todo (
  id integer primary key,
  title text,
  done boolean default false,
  priority integer default 2
);`;
const SEED_ROWS = `insert into todo (id, title, priority) values
  (1, 'Try OpticDB in the browser', 1),
  (2, 'Write through a view', 2),
  (3, 'Watch a live query update', 1);`;
// Declared once, with the table: the catalog keeps views and materialized views across reloads.
// todo_stats's rows live in memory, so a reload derives them again from the stored table.
const VIEWS = `create view open_todo as select id, title, priority from todo where done = false;
create materialized view todo_stats using memory as
  select done, count(*) as n from todo group by done;`;

const EXAMPLE = `-- Views are writable: this updates the base table.
update open_todo set priority = 3 where id = 2;
insert into todo (id, title) values (4, 'Ship it');
update todo set done = true where id = 1;
select * from todo_stats;`;

const $ = (id) => document.getElementById(id);
const startWorker = () => new Worker(new URL('./db-worker.js', import.meta.url), { type: 'module' });
const db = await WorkerDatabase.open(startWorker(), { storage: 'indexeddb', name: 'opticdb-demo' });
const { views, materializedViews, errors } = db.rehydration;
await db.exec(SCHEMA);
if (!views.includes('main.open_todo')) await db.exec(VIEWS);
const { n: stored } = await db.get('select count(*) as n from todo');
if (stored === 0) await db.exec(SEED_ROWS);
const ready = stored === 0
  ? "IndexedDB database 'opticdb-demo' created and seeded: ready"
  : `IndexedDB database 'opticdb-demo' reopened with ${stored} stored row(s), ` +
    `${views.length} view(s) and ${materializedViews.length} materialized view(s) restored` +
    (errors.length ? ` (not restored: ${errors.join('; ')})` : '') + ': ready';
$('sql').value = EXAMPLE;
$('live-sql').value = 'select id, title, done, priority from todo order by id';

function cell(v) {
  const td = document.createElement('td');
  if (v === null) {
    td.textContent = 'NULL';
    td.className = 'null';
  } else if (v instanceof Uint8Array) {
    td.textContent = `x'${[...v].map((b) => b.toString(16).padStart(2, '0')).join('')}'`;
  } else if (typeof v === 'object') {
    td.textContent = JSON.stringify(v);
  } else {
    td.textContent = String(v);
  }
  return td;
}

function table(columns, rows, rowClass = () => '') {
  const t = document.createElement('table');
  const head = t.createTHead().insertRow();
  for (const c of columns) {
    const th = document.createElement('th');
    th.textContent = c;
    head.appendChild(th);
  }
  const body = t.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    tr.className = rowClass(r);
    for (const v of r) tr.appendChild(cell(v));
  }
  return t;
}

function showError(el, e) {
  el.hidden = false;
  const where = e.line ? ` (line ${e.line}, column ${e.column})` : '';
  el.textContent = `${e.code ?? 'ERROR'}: ${e.message}${e.message.includes('line') ? '' : where}`;
}

async function run() {
  const out = $('result');
  const err = $('error');
  err.hidden = true;
  out.replaceChildren();
  const t0 = performance.now();
  $('stop').hidden = false;
  try {
    const rows = [];
    let columns = [];
    for await (const row of db.eval($('sql').value)) {
      if (!columns.length) columns = Object.keys(row);
      rows.push(Object.values(row));
    }
    const ms = (performance.now() - t0).toFixed(1);
    $('timing').textContent = `${rows.length} row(s), ${ms} ms`;
    if (columns.length) out.appendChild(table(columns, rows));
    else out.innerHTML = '<p class="note">done (no rows)</p>';
  } catch (e) {
    $('timing').textContent = '';
    showError(err, e);
  } finally {
    $('stop').hidden = true;
  }
}

// The plan of one statement (the selection, else the whole text) as an indented tree: each node
// under its parent, with the object it reads, its access path and its estimated rows.
async function showPlan() {
  const box = $('plan-result');
  const err = $('error');
  err.hidden = true;
  const ta = $('sql');
  const picked = ta.selectionStart !== ta.selectionEnd ? ta.value.slice(ta.selectionStart, ta.selectionEnd) : ta.value;
  const sql = picked.trim().replace(/;\s*$/, '');
  try {
    const nodes = await db.all(
      'select id, parent_id, node_type, detail, object_name, est_rows from query_plan(?) order by id', [sql]);
    const depth = new Map();
    const rows = nodes.map((n) => {
      const d = n.parent_id === null ? 0 : depth.get(n.parent_id) + 1;
      depth.set(n.id, d);
      return ['  '.repeat(d) + n.node_type, n.object_name, n.detail, n.est_rows];
    });
    const t = table(['plan', 'object', 'detail', 'est. rows'], rows);
    for (const tr of t.tBodies[0].rows) tr.cells[0].className = 'node';
    box.replaceChildren(t);
    box.hidden = false;
  } catch (e) {
    box.hidden = true;
    showError(err, e);
  }
}

let stopLive = null;
let deliveries = 0;
let liveTxn = '';  // the commit the live result last showed
// Commit events come after the live delivery of the same commit: say where that commit came from.
db.onTransactionCommit((e) => {
  if (e.remote && e.txnId === liveTxn) $('live-count').textContent += ' from another tab';
});
async function watchLive() {
  stopLive?.();
  stopLive = null;
  deliveries = 0;
  const err = $('live-error');
  err.hidden = true;
  const sql = $('live-sql').value;
  try {
    const st = db.prepare(sql);
    try {
      $('live-scope').textContent = JSON.stringify(await st.getChangeScope(), (k, v) => (v instanceof Set ? [...v] : v), 2);
    } finally {
      await st.finalize();
    }
    let shown;
    const first = new Promise((resolve) => { shown = resolve; });
    stopLive = db.live(sql, [], (r) => {
      shown();
      deliveries++;
      liveTxn = r.txnId;
      $('live-count').textContent = r.initial ? 'first result' : `updated by ${r.txnId} (${deliveries - 1} update(s))`;
      const added = new Set(r.added.map((x) => JSON.stringify(x)));
      const changed = new Set(r.changed.map((c) => JSON.stringify(c.after)));
      const cls = (row) => {
        const k = JSON.stringify(row);
        return r.initial ? '' : added.has(k) ? 'added' : changed.has(k) ? 'changed' : '';
      };
      $('live-result').replaceChildren(table(r.columns, r.rows, cls));
    }, (e) => {
      shown();
      showError(err, e);
    });
    await first;  // the first result is on screen when this resolves
  } catch (e) {
    showError(err, e);
  }
}

$('run').addEventListener('click', run);
$('plan').addEventListener('click', showPlan);
// The engine runs in the worker, so this page can ask it to stop while a statement runs.
$('stop').addEventListener('click', () => db.interrupt());
$('sql').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
});
$('live-start').addEventListener('click', watchLive);
await watchLive();
window.opticdb = db;  // for the console (and the end-to-end tests)
// Another connection from this tab: in a worker (a new one unless `target` names a Worker,
// SharedWorker or port), or on the main thread (the engine is then loaded here too, on first use).
// For the console, the end-to-end tests and the benchmarks.
window.openWorkerDatabase = (options, target = startWorker()) => WorkerDatabase.open(target, options);
window.loadMainThreadDatabase = () => import('opticdb').then((m) => m.Database);
$('status').textContent = ready;
