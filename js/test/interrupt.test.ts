// Stopping statements (js/README.md, "Stopping a statement"): `timeout` bounds a call that would
// never return, `signal` is seen before a call and between row batches, `db.interrupt()` stops
// what is being iterated, `shouldInterrupt` is polled inside the engine; each rolls the statement
// back as a failing one is and leaves the database usable. Then worker mode in a real worker
// thread, where interrupt() and an AbortSignal reach a statement while it runs (through memory
// shared with the worker). Last, both shells interrupt the running statement on Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, Database, MisuseError, OpticError } from 'opticdb';
import { WorkerDatabase } from 'opticdb/worker';
import { nativeCli } from './native_cli.js';

// A recursion whose condition never fails: n < json('{}') is never false.
const runaway = "with recursive r(n) as (select 1 union all select n + 1 from r where n < json('{}')) select count(*) as n from r";

let db: Database;
beforeEach(async () => {
  db = new Database();
  await db.exec('create table t (x integer primary key)');
});
afterEach(async () => {
  await db.close();
});

async function interrupted(p: Promise<unknown>): Promise<number> {
  const start = performance.now();
  const e = await p.then(() => null, (err) => err);
  const ms = performance.now() - start;
  expect(e).toBeInstanceOf(OpticError);
  expect(e.code).toBe('INTERRUPT');
  expect(e.message).toBe('interrupted');
  return ms;
}

describe('timeout', () => {
  it('stops a runaway query in every kind of call, and the database stays usable', async () => {
    const ms = await interrupted(db.all(runaway, [], { timeout: 50 }));
    expect(ms).toBeLessThan(2000);
    await interrupted(db.get(runaway, [], { timeout: 20 }));
    await interrupted(db.exec(runaway, undefined, { timeout: 20 }));
    await interrupted(db.run(`insert into t ${runaway.replace('count(*) as n', 'n')}`, [], { timeout: 20 }));
    await interrupted(db.prepare(runaway).all([], { timeout: 20 }).next());
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 0 });  // the insert rolled back
    expect(await db.all('select count(*) as n from generate_series(1, 20000)')).toEqual([{ n: 20000 }]);
  });

  it('lets a call that ends in time finish', async () => {
    expect(await db.get('select count(*) as n from generate_series(1, 1000)', [], { timeout: 10_000 })).toEqual({ n: 1000 });
  });

  it('rolls back only the statement inside a transaction', async () => {
    await db.transaction(async (tx) => {
      await tx.run('insert into t values (1)');
      await interrupted(tx.all(runaway, [], { timeout: 20 }));
      await tx.run('insert into t values (2)');
    });
    expect(await db.all('select x from t order by x')).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it('must be a non-negative number', async () => {
    await expect(db.all('select 1', [], { timeout: -1 })).rejects.toBeInstanceOf(MisuseError);
  });
});

describe('signal', () => {
  it('refuses to start once aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(db.all('select 1', [], { signal: ac.signal })).rejects.toBeInstanceOf(AbortError);
    await expect(db.exec('insert into t values (1)', undefined, { signal: ac.signal })).rejects.toBeInstanceOf(AbortError);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 0 });
  });

  it('stops an iterated result between batches and rolls back what it wrote', async () => {
    const ac = new AbortController();
    let seen = 0;
    const loop = async () => {
      for await (const _ of db.eval('insert into t select value from generate_series(1, 5000) returning x', [],
                                    { signal: ac.signal })) {
        if (++seen === 1) ac.abort();
      }
    };
    await expect(loop()).rejects.toBeInstanceOf(AbortError);
    expect(seen).toBeLessThan(5000);
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 0 });
  });
});

describe('db.interrupt()', () => {
  it('stops the result being iterated at its next batch', async () => {
    let seen = 0;
    const loop = async () => {
      for await (const _ of db.eval('select value from generate_series(1, 100000)')) {
        if (++seen === 10) db.interrupt();
      }
    };
    const e = await loop().then(() => null, (err) => err);
    expect(e?.code).toBe('INTERRUPT');
    expect(seen).toBeLessThan(100000);
    expect(await db.get('select 1 as one')).toEqual({ one: 1 });  // the request is gone
  });

  it('is dropped when nothing runs', async () => {
    db.interrupt();
    expect(await db.get('select count(*) as n from generate_series(1, 5000)')).toEqual({ n: 5000 });
  });
});

