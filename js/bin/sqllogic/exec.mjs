// Running one `.sqllogic` file's blocks against a fresh Database through the public API of the
// opticdb package (ported from tests/conformance/sqllogic_exec.cpp). Block semantics:
//  - setup: one db.exec of the whole block text; any error fails the file;
//  - result: split on ';'; every statement but the last through its own exec; the last is
//    prepared, bound with the pending params, iterated to the end; rows converted and compared
//    with the expected JSON (row count first, then row by row);
//  - error: all but the last statement re-joined with ";\n" plus ";" through one exec, then the
//    last prepared and drained; the first error's message must contain the expected substring
//    (ASCII case-insensitive). No params.
// The first failing block ends the run; later blocks count as not passed.
//
// Only engine errors (OpticError) are block failures, as the native runner catches only C++
// exceptions: anything else (a wasm trap, a JS-layer bug) escapes as a CrashError, the
// counterpart of the native child dying on a signal.
import { Database, OpticError } from 'opticdb';
import { asciiLower, splitStatements } from './format.mjs';
import { deepEqual, makeRow, normalize, toDisplay, truncateForDisplay } from './values.mjs';

const DISPLAY_LIMIT = 300;

/** A failure that is not the engine reporting an error: the file's run is broken. */
export class CrashError extends Error {
  constructor(cause) {
    super(`${cause?.name ?? 'Error'}: ${cause?.message ?? String(cause)}`);
    this.name = 'CrashError';
  }
}

const shown = (v) => truncateForDisplay(toDisplay(v), DISPLAY_LIMIT / 2);

// Runs fn; returns null, or the message of the engine error it threw.
async function capture(fn) {
  try {
    await fn();
    return null;
  } catch (e) {
    if (e instanceof OpticError || e instanceof HarnessError) return e.message;
    throw new CrashError(e);
  }
}

// A failure of the runner's own making that the native runner also reports as a block failure.
class HarnessError extends Error {}

// The pending params as the API takes them: an array binds positions, an object's keys are
// names (`{"val": 30}` binds :val) or, when numeric, positions (`{"1": 2}` binds :1 / $1).
function bindParams(params) {
  if (Array.isArray(params)) return params;
  if (params === null || typeof params !== 'object') throw new HarnessError('params must be a JSON array or object');
  return params;
}

// Prepares `sql`, binds, iterates to the end; returns the converted rows.
async function collectRows(db, sql, params) {
  const stmt = db.prepare(sql);
  try {
    const bind = params !== null && params !== undefined ? bindParams(params) : undefined;
    const rows = [];
    let names = null;
    for await (const row of stmt.iterateRows(bind)) {
      names ??= stmt.getColumnNames();
      rows.push(makeRow(names, row.map(normalize)));
    }
    return rows;
  } finally {
    await stmt.finalize();
  }
}

async function runSetup(db, block) {
  const err = await capture(() => db.exec(block.sql));
  return err === null ? null : `setup failed: ${err}`;
}

function compareRows(actual, expectedText) {
  let expected;
  try {
    expected = JSON.parse(expectedText);
  } catch (e) {
    return `invalid expected JSON (${e.message}): ${expectedText}`;
  }
  if (!Array.isArray(expected)) return `expected JSON is not an array: ${expectedText}`;
  if (expected.length !== actual.length) {
    return `row count: expected ${expected.length}, got ${actual.length}; expected ${shown(expected)} actual ${shown(actual)}`;
  }
  for (let i = 0; i < actual.length; i++) {
    if (!deepEqual(actual[i], expected[i])) return `row ${i}: expected ${shown(expected[i])} actual ${shown(actual[i])}`;
  }
  return null;
}

async function runResult(db, block) {
  const stmts = splitStatements(block.sql);
  for (let i = 0; i + 1 < stmts.length; i++) {
    const err = await capture(() => db.exec(stmts[i]));
    if (err !== null) return `error in statement ${i + 1}: ${err}`;
  }
  let rows = [];
  if (stmts.length > 0) {
    const err = await capture(async () => { rows = await collectRows(db, stmts[stmts.length - 1], block.params); });
    if (err !== null) return `unexpected error: ${err}`;
  }
  return compareRows(rows, block.expected);
}

async function runError(db, block) {
  const stmts = splitStatements(block.sql);
  const err = await capture(async () => {
    if (stmts.length > 1) await db.exec(stmts.slice(0, -1).join(';\n') + ';');
    if (stmts.length > 0) await collectRows(db, stmts[stmts.length - 1], null);
  });
  const quotedExpected = `"${block.expected}"`;
  if (err === null) return `expected error containing ${quotedExpected} but the block succeeded`;
  if (!asciiLower(err).includes(asciiLower(block.expected))) return `expected error containing ${quotedExpected}, got "${err}"`;
  return null;
}

function runBlock(db, block) {
  switch (block.kind) {
    case 'setup': return runSetup(db, block);
    case 'result': return runResult(db, block);
    case 'error': return runError(db, block);
    case 'malformed': return block.expected;
  }
  return 'unknown block kind';
}

let storeSeq = 0;
// A fresh database: in memory, or (module 'store') persistent in IndexedDB — fake-indexeddb when
// the host has none — whose default module is `store`. Returns it with its disposal.
async function openDatabase(module) {
  if (module !== 'store') return { db: new Database(), dispose: async (db) => db.close() };
  if (!globalThis.indexedDB) await import('fake-indexeddb/auto');
  const name = `sqllogic-${process.pid}-${storeSeq++}`;
  const db = await Database.open({ storage: 'indexeddb', name, durability: 'relaxed' });
  const dispose = async (d) => {
    await d.close();
    await new Promise((resolve) => {
      const r = globalThis.indexedDB.deleteDatabase(`opticdb:${name}`);
      r.onsuccess = r.onerror = r.onblocked = () => resolve();
    });
  };
  return { db, dispose };
}

/** Runs the blocks on a fresh database (module 'memory' or 'store'): { passed, blocksTotal,
 *  blocksPassed, failedBlock, failedLine, failure }. onBlockPassed(n) after each matched block.
 *  Throws CrashError. */
export async function runBlocks(blocks, { timeoutSeconds = 15, module = 'memory' } = {}, onBlockPassed = () => {}) {
  const out = { passed: false, blocksTotal: blocks.length, blocksPassed: 0, failedBlock: 0, failedLine: 0, failure: '' };
  const fail = (i, what) => {
    out.failedBlock = i + 1;
    out.failedLine = blocks[i].line;
    out.failure = truncateForDisplay(what, DISPLAY_LIMIT);
    return out;
  };
  let db;
  let dispose;
  const openError = await capture(async () => { ({ db, dispose } = await openDatabase(module)); });
  if (openError !== null) {
    out.failure = `cannot open database: ${openError}`;
    return out;
  }
  let crashed = false;
  try {
    const start = performance.now();
    for (let i = 0; i < blocks.length; i++) {
      const elapsed = (performance.now() - start) / 1000;
      if (timeoutSeconds > 0 && elapsed > timeoutSeconds) {
        return fail(i, `timeout: file exceeded ${Math.trunc(timeoutSeconds)} s`);
      }
      const r = await runBlock(db, blocks[i]).catch((e) => { crashed = true; throw e; });
      if (r !== null) return fail(i, r);
      out.blocksPassed++;
      onBlockPassed(out.blocksPassed);
    }
    out.passed = true;
    return out;
  } finally {
    // After a crash the instance may be broken: closing is best effort, the crash is the news.
    if (crashed) await dispose(db).catch(() => {});
    else await dispose(db).catch((e) => { throw new CrashError(e); });
  }
}
