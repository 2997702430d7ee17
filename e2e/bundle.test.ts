// A real web app built from what users install: the packed tarball installed into a new hello-world
// project, a production `vite build`, the output served by a static server under a strict
// Content-Security-Policy (no 'unsafe-eval': the glue must not use eval or new Function), opened
// in Chromium. Pages: the default entry (the engine starts on import), `opticdb/lazy` given a
// compiled WebAssembly.Module, a module Web Worker, worker mode (`opticdb/worker`: the page's
// WorkerDatabase served by the app's worker file), the default entry bundled by webpack 5
// (production), and (no bundler) a plain `<script type="module">` importing the package's dist/
// as served.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import webpack from 'webpack';
import { chromiumOptions } from './harness.js';

const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'";
const jsDir = new URL('../js/', import.meta.url).pathname;
let dir = '';
let server: Server;
let browser: Browser;
let origin = '';

const files: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'hello-opticdb', private: true, type: 'module' }),
  'index.html': '<!doctype html><title>hello</title><p id="out">loading</p><script type="module" src="/main.js"></script>',
  'main.js': `
    import { Database } from 'opticdb';
    const out = document.getElementById('out');
    try {
      const db = new Database();
      await db.exec("create table greeting (id integer primary key, text text)");
      await db.exec("insert into greeting values (1, 'hello from a bundle')");
      const row = await db.get('select text from greeting where id = ?', [1]);
      out.textContent = row.text;
    } catch (e) {
      out.textContent = 'error: ' + e.message;
    }`,
  'lazy.html': '<!doctype html><title>lazy</title><p id="out">loading</p><script type="module" src="/lazy.js"></script>',
  'lazy.js': `
    import { init, Database } from 'opticdb/lazy';
    const out = document.getElementById('out');
    try {
      const module = await WebAssembly.compileStreaming(fetch('/engine/opticdb.wasm'));
      await init({ wasm: module });
      const db = new Database();
      const row = await db.get("select 'lazy ' || (6 * 7) as text");
      out.textContent = row.text;
    } catch (e) {
      out.textContent = 'error: ' + e.message;
    }`,
  'wp-main.js': `
    import { Database } from 'opticdb';
    const db = new Database();
    await db.exec('create table w (name text)');
    await db.run("insert into w values ('webpack')");
    const [row] = await db.all('select name || ' + "' bundle'" + ' as text from w');
    document.getElementById('out').textContent = row.text;`,
  'worker.html': '<!doctype html><title>worker</title><p id="out">loading</p><script type="module" src="/start-worker.js"></script>',
  'start-worker.js': `
    const out = document.getElementById('out');
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (e) => { out.textContent = e.data; };
    worker.onerror = (e) => { out.textContent = 'error: ' + e.message; };`,
  'worker.js': `
    import { Database } from 'opticdb';
    const db = new Database();
    await db.exec('create table n (v integer)');
    await db.exec('insert into n values (20), (22)');
    const row = await db.get('select sum(v) as s from n');
    postMessage('worker sum ' + row.s);`,
  // Worker mode: the page opens its database in the app's own worker file, which serves it.
  'worker-mode.html': '<!doctype html><title>worker mode</title><p id="out">loading</p><script type="module" src="/worker-mode.js"></script>',
  'worker-mode.js': `
    import { WorkerDatabase } from 'opticdb/worker';
    const out = document.getElementById('out');
    try {
      const worker = new Worker(new URL('./db-worker.js', import.meta.url), { type: 'module' });
      const db = await WorkerDatabase.open(worker, { storage: 'indexeddb', name: 'bundle' });
      await db.exec('create table if not exists g (id integer primary key, text text)');
      await db.run('insert into g values (?, ?)', [1, 'worker mode']);
      const rows = [];
      for await (const r of db.eval('select text from g')) rows.push(r.text);
      let code = '';
      try { await db.exec('selec 1'); } catch (e) { code = (e instanceof Error) + ' ' + e.code + ' ' + e.line + ':' + e.column; }
      await db.close();
      const wasmHere = performance.getEntriesByType('resource').some((e) => e.name.includes('.wasm'));
      out.textContent = rows.join() + ', ' + code + ', wasm on the page: ' + wasmHere;
    } catch (e) {
      out.textContent = 'error: ' + e.message;
    }`,
  'db-worker.js': `
    import { serve } from 'opticdb/worker';
    serve();`,
};

