// Stopping statements (js/README.md, "Stopping a statement"): `timeout` bounds a call that would
// never return, `signal` is seen before a call and between row batches, `db.interrupt()` stops
// what is being iterated; each rolls the statement back as a failing one is and leaves the
// database usable. Last, the native shell interrupts the running statement on Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, Database, MisuseError, OpticError } from 'opticdb';
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
