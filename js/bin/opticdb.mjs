#!/usr/bin/env node
// opticdb (Node): the shell of the native CLI (tools/opticdb_cli.cpp) on the WebAssembly build.
//
//   npx opticdb [--relaxed] [DATABASE] [FILE.sql]
//
// DATABASE (any argument not ending in .sql, e.g. app.odb) opens a file database (storage
// 'file', js/src/filestore.ts: the native CLI's file format), created when absent; every commit
// is on disk (fdatasync'd unless --relaxed) before the next statement runs. Without it the
// database is in memory. Reads SQL from FILE.sql or stdin. On a terminal it prompts (`opticdb> `, continuation `   ...> `) and runs input as soon
// as it ends with a complete statement; `.quit` / `.exit` leave. Each statement runs on its own
// (prepare, step to the end), so one failing statement does not stop the rest: its error is
// printed as `Error: <message>` plus ` (line L, column C)` when the engine gives a position,
// with positions relative to the whole input. Result rows print as an aligned table with the
// column names; NULL prints as `NULL`. Exit status for a script: 0 when every statement
// succeeded, 1 otherwise; 2 on usage or I/O errors.
//
// Ctrl-C (SIGINT) interrupts the running statement (`Error: interrupted`, rolled back as a
// failing statement is) instead of killing the shell; a script stops there (exit status 130).
// At the prompt it does nothing: leave with `.quit`, `.exit` or end of input (Ctrl-D). The engine
// runs in a worker thread (WorkerDatabase, `opticdb/worker`), so that this thread stays free to
// hear Ctrl-C while a statement runs.
//
// Statements are split at `;` outside string literals, quoted identifiers, comments and
// `{ … }` bodies (declarative schema blocks hold `;` of their own): the native CLI's
// StatementSplitter, ported. Uses only the public API of the package.
//
// Values reach the shell as JS values, so a cell prints as the engine's text of that value
// except where the JS mapping loses information: a JSON document prints as JSON.stringify of
// its parsed form (integer-like object keys first, as JS orders them; a JSON number is
// right-aligned like a number).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { OpticError, WorkerDatabase, serve } from 'opticdb/worker';

// This file is also the engine's worker: started by the shell below, it serves its connection.
if (!isMainThread) serve({ endpoint: parentPort });

// ---- statement splitting ---------------------------------------------------------------------

const CODE = 0, SINGLE = 1, DOUBLE = 2, BACKTICK = 3, BRACKET = 4, LINE_COMMENT = 5, BLOCK_COMMENT = 6;
const CLOSING = { [SINGLE]: "'", [DOUBLE]: '"', [BACKTICK]: '`', [BRACKET]: ']' };
const OPENING = { "'": SINGLE, '"': DOUBLE, '`': BACKTICK, '[': BRACKET };
const isSpace = (c) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** Splits SQL text into pieces {text, line, column} (where each statement starts, 1-based).
 *  Returns {pieces, rest}: rest is the trailing text that has code, or is inside an open
 *  quote/comment/body, but has no closing `;` (null when there is none). Columns count code
 *  points. */
