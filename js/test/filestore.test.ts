// The file store (storage 'file', js/src/filestore.ts): real files in a temp dir, the real wasm
// build, the native CLI (build/tools/opticdb) for interop, a child Node process killed with
// SIGKILL for crash safety. No mocks.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Database, MisuseError, StorageError, type SqlValue } from 'opticdb';
import { expectValueRows, writeValueRows } from './value_types.js';
import { native, repo } from './native_cli.js';

const writer = fileURLToPath(new URL('./fixtures/filestore-writer.mjs', import.meta.url));
const limited = fileURLToPath(new URL('./fixtures/filestore-limited.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'opticdb-filestore-'));
let counter = 0;
const freshPath = () => join(dir, `db-${counter++}.odb`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = (path: string, more: object = {}) => Database.open({ storage: 'file', path, ...more });

async function rows(db: Database, sql: string): Promise<SqlValue[][]> {
  const out: SqlValue[][] = [];
  const st = db.prepare(sql);
  try {
    for await (const r of st.iterateRows()) out.push(r);
  } finally {
    st.finalize();
  }
  return out;
}

// The byte offset where the last record of the file starts (walking the u32 length headers).
function lastRecordStart(path: string): number {
  const data = readFileSync(path);
  let at = 8;
  let last = -1;
  while (at + 8 <= data.length) {
    last = at;
    at += 8 + data.readUInt32LE(at);
  }
  return last;
}

describe('file store', () => {
  it('every value type and every index survive a reopen; the file is the native format', async () => {
    const path = freshPath();
    const db = await open(path);
    expect(db.persistent).toBe(true);
    await writeValueRows(db);
    await db.close();
    expect(readFileSync(path).subarray(0, 8).toString('latin1')).toBe('OPTICDB1');

    const again = await open(path);
    expect(again.loadErrors).toEqual([]);
    // Every table is loaded at open: a synchronous first read works.
    await expectValueRows(again, again.prepare('select * from v order by id').allRows());
    await again.close();
  });

  it('100 transactions come back; a rolled-back transaction and memory tables leave nothing', async () => {
    const path = freshPath();
    const db = await open(path, { durability: 'relaxed' });
    await db.exec('create table t (id integer primary key, grp integer, name text); create index t_grp on t (grp);' +
                  'create table scratch (id integer primary key) using memory; insert into scratch values (1)');
    const ins = db.prepare('insert into t values (?, ?, ?)');
    for (let txn = 0; txn < 100; txn++) {
      await db.beginTransaction();
      for (let k = 0; k < 3; k++) await ins.run([txn * 3 + k, txn % 7, `n${txn}`]);
      await db.commit();
    }
    await db.beginTransaction();
    await ins.run([1000, 1, 'rolled back']);
    await db.exec("update t set name = 'rolled back' where id < 10; delete from t where id > 200");
    await db.rollback();
    await db.exec("update t set name = 'changed' where id = 7");
    ins.finalize();
    await db.close();

    const again = await open(path);
    expect(await again.get('select count(*) as n, count(distinct name) as names from t')).toEqual({ n: 300, names: 101 });  // n0…n99 and 'changed'
    expect(await again.get("select count(*) as n from t where name = 'rolled back' or id = 1000")).toEqual({ n: 0 });
    expect(await again.get('select name from t where id = 7')).toEqual({ name: 'changed' });
    expect(await again.get('select count(*) as n from t where grp = 3')).toEqual({ n: 42 });
    await expect(again.exec('select * from scratch')).rejects.toThrow(/scratch/);
    await again.close();
  });

  it('the native CLI reads a file Node wrote, and Node reads a file the native CLI wrote', async () => {
    const fromNode = freshPath();
    const db = await open(fromNode);
    await db.exec("create table t (id integer primary key, name text null, score real null); create index t_name on t (name);" +
                  "insert into t values (1, 'node', 1.5), (2, null, -2.0), (3, 'it''s', 3.25)");
    await db.exec('drop index t_name; delete from t where id = 2');
    await db.close();
    expect(native(fromNode, "select id, name, score from t order by id;\ninsert into t values (4, 'native', 4.0);\n")).toBe(
      '+----+------+-------+\n' +
      '| id | name | score |\n' +
      '+----+------+-------+\n' +
      '|  1 | node |   1.5 |\n' +
      "|  3 | it's |  3.25 |\n" +
      '+----+------+-------+\n');
    const back = await open(fromNode);
    expect(await rows(back, 'select id, name from t order by id')).toEqual([[1, 'node'], [3, "it's"], [4, 'native']]);
    await back.close();

    const fromNative = freshPath();
    native(fromNative, "create table n (k text primary key, v integer, b blob null);\n" +
                       "create index n_v on n (v);\n" +
                       "insert into n values ('a', 1, x'00ff'), ('b', 2, null), ('c', 3, null);\n" +
                       "begin; delete from n where k = 'b'; commit;\n" +
                       "begin; insert into n values ('z', 26, null); rollback;\n");
    const nat = await open(fromNative);
    expect(await rows(nat, 'select k, v, b from n order by k')).toEqual([['a', 1, new Uint8Array([0, 255])], ['c', 3, null]]);
    expect(await nat.get('select k from n where v = 3')).toEqual({ k: 'c' });
    await nat.close();
  });

  for (const damage of ['truncated in the middle', 'a byte flipped inside'] as const) {
    it(`a last record ${damage} is dropped on reopen; the file is writable afterwards`, async () => {
      const path = freshPath();
      const db = await open(path);
      await db.exec('create table t (id integer primary key, v text)');
      for (let i = 1; i <= 5; i++) await db.exec(`insert into t values (${i}, '${'v'.repeat(50)}')`);
      const start = lastRecordStart(path);  // row 5's record; the clean-shutdown marker follows it
      const size = statSync(path).size;
      await db.close();
      if (damage === 'truncated in the middle') {
        truncateSync(path, start + Math.floor((size - start) / 2));
      } else {
        const data = readFileSync(path);
        data[start + 8 + Math.floor((size - start - 8) / 2)] ^= 0x40;
        writeFileSync(path, data);
      }
      const again = await open(path);
      expect(await rows(again, 'select id from t order by id')).toEqual([[1], [2], [3], [4]]);
      expect(statSync(path).size).toBe(start);  // the bad tail is gone from the file
      await again.exec("insert into t values (6, 'after')");
      await again.close();
      const third = await open(path);
      expect(await rows(third, 'select id from t order by id')).toEqual([[1], [2], [3], [4], [6]]);
      await third.close();
      // The native store agrees.
      expect(native(path, 'select count(*) as n from t;\n')).toContain('| 5 |');
    });
  }

  it('a write the kernel refuses fails the statement with a StorageError, memory reverts, the database goes on', async () => {
    const path = freshPath();
    // 16 KiB file size limit: the 40 KB commit gets EFBIG (Node ignores SIGXFSZ).
    const r = spawnSync('bash', ['-c', 'ulimit -f 16; exec "$0" "$1" "$2"', process.execPath, limited, path], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatchObject({ name: 'StorageError', code: 'FULL' });
    expect(out.error.message).toMatch(/^cannot write .*EFBIG.*; commits \d+\.\.\d+ were rolled back$/);
    expect(out.after).toEqual({ n: 1 });
    // The live query saw the lost row, the stored result again, then the next commit.
    expect(out.seen).toEqual([1, 2, 1, 2]);
    const db = await open(path);
    expect(await rows(db, 'select id, v from t order by id')).toEqual([[1, 'small'], [3, 'small again']]);
    await db.close();
  });

  it('after SIGKILL at random moments the file holds exactly a prefix of the commits, with every printed one', async () => {
    const path = freshPath();
    const setup = await open(path);
    await setup.exec('create table t (id integer primary key, v text); create table u (id integer primary key);' +
                     'create table c (id integer primary key, n integer, pad text); insert into c values (1, 0, \'\')');
    await setup.close();
    let printedMax = 0;
    for (let round = 0; round < 24; round++) {
      // Rounds alternate durability, and kill either while committing or at any moment from the
      // start (while opening and replaying, too).
      const printed = await runWriterUntilKilled(path, round % 2 ? 'relaxed' : 'strict', round % 4 < 2);
      printedMax = Math.max(printedMax, ...printed);
      const db = await open(path);
      const t = (await rows(db, 'select id from t order by id')).map((r) => Number(r[0]));
      const u = (await rows(db, 'select id from u order by id')).map((r) => Number(r[0]));
      const c = await db.get('select n from c');
      await db.close();
      // A prefix 1..k (no gap, no half transaction) holding every id the writer printed.
      expect(t).toEqual(Array.from({ length: t.length }, (_, i) => i + 1));
      expect(u).toEqual(t);
      expect(c).toEqual({ n: t.length });
      expect(t.length).toBeGreaterThanOrEqual(printedMax);
    }
    expect(printedMax).toBeGreaterThan(20);
  }, 180_000);

  it('a second open of the same file fails while the first is open, and succeeds after close; a dead owner\'s lock is taken over', async () => {
    const path = freshPath();
    const db = await open(path);
    const e = await open(path).catch((x) => x);
    expect(e).toBeInstanceOf(StorageError);
    expect(e.code).toBe('BUSY');
    expect(e.message).toMatch(/in use by another Database of this process/);
    await db.exec('create table t (id integer primary key); insert into t values (1)');
    await db.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    const again = await open(path);
    expect(await again.get('select count(*) as n from t')).toEqual({ n: 1 });
    await again.close();
    // A lock file left by a process that is gone.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(`${path}.lock`, dead.stdout);
    const third = await open(path);
    expect(await third.get('select count(*) as n from t')).toEqual({ n: 1 });
    await third.close();
  });

  it('compacts the log into one snapshot record; the reopened data is the same', async () => {
    const path = freshPath();
    const db = await open(path, { compactMinBytes: 16 * 1024, durability: 'relaxed' });
    await db.exec('create table t (id integer primary key, v text); create index t_v on t (v)');
    const upd = db.prepare('insert into t values (?, ?) on conflict (id) do update set v = excluded.v');
    let largest = 0;
    for (let i = 0; i < 2000; i++) {
      await upd.run([i % 50, `value ${i} ${'x'.repeat(40)}`]);
      largest = Math.max(largest, statSync(path).size);
    }
    upd.finalize();
    const expected = await rows(db, 'select id, v from t order by id');
    await db.close();
    // Rewriting 50 rows 40 times over would make a log of well over 200 KiB without compaction.
    expect(largest).toBeLessThan(64 * 1024);
    expect(statSync(path).size).toBeLessThan(64 * 1024);
    expect(existsSync(`${path}.compact`)).toBe(false);
    const again = await open(path);
    expect(await rows(again, 'select id, v from t order by id')).toEqual(expected);
    expect(await again.get("select id from t where v = 'value 1999 " + 'x'.repeat(40) + "'")).toEqual({ id: 49 });
    await again.close();
    expect(native(path, 'select count(*) as n from t;\n')).toContain('| 50 |');
  });

  it("storage 'file' without the Node entry (as in a browser) fails with a MisuseError; the browser entry never loads node:fs", () => {
    const dist = join(repo, 'js/dist');
    const script = `import { Database } from ${JSON.stringify(join(dist, 'database.js'))};
      Database.open({ storage: 'file', path: 'x.odb' }).then(() => console.log('opened'), (e) => console.log(e.name, e.message));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/^MisuseError storage 'file' needs Node/);
    // The modules the browser entry reaches, statically.
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const src = readFileSync(join(dist, file), 'utf8');
      for (const m of src.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        const spec = m[1] ?? m[2];
        expect(spec.startsWith('node:'), `${file} imports ${spec}`).toBe(false);
        if (spec.startsWith('./') || spec.startsWith('../')) visit(join(dirname(file), spec));  // relative to dist
      }
    };
    visit('index.browser.js');
    expect(seen.has('filestore.js')).toBe(false);
    expect(seen.has('database.js')).toBe(true);
  });

  it('the Node shell opens a file database like the native CLI (`npx opticdb app.odb`)', () => {
    const path = freshPath();
    const shell = join(repo, 'js/bin/opticdb.mjs');
    const node = (sql: string) => spawnSync(process.execPath, [shell, path], { input: sql, encoding: 'utf8', timeout: 30_000 });
    expect(node("create table t (id integer primary key, v text);\ninsert into t values (1, 'shell');\n").status).toBe(0);
    const r = node('select id, v from t;\n');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(native(path, 'select id, v from t;\n'));
    expect(r.stdout).toContain('|  1 | shell |');
  });

  it('needs a path, and a byte count for compactMinBytes', async () => {
    await expect(Database.open({ storage: 'file' })).rejects.toBeInstanceOf(MisuseError);
    await expect(open(freshPath(), { compactMinBytes: Number.NaN })).rejects.toBeInstanceOf(MisuseError);
  });
});

// Starts the writer on `path` and kills it with SIGKILL after a random delay, counted from its
// first printed commit (`afterFirst`) or from its start; resolves with the ids it printed.
function runWriterUntilKilled(path: string, durability: string, afterFirst: boolean): Promise<number[]> {
  return new Promise((resolve, reject) => {
    // A small compaction threshold: some kills land in a compaction (.compact written, renamed).
    const child = spawn(process.execPath, [writer, path, durability, String(8 * 1024)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: ReturnType<typeof setTimeout> | null = afterFirst ? null : setTimeout(() => child.kill('SIGKILL'), Math.random() * 600);
    child.stdout.on('data', (d) => {
      out += d;
      if (!timer) timer = setTimeout(() => child.kill('SIGKILL'), Math.random() * 150);
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited (${code}) before it was killed: ${err}`));
      else resolve(out.split('\n').filter((l) => /^\d+$/.test(l)).map(Number));
    });
  });
}