const types: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css',
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opticdb-bundle-'));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: jsDir });
  const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  const app = join(dir, 'app');
  mkdirSync(app);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(app, name), text);
  execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', tarball], { cwd: app });
  // The lazy page's wasm, served from a path of the app's choosing (Vite copies public/ as is).
  mkdirSync(join(app, 'public', 'engine'), { recursive: true });
  copyFileSync(join(app, 'node_modules', 'opticdb', 'dist', 'opticdb.wasm'), join(app, 'public', 'engine', 'opticdb.wasm'));
  await build({
    root: app, configFile: false, logLevel: 'error', mode: 'production',
    build: {
      target: 'es2022', outDir: join(app, 'dist'),
      rolldownOptions: { input: ['index.html', 'lazy.html', 'worker.html', 'worker-mode.html'].map((p) => join(app, p)) },
    },
    worker: { format: 'es' },
  });
  const root = join(app, 'dist');
  // The same kind of app bundled by webpack 5 (production), into dist/wp.
  await new Promise<void>((resolve, reject) => {
    webpack({ mode: 'production', context: app, entry: './wp-main.js', performance: { hints: false },
              output: { path: join(root, 'wp'), filename: 'main.js' } },
            (err, stats) => (err || stats?.hasErrors() ? reject(err ?? new Error(stats!.toString('errors-only'))) : resolve()));
  });
  writeFileSync(join(root, 'wp', 'index.html'),
                '<!doctype html><title>webpack</title><p id="out">loading</p><script src="main.js"></script>');
  // No bundler: the package's files served as they are, imported by a page's module script.
  cpSync(join(app, 'node_modules', 'opticdb', 'dist'), join(root, 'plain', 'opticdb'), { recursive: true });
  writeFileSync(join(root, 'plain', 'index.html'),
                '<!doctype html><title>plain</title><p id="out">loading</p><script type="module" src="main.js"></script>');
  writeFileSync(join(root, 'plain', 'main.js'), `
    import { Database } from './opticdb/index.browser.js';
    const db = new Database();
    const row = await db.get("select 'no bundler' as text");
    document.getElementById('out').textContent = row.text;`);
  server = createServer((req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    const path = normalize(decodeURIComponent(new URL(req.url!, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream',
                           'content-security-policy': csp });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await chromium.launch(chromiumOptions);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Opens `page` of the built app; returns what #out ends up showing, and every CSP violation and
// uncaught error seen meanwhile.
async function show(page: string): Promise<{ text: string; problems: string[] }> {
  const tab = await browser.newPage();
  const problems: string[] = [];
  tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  tab.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  try {
    await tab.goto(`${origin}/${page}`);
    // On a timeout the text stays 'loading' and the problems say why.
    await tab.waitForFunction(() => document.getElementById('out')?.textContent !== 'loading', null, { timeout: 20_000 })
      .catch(() => {});
    return { text: (await tab.locator('#out').textContent()) ?? '', problems };
  } finally {
    await tab.close();
  }
}

it('the production build needs no eval: the glue has none', () => {
  const glue = readFileSync(join(dir, 'app', 'node_modules', 'opticdb', 'dist', 'opticdb.mjs'), 'utf8');
  expect(glue).not.toMatch(/\beval\s*\(|new\s+Function\b|(?<![.\w$])Function\s*\(/);
});

it('a vite build of the default entry shows its row under a strict CSP', async () => {
  expect(await show('index.html')).toEqual({ text: 'hello from a bundle', problems: [] });
});

it('opticdb/lazy starts from a compiled WebAssembly.Module under the same CSP', async () => {
  expect(await show('lazy.html')).toEqual({ text: 'lazy 42', problems: [] });
});

it('a webpack 5 production build of the default entry runs under the same CSP', async () => {
  expect(await show('wp/index.html')).toEqual({ text: 'webpack bundle', problems: [] });
});

it('a plain <script type="module"> page imports the package without a bundler', async () => {
  expect(await show('plain/index.html')).toEqual({ text: 'no bundler', problems: [] });
});

it('the engine runs in a module Web Worker of the built app', async () => {
  expect(await show('worker.html')).toEqual({ text: 'worker sum 42', problems: [] });
});

it('opticdb/worker: the page queries a database its worker serves, and loads no wasm itself', async () => {
  expect(await show('worker-mode.html'))
    .toEqual({ text: 'worker mode, true SYNTAX 1:1, wasm on the page: false', problems: [] });
});
