// The Node shell (js/bin/opticdb.mjs, the package's bin): scripts piped into it, their output and
// exit status; then the same scripts through the native CLI (build/tools/opticdb), which the
// Node shell must match byte for byte on stdout and stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const shell = join(repo, 'js/bin/opticdb.mjs');
const nativeCli = process.env.OPTIC_NATIVE_CLI ?? join(repo, 'build/tools/opticdb');

interface Run {
  stdout: string;
  stderr: string;
  status: number | null;
}
function run(cmd: string, args: string[], input = ''): Run {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', timeout: 30_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}
const node = (input: string, ...args: string[]) => run(process.execPath, [shell, ...args], input);

describe('the Node shell', () => {
  it('prints result rows as an aligned table, numbers right-aligned, NULL as NULL', () => {
    const r = node(
      "create table t (id integer primary key, name text null);\n" +
      "insert into t values (1, 'a;b'), (22, null);\n" +
      'select id, name from t order by id;\n');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '+----+------+\n' +
      '| id | name |\n' +
      '+----+------+\n' +
      '|  1 | a;b  |\n' +
      '| 22 | NULL |\n' +
      '+----+------+\n');
    expect(r.status).toBe(0);
  });

  it('splits at ; only outside quotes, comments and { } bodies; the last ; is optional', () => {
    const r = node(
      "select 'x;y' as \"a;b\" /* ; */, -- a comment; still the same statement\n" +
      "  '{;}' as c;\n" +
      'select 2 as two');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '+-----+-----+\n' +
      '| a;b | c   |\n' +
      '+-----+-----+\n' +
      '| x;y | {;} |\n' +
      '+-----+-----+\n' +
      '+-----+\n' +
      '| two |\n' +
      '+-----+\n' +
      '|   2 |\n' +
      '+-----+\n');
    expect(r.status).toBe(0);
  });

  it('reports a failing statement with its input-relative position, runs the rest, exits 1', () => {
    const r = node(
      'select 1 as one;\n' +
      'select nosuch;\n' +
      'select 1,\n' +
      '  nosuch2;\n' +
      "select 'still runs' as s;\n");
    const errors = r.stderr.split('\n').filter((l) => l !== '');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^Error: .*nosuch.* \(line 2, column 8\)$/);
    // A position on the statement's second line keeps its own column.
    expect(errors[1]).toMatch(/^Error: .*nosuch2.* \(line 4, column 3\)$/);
    expect(r.stdout).toContain('| still runs |');
    expect(r.stdout).toContain('| one |');
    expect(r.status).toBe(1);
  });

  it('runs a FILE.sql argument; a missing file or a bad argument exits 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opticdb-shell-'));
    try {
      const file = join(dir, 'script.sql');
      writeFileSync(file, 'select 40 + 2 as answer;\n');
      const ok = node('', file);
      expect(ok.stdout).toContain('|     42 |');
      expect(ok.status).toBe(0);
      const missing = node('', join(dir, 'missing.sql'));
      expect(missing.stderr).toBe(`opticdb: cannot open ${join(dir, 'missing.sql')}\n`);
      expect(missing.status).toBe(2);
      expect(node('', '--bogus').status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the Node shell matches the native CLI', () => {
  const scripts: Record<string, string> = {
    'tables, values and errors': [
      'create table p (id integer primary key, name text not null, score real, ok boolean null);',
      "insert into p values (1, 'ada', 1.5, true), (2, 'bö', -0.25, false), (3, 'c''d;e', 2.0, null);",
      'select * from p order by id;',
      'select count(*) as n, sum(score) as total, max(name) as top from p;',
      "insert into p values (1, 'dup', 0, true);",
      'select id, name from p where id > 5;',
      'select 9007199254740993 as big, 1e308 * 10 as inf, 0.1 + 0.2 as sum, -7 / 2 as q;',
      "select x'414243' as blob, 'μ€𝄞' as wide, length('μ€𝄞') as len;",
      'select 1 +;',
      'select',
      '  nosuch',
      'from p;',
      "/* a block ; comment */ select 'tail' as t -- no closing semicolon",
    ].join('\n'),
    'transactions and brace bodies': [
      'begin;',
      'create table q (k integer primary key, v text);',
      "insert into q values (1, 'one');",
      'rollback;',
      'select * from q;',
      'create table q (k integer primary key, v text);',
      "insert into q values (1, '{a;b}');",
      'select v, k from q;',
      'declare schema main { table r (id integer primary key); table s (id integer primary key) }',
      ';',
      'select 1 as after_body;',
    ].join('\n'),
    'explain and query_plan': [
      'create table ev (id integer primary key, cat integer not null, ts integer);',
      'create index ev_cat on ev (cat);',
      'explain select id from ev where cat = 3 order by id;',
      'explain query plan update ev set ts = 1 where id between 2 and 9;',
      "select node_type, detail, est_rows from query_plan('select id from ev where cat in (1, 2) or cat = 5');",
      'explain create table x (id integer primary key);',
    ].join('\n'),
  };
  for (const [name, script] of Object.entries(scripts)) {
    it(name, () => {
      expect(existsSync(nativeCli), `${nativeCli} is not built (native build: build/, or set OPTIC_NATIVE_CLI)`).toBe(true);
      const native = run(nativeCli, [], script);
      const js = node(script);
      expect(js.stdout).toBe(native.stdout);
      expect(js.stderr).toBe(native.stderr);
      expect(js.status).toBe(native.status);
      expect(native.stdout).not.toBe('');  // the script produced output to compare
    });
  }
});