describe('shouldInterrupt', () => {
  it('is asked while a statement runs and stops it when it says so', async () => {
    let asked = 0;
    const ms = await interrupted(db.all(runaway, [], { shouldInterrupt: () => ++asked > 5 }));
    expect(ms).toBeLessThan(2000);
    expect(asked).toBe(6);
    // A write stopped so is rolled back; one whose poll says go runs to its end.
    await interrupted(db.run(`insert into t ${runaway.replace('count(*) as n', 'n')}`, [], { shouldInterrupt: () => ++asked > 10 }));
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 0 });
    await db.run('insert into t select value from generate_series(1, 50000)', [], { shouldInterrupt: () => false });
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 50000 });
  });

  it('is asked before each batch of an iterated result', async () => {
    let stop = false;
    let seen = 0;
    const loop = async () => {
      for await (const _ of db.eval('select value from generate_series(1, 100000)', [], { shouldInterrupt: () => stop })) {
        if (++seen === 10) stop = true;
      }
    };
    const e = await loop().then(() => null, (err) => err);
    expect(e?.code).toBe('INTERRUPT');
    expect(seen).toBeLessThan(100000);
  });

  it('stops the statement when it throws, and must be a function', async () => {
    let k = 0;
    await interrupted(db.all(runaway, [], { shouldInterrupt: () => { if (++k > 3) throw new Error('boom'); return false; } }));
    expect(k).toBe(4);  // asked at the start, then inside the engine until it threw
    await expect(db.all('select 1', [], { shouldInterrupt: 1 as never })).rejects.toBeInstanceOf(MisuseError);
    expect(await db.get('select 1 as one')).toEqual({ one: 1 });
  });
});

describe('worker mode in a worker thread', () => {
  const workers: Worker[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.terminate();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  async function connect(options = {}): Promise<WorkerDatabase> {
    const worker = new Worker(new URL('./fixtures/serve-worker.mjs', import.meta.url));
    workers.push(worker);
    return WorkerDatabase.open(worker as never, options);
  }
  const later = (ms: number, f: () => void) => setTimeout(f, ms);

  it('interrupt() stops the statement running in the worker; later calls run', async () => {
    const wdb = await connect();
    await wdb.exec('create table t (x integer primary key)');
    const running = wdb.all(runaway);
    later(300, () => wdb.interrupt());
    const ms = await interrupted(running);
    expect(ms).toBeLessThan(5000);
    expect(await wdb.get('select count(*) as n from generate_series(1, 5000)')).toEqual({ n: 5000 });
    // A write: rolled back, and only it inside a transaction.
    await wdb.transaction(async (tx) => {
      await tx.run('insert into t values (1)');
      const write = tx.run(`insert into t ${runaway.replace('count(*) as n', 'n')}`);
      later(200, () => wdb.interrupt());
      await interrupted(write);
      await tx.run('insert into t values (2)');
    });
    expect(await wdb.all('select x from t order by x')).toEqual([{ x: 1 }, { x: 2 }]);
    await wdb.close();
  });

  it('an AbortSignal stops its own call only, with an AbortError', async () => {
    const wdb = await connect();
    const ac = new AbortController();
    const start = performance.now();
    const running = wdb.get(runaway, [], { signal: ac.signal });
    // A call queued behind it, aborted first: only the queued one is stopped then.
    const other = new AbortController();
    const queued = wdb.get('select 2 as two', [], { signal: other.signal });
    later(200, () => other.abort());
    later(600, () => ac.abort());
    await expect(running).rejects.toBeInstanceOf(AbortError);
    expect(performance.now() - start).toBeGreaterThanOrEqual(550);
    await expect(queued).rejects.toBeInstanceOf(AbortError);
    expect(await wdb.get('select 3 as three')).toEqual({ three: 3 });
    await wdb.close();
  });

  it('timeout reaches the worker', async () => {
    const wdb = await connect();
    const st = wdb.prepare(runaway);
    await interrupted(st.get([], { timeout: 50 }));
    await interrupted(wdb.all(runaway, [], { timeout: 50 }));
    await st.finalize();
    await wdb.close();
  });

  it('a file database with 100k indexed rows keeps exactly its committed rows across an interrupted write and a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opticdb-interrupt-'));
    dirs.push(dir);
    const path = join(dir, 'app.odb');
    let wdb = await connect({ storage: 'file', path });
    await wdb.exec('create table ev (id integer primary key, kind integer, at integer); create index ev_kind on ev(kind)');
    await wdb.run('insert into ev select value, value % 97, value * 3 from generate_series(1, 100000)');
    // Rewrites every row through the index, forever (the cross join never ends in time).
    const write = wdb.run('update ev set at = at + (select count(*) from ev a join ev b on a.kind = b.kind where a.kind = ev.kind) where kind >= 0');
    later(300, () => wdb.interrupt());
    await interrupted(write);
    expect(await wdb.get('select count(*) as n, sum(at) as s from ev where kind = 5')).toEqual({ n: 1031, s: expect.any(Number) });
    const before = await wdb.get<{ s: number }>('select sum(at) as s from ev');
    await wdb.close();
    wdb = await connect({ storage: 'file', path });
    expect(await wdb.get('select sum(at) as s from ev')).toEqual(before);
    expect(before!.s).toBe(3 * 100000 * 100001 / 2);
    expect(await wdb.get('select count(*) as n from ev where kind = 96')).toEqual({ n: 1030 });
    await wdb.close();
  });
});