function splitStatements(sql) {
  const pieces = [];
  let state = CODE, depth = 0, line = 1, column = 1, hasCode = false;
  let current = { text: '', line: 1, column: 1 };
  const chars = [...sql];
  let pos = 0;
  const advance = () => {
    const c = chars[pos++];
    if (c === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  };
  const append = () => {
    if (!hasCode && current.text === '' && isSpace(chars[pos])) {
      advance();  // leading whitespace is not part of the statement
      current.line = line;
      current.column = column;
      return;
    }
    current.text += chars[pos];
    advance();
  };
  const next = () => (pos + 1 < chars.length ? chars[pos + 1] : '');
  while (pos < chars.length) {
    const c = chars[pos];
    if (state === CODE && c === ';' && depth === 0) {
      if (hasCode) pieces.push(current);
      advance();
      current = { text: '', line, column };
      hasCode = false;
    } else if (state === CODE) {
      if (c === '-' && next() === '-') {
        state = LINE_COMMENT;
      } else if (c === '/' && next() === '*') {
        state = BLOCK_COMMENT;
        append();  // consume "/*" whole so "/*/" does not close it
      } else {
        if (!isSpace(c)) hasCode = true;
        if (c in OPENING) state = OPENING[c];
        else if (c === '{') depth++;
        else if (c === '}' && depth > 0) depth--;
      }
      append();
    } else if (state === LINE_COMMENT) {
      if (c === '\n') state = CODE;
      append();
    } else if (state === BLOCK_COMMENT) {
      if (c === '*' && next() === '/') {
        append();
        state = CODE;
      }
      append();
    } else {
      // Inside a quoted token: the closing quote ends it (a doubled quote re-opens at once).
      if (c === CLOSING[state]) state = CODE;
      append();
    }
  }
  const midStatement = (state !== CODE && state !== LINE_COMMENT) || depth > 0;
  return { pieces, rest: hasCode || midStatement ? current : null };
}

// ---- result table ----------------------------------------------------------------------------

const displayWidth = (s) => [...s].length;
const isNumeric = (v) => typeof v === 'number' || typeof v === 'bigint';

function cellText(v) {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return JSON.stringify(v);
}

function pad(s, width, right) {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return right ? fill + s : s + fill;
}

function formatTable(names, rows) {
  const widths = names.map(displayWidth);
  const cells = rows.map((row) => row.map((v, i) => {
    const text = cellText(v);
    widths[i] = Math.max(widths[i] ?? 0, displayWidth(text));
    return text;
  }));
  const rule = '+' + widths.map((w) => '-'.repeat(w + 2) + '+').join('') + '\n';
  const line = (texts, values) =>
    '|' + widths.map((w, i) => ` ${pad(texts[i] ?? '', w, values !== null && isNumeric(values[i]))} |`).join('') + '\n';
  return rule + line(names, null) + rule + cells.map((texts, r) => line(texts, rows[r])).join('') + rule;
}

// ---- running ---------------------------------------------------------------------------------

// The parser appends its own statement-relative " (at line L, column C)" to syntax messages;
// the shell reports the input-relative position instead, so that suffix is dropped.
function withoutEnginePosition(message, line, column) {
  const suffix = ` (at line ${line}, column ${column})`;
  return message.endsWith(suffix) ? message.slice(0, -suffix.length) : message;
}

// The engine's position is relative to the statement text; report it relative to the input.
function formatError(message, line, column, piece) {
  let out = 'Error: ' + (line > 0 ? withoutEnginePosition(message, line, column) : message);
  if (line > 0) {
    const absLine = piece.line + line - 1;
    const absColumn = line === 1 && column > 0 ? piece.column + column - 1 : column;
    out += ` (line ${absLine}` + (absColumn > 0 ? `, column ${absColumn}` : '') + ')';
  }
  return out + '\n';
}

// Ctrl-C: interrupts the statement running now, and tells the loop that runs statements to stop.
class Interrupts {
  seen = false;
  #db;
  #running = false;
  constructor(db) {
    this.#db = db;
  }
  /** Runs f (one statement) as the statement Ctrl-C interrupts. */
  async around(f) {
    this.#running = true;
    try {
      return await f();
    } finally {
      this.#running = false;
    }
  }
  onSignal() {
    this.seen = true;
    if (this.#running) this.#db.interrupt();
  }
}

// Runs one statement and prints its rows; false when it failed.
async function runStatement(db, piece, interrupts) {
  const stmt = db.prepare(piece.text);
  try {
    const rows = await interrupts.around(() => stmt.iterateRows().toArray());
    const names = await stmt.getColumnNames();
    if (names.length > 0) process.stdout.write(formatTable(names, rows));
    return true;
  } catch (e) {
    const engine = e instanceof OpticError;
    process.stderr.write(formatError(e?.message ?? String(e), engine ? e.line ?? 0 : 0, engine ? e.column ?? 0 : 0, piece));
    return false;
  } finally {
    await stmt.finalize();
  }
}

async function runScript(db, text, interrupts) {
  const { pieces, rest } = splitStatements(text);
  if (rest && rest.text !== '') pieces.push(rest);  // a last statement may omit its ';'
  let ok = true;
  interrupts.seen = false;
  for (const p of pieces) {
    ok = (await runStatement(db, p, interrupts)) && ok;
    if (interrupts.seen) return 130;  // Ctrl-C ends the script, as it would a shell's
  }
  return ok ? 0 : 1;
}

const isQuitCommand = (line) => /^[ \t]*\.(quit|exit)[ \t\r]*$/.test(line);

// The prompt loop: accumulate lines; once the buffer holds complete statements, run them and
// keep only the unfinished remainder. Positions are relative to the pending buffer.
async function runInteractive(db, interrupts) {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  rl.on('SIGINT', () => interrupts.onSignal());  // the terminal is raw: Ctrl-C arrives as a key
  let buffer = '';
  rl.setPrompt('opticdb> ');
  rl.prompt();
  for await (const line of rl) {
    if (buffer === '' && isQuitCommand(line)) break;
    buffer += line + '\n';
    const { pieces, rest } = splitStatements(buffer);
    interrupts.seen = false;
    for (const p of pieces) {
      await runStatement(db, p, interrupts);
      if (interrupts.seen) break;  // the rest of what was typed with it is dropped too
    }
    buffer = rest ? rest.text : '';  // keep only an unfinished statement (or an open quote/comment/body)
    rl.setPrompt(buffer === '' ? 'opticdb> ' : '   ...> ');
    rl.prompt();
  }
  rl.close();
  process.stdout.write('\n');
  return 0;
}

const USAGE = 'usage: opticdb [--relaxed] [DATABASE] [FILE.sql]\n' +
              '  DATABASE  a file database (created when absent; e.g. app.odb); none: in memory\n' +
              '  FILE.sql  run this script (else stdin; interactive on a terminal)\n' +
              '  --relaxed no fsync per commit (a power loss may lose the latest commits)\n';

async function main(argv) {
  let script = '';
  let path = '';
  let durability = 'strict';
  let usage = false;
  for (const a of argv) {
    if (a === '--relaxed') durability = 'relaxed';
    else if (a.startsWith('-')) usage = true;
    else if (a.endsWith('.sql') && script === '') script = a;
    else if (path === '') path = a;
    else usage = true;
  }
  if (usage) {
    process.stderr.write(USAGE);
    return 2;
  }
  let text = null;
  if (script !== '') {
    try {
      text = readFileSync(script, 'utf8');
    } catch {
      process.stderr.write(`opticdb: cannot open ${script}\n`);
      return 2;
    }
  }
  const worker = new Worker(new URL(import.meta.url));
  let db;
  try {
    db = await WorkerDatabase.open(worker, path === '' ? {} : { storage: 'file', path, durability });
  } catch (e) {
    process.stderr.write(`opticdb: ${e.message}\n`);
    await worker.terminate();
    return 2;
  }
  for (const e of db.loadErrors) process.stderr.write(`opticdb: skipped catalog entry ${e}\n`);
  const interrupts = new Interrupts(db);
  const onSignal = () => interrupts.onSignal();
  process.on('SIGINT', onSignal);
  try {
    if (text !== null) return await runScript(db, text, interrupts);
    if (process.stdin.isTTY) return await runInteractive(db, interrupts);
    return await runScript(db, readFileSync(0, 'utf8'), interrupts);
  } finally {
    process.off('SIGINT', onSignal);
    await db.close();
    await worker.terminate();
  }
}

if (isMainThread) process.exitCode = await main(process.argv.slice(2));
