// What users install is what we test: `npm pack` the package, install the tarball into a fresh
// project outside the repository, and use it from plain Node ESM.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const jsDir = new URL('..', import.meta.url).pathname;
let dir = '';
let tarball = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opticdb-pack-'));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: jsDir });
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', tarball], { cwd: app });
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the tarball ships the ESM build, the typings and the wasm, and nothing else', () => {
  const list = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
  expect(list).toContain('package/dist/index.node.js');
  expect(list).toContain('package/dist/index.browser.js');
  expect(list).toContain('package/dist/index.d.ts');
  expect(list).toContain('package/dist/opticdb.wasm');
  expect(list).toContain('package/dist/opticdb.mjs');
  expect(list).toContain('package/dist/lazy.js');
  expect(list).toContain('package/dist/worker.js');
  expect(list).toContain('package/dist/worker.node.js');
  expect(list).toContain('package/README.md');
  expect(list).toContain('package/LICENSE');
  expect(list.filter((f) => f.includes('/test/') || f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
});

it('an installed copy runs queries from plain Node ESM', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'main.js'), `
    import { Database, ConstraintError } from 'opticdb';
    const db = new Database();
    await db.exec("create table t (id integer primary key, name text)");
    const ins = db.prepare("insert into t values (?, ?)");
    for (let i = 1; i <= 3; i++) await ins.run([i, 'n' + i]);
    let refused = false;
    try { await ins.run([1, 'again']); } catch (e) { refused = e instanceof ConstraintError; }
    const row = await db.get("select count(*) as n, max(name) as m from t");
    console.log(JSON.stringify({ ...row, refused }));
    await db.close();
  `);
  const out = execFileSync('node', ['main.js'], { cwd: app, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ n: 3, m: 'n3', refused: true });
});

it('opticdb/lazy starts the engine from bytes or a compiled module, and exports the wasm', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'lazy.js'), `
    import { readFile } from 'node:fs/promises';
    import { fileURLToPath } from 'node:url';
    import { init, Database } from 'opticdb/lazy';
    let early = '';
    try { new Database(); } catch (e) { early = e.message; }
    const bytes = await readFile(fileURLToPath(import.meta.resolve('opticdb/opticdb.wasm')));
    const source = process.argv[2] === 'module' ? await WebAssembly.compile(bytes) : bytes;
    await init({ wasm: source });
    const db = new Database();
    await db.exec('create table t (x integer); insert into t values (1), (2)');
    const rows = [];
    for await (const r of db.eval('select x from t order by x')) rows.push(r);
    console.log(JSON.stringify({ early: /not loaded/.test(early), rows }));
  `);
  for (const how of ['bytes', 'module']) {
    const out = execFileSync('node', ['lazy.js', how], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ early: true, rows: [{ x: 1 }, { x: 2 }] });
  }
});

it('opticdb/worker: a WorkerDatabase served by a worker_threads Worker', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'db-worker.js'), `
    import { parentPort } from 'node:worker_threads';
    import { serve } from 'opticdb/worker';
    serve({ endpoint: parentPort });
  `);
  writeFileSync(join(app, 'worker-mode.js'), `
    import { Worker } from 'node:worker_threads';
    import { WorkerDatabase, ParseError } from 'opticdb/worker';
    const worker = new Worker(new URL('./db-worker.js', import.meta.url));
    const db = await WorkerDatabase.open(worker);
    await db.exec('create table t (x integer primary key)');
    await db.transaction(async (tx) => { for (let i = 1; i <= 3; i++) await tx.run('insert into t values (?)', [i]); });
    const rows = [];
    for await (const r of db.eval('select x from t order by x')) rows.push(r.x);
    let parse = false;
    try { await db.all('selec 1'); } catch (e) { parse = e instanceof ParseError && e.code === 'SYNTAX'; }
    await db.close();
    await worker.terminate();
    console.log(JSON.stringify({ rows, parse }));
  `);
  const out = execFileSync('node', ['worker-mode.js'], { cwd: app, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ rows: [1, 2, 3], parse: true });
});