describe('running out of memory', () => {
  // A string doubled by a recursive CTE reaches the wasm heap's 2 GiB before the 1 GiB value
  // limit (the CTE keeps every row): the allocation fails, and the statement with it.
  it('fails the statement with "out of memory" (code ERROR); the database keeps its rows and works', async () => {
    await db.exec('insert into t values (1), (2), (3)');
    const e = await db.all("with recursive d(s, n) as (select 'x', 0 union all select s || s, n + 1 from d where n < 40) " +
                           'select max(length(s)) as m from d').then(() => null, (err) => err);
    expect(e).toBeInstanceOf(OpticError);
    expect([e.code, e.message]).toEqual(['ERROR', 'out of memory']);
    expect(await db.all('select x from t order by x')).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }]);
    await db.run('insert into t values (4)');
    expect(await db.get('select count(*) as n from t')).toEqual({ n: 4 });
  }, 60_000);
});

describe('the native shell', () => {
  it('interrupts the running statement on Ctrl-C and ends the script', async () => {
    expect(existsSync(nativeCli), `${nativeCli} is not built (native build: build/, or set OPTIC_NATIVE_CLI)`).toBe(true);
    const child = spawn(nativeCli, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(`${runaway};\nselect 42;\n`);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 500));
    const sent = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    expect(performance.now() - sent).toBeLessThan(5000);
    expect(stderr).toBe('Error: interrupted\n');
    expect(stdout).not.toContain('42');
    expect(code).toBe(130);
  });
});

describe('the Node shell', () => {
  const shell = fileURLToPath(new URL('../bin/opticdb.mjs', import.meta.url));
  // Starts the shell on `script`, sends Ctrl-C once the statement before the runaway has printed.
  async function ctrlC(args: string[], script: string) {
    const child = spawn(process.execPath, [shell, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.end(script);
    const end = Date.now() + 20_000;
    while (!stdout.includes('started') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    const sent = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    return { stdout, stderr, code, ms: performance.now() - sent };
  }

  it('interrupts the running statement on Ctrl-C and ends the script, as the native shell does', async () => {
    const r = await ctrlC([], `select 'started' as s;\n${runaway};\nselect 42;\n`);
    expect(r.ms).toBeLessThan(5000);
    expect(r.stderr).toBe('Error: interrupted\n');
    expect(r.stdout).toContain('started');
    expect(r.stdout).not.toContain('42');
    expect(r.code).toBe(130);
  });

  it('rolls back the interrupted write of a file database and keeps what was committed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opticdb-shell-'));
    try {
      const path = join(dir, 'app.odb');
      const r = await ctrlC([path], 'create table t (x integer primary key);\n' +
        'insert into t select value from generate_series(1, 1000);\n' +
        `select 'started' as s;\ninsert into t ${runaway.replace('count(*) as n', 'n + 1000')};\n`);
      expect([r.stderr, r.code]).toEqual(['Error: interrupted\n', 130]);
      const db = await Database.open({ storage: 'file', path });
      expect(await db.get('select count(*) as n, max(x) as m from t')).toEqual({ n: 1000, m: 1000 });
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
