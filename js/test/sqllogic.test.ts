// The JS conformance runner (js/bin/opticdb-sqllogic.mjs) on small .sqllogic files written here:
// its output contract (per-file lines, --quiet, the closing line, --json, --ratchet, exit
// status), the block semantics and value conversions of test-corpus.md §1–2, and that a hang
// fails only its own file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const runner = fileURLToPath(new URL('../bin/opticdb-sqllogic.mjs', import.meta.url));
let dir: string;

function file(name: string, lines: string[]): string {
  const path = join(dir, `${name}.sqllogic`);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}
function run(...args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status, lines: r.stdout.split('\n') };
}

let good: string, bad: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opticdb-sqllogic-'));
  writeFileSync(join(dir, 'areas.tsv'), 'good\tarea-a\nbad.sqllogic\tarea-b\n');
  good = file('good', [
    '-- a plain comment',
    'create table t (id integer primary key, v text null);',
    "insert into t values (1, 'a'), (2, null);",
    '-- run',
    'select id, v from t order by id;',
    '→ [{"id":1,"v":"a"},{"id":2,"v":null}]',
    "insert into t values (3, 'c'); select count(*) as n from t",
    '→ [{"n":3}]',
    '-- params: {"k": 2}',
    'select v is null from t where id = :k',
    '→ [true]',
    '-- params: [3]',
    'select 10 - ?',
    '→ [7]',
    "select x'0102' as b, 9007199254740993 as big, 1 = 1 as yes",
    '→ [{"b":{"0":1,"1":2},"big":9007199254740992,"yes":true}]',
    "insert into t values (1, 'dup')",
    '-- error: unique',
    'select nosuch from t',
    '-- error:',
    'select 1 as x, 2 as x',
    '→ [{"x":1,"x:1":2}]',
  ]);
  bad = file('bad', [
    'select 1 as a',
    '→ [{"a":1}]',
    'select 1 as a',
    '→ [{"a":2}]',
    'select 3 as never_reached',
    '→ [{"never_reached":3}]',
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('opticdb-sqllogic.mjs', () => {
  it('passes a file whose blocks all match; reports per file, per area, and one closing line', () => {
    const r = run(good);
    expect(r.stderr).toBe('');
    expect(r.lines[0]).toBe('PASS good');
    expect(r.stdout).toMatch(/^area-a +1\/1 +9\/9$/m);
    expect(r.stdout).toMatch(/^total +1\/1 +9\/9$/m);
    expect(r.lines.filter((l) => l !== '').at(-1)).toBe('1 passed, 0 failed');
    expect(r.status).toBe(0);
  });

  it('fails a file at its first mismatch, says where and what, and exits 1', () => {
    const r = run(good, bad);
    expect(r.stdout).toContain('FAIL bad: block 2 (line 4): row 0: expected {"a":2} actual {"a":1}\n');
    expect(r.stdout).toMatch(/^area-b +0\/1 +1\/3$/m);
    expect(r.stdout).toMatch(/^total +1\/2 +10\/12$/m);
    expect(r.stdout.trimEnd().endsWith('\n1 passed, 1 failed')).toBe(true);
    expect(r.status).toBe(1);
  });

  it('--quiet prints FAIL lines only; --json writes the report', () => {
    const report = join(dir, 'report.json');
    const r = run('--quiet', '--json', report, dir);
    expect(r.stdout).not.toContain('PASS good');
    expect(r.stdout).toContain('FAIL bad:');
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.map((f: any) => [f.file, f.passed, f.blocksPassed, f.blocksTotal])).toEqual([
      ['bad', false, 1, 3],
      ['good', true, 9, 9],
    ]);
    expect(json[0].firstFailure).toMatch(/^block 2 \(line 4\): /);
  });

  it('--ratchet fails only on a listed file that regressed', () => {
    const listed = join(dir, 'passing.txt');
    writeFileSync(listed, '# ratchet\ngood\n');
    const ok = run('--quiet', '--ratchet', listed, dir);
    expect(ok.stdout).toContain(`ratchet ${listed}: 0 regression(s), 0 passing file(s) not yet listed`);
    expect(ok.status).toBe(0);
    writeFileSync(listed, 'good\nbad\n');
    const regressed = run('--quiet', '--ratchet', listed, dir);
    expect(regressed.stdout).toContain('REGRESSION bad: block 2 (line 4):');
    expect(regressed.status).toBe(1);
  });

  it('a malformed capability directive fails the file; an expected error must occur', () => {
    const caps = file('caps', ['-- requires-capability: time-travel', 'select 1 as a', '→ [{"a":1}]']);
    const noError = file('noerror', ['select 1 as a', '-- error: anything']);
    const r = run(caps, noError);
    expect(r.stdout).toContain('FAIL caps: capability directive: [caps.sqllogic:1] unknown capability "time-travel"');
    expect(r.stdout).toContain('FAIL noerror: block 1 (line 2): expected error containing "anything" but the block succeeded');
  });

  it('a file that hangs is cut off after the timeout; the next file still runs', () => {
    const hang = file('hang', [
      'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) as n from c',
      '→ [{"n":0}]',
    ]);
    const r = run('--timeout', '1', hang, good);
    expect(r.stdout).toContain('FAIL hang: block 1 (line 2): timeout: killed after 2 s');
    expect(r.stdout).toContain('PASS good');
    expect(r.status).toBe(1);
  });

  it('--module store runs each file on a fresh IndexedDB database, where text keys collate NOCASE', () => {
    // store.md §8: an undecorated text primary key is NOCASE in the store, BINARY in memory.
    const nocase = file('nocase', [
      'create table k (x text primary key);',
      "insert into k values ('a');",
      '',
      "insert into k values ('A');",
      '-- error: UNIQUE',
    ]);
    expect(run('--module', 'store', nocase, good).stdout).toMatch(/PASS good\nPASS nocase\n/);
    const memory = run(nocase);
    expect(memory.stdout).toContain('FAIL nocase: block 1 (line 5): expected error containing "UNIQUE" but the block succeeded');
  });

  it('refuses an unknown module and unknown options with exit status 2', () => {
    expect(run('--module', 'disk', good).status).toBe(2);
    expect(run('--frobnicate', good).status).toBe(2);
    expect(run().status).toBe(2);
  });
});
