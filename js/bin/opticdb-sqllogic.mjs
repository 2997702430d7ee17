#!/usr/bin/env node
// opticdb-sqllogic (JS): runs `.sqllogic` files through the public API of the opticdb package on
// the WebAssembly build, with the output contract of the native runner
// (tests/conformance/sqllogic_main.cpp; format in test-corpus.md):
//
//   node js/bin/opticdb-sqllogic.mjs [--json REPORT] [--module memory|store] [--quiet] [--areas PATH]
//                                    [--ratchet PASSING] [--update-ratchet PATH] [--timeout SEC]
//                                    [--no-fork] [--fail-on-crash] FILE_OR_DIR...
//
// Each file runs on a fresh Database in a worker thread (sqllogic/worker.mjs), the counterpart of
// the native runner's forked child: a wasm trap or a hang fails that one file (reported with how
// far it got; a hang is cut off after the timeout + 1 s) and the next file gets a fresh worker.
// --no-fork runs in this thread instead.
//
// Output: one PASS/FAIL/SKIP line per file (--quiet: FAIL lines only), the per-area table,
// ratchet findings, and exactly one closing line "N passed, N failed". Exit status: with
// --ratchet, 1 iff a listed file regressed; without, 1 iff any file failed; 2 on usage or I/O
// errors; --fail-on-crash also exits 1 when any file crashed. `--module store` runs each file on
// a fresh persistent database in IndexedDB (fake-indexeddb; relaxed durability; default module
// `store`), skips the spec's memory-only files, and allows 30 s per file, as the native runner does.
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { parseBlocks, parseRequiredCapabilities } from './sqllogic/format.mjs';
import {
  collectFiles, describeFailure, findAreasFile, findRegressions, findUnlistedPasses, formatAreaTable, formatClosingLine,
  formatFileLine, isMemoryOnlyFile, loadAreas, ratchetText, readRatchet, toJsonReport,
} from './sqllogic/report.mjs';

const USAGE =
  'usage: opticdb-sqllogic.mjs [--json REPORT] [--module memory|store] [--quiet] [--areas PATH]\n' +
  '                            [--ratchet PASSING] [--update-ratchet PATH] [--timeout SEC] [--no-fork]\n' +
  '                            [--fail-on-crash] FILE_OR_DIR...\n';

// Capabilities this engine's backends implement (test-corpus.md §1 capability directive).
const SUPPORTED_CAPABILITIES = new Set(['standalone-index-ddl']);

function parseArgs(argv) {
  const o = { jsonPath: '', module: 'memory', quiet: false, fork: true, failOnCrash: false, areasPath: '',
              ratchetPath: '', updateRatchetPath: '', timeoutSeconds: -1, inputs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : null);
    const take = (key) => (o[key] = value()) !== null;
    let ok = true;
    if (a === '--json') ok = take('jsonPath');
    else if (a === '--module') ok = take('module') && (o.module === 'memory' || o.module === 'store');
    else if (a === '--quiet') o.quiet = true;
    else if (a === '--no-fork') o.fork = false;
    else if (a === '--fail-on-crash') o.failOnCrash = true;
    else if (a === '--areas') ok = take('areasPath');
    else if (a === '--ratchet') ok = take('ratchetPath');
    else if (a === '--update-ratchet') ok = take('updateRatchetPath');
    else if (a === '--timeout') {
      const t = value();
      ok = t !== null;
      if (ok) o.timeoutSeconds = Number.parseFloat(t) || 0;  // like atof: garbage is 0 (no limit)
    } else if (a === '--help' || a === '-h') return null;
    else if (a.length > 1 && a[0] === '-') ok = false;
    else o.inputs.push(a);
    if (!ok) return null;
  }
  if (o.timeoutSeconds < 0) o.timeoutSeconds = o.module === 'store' ? 30 : 15;  // the spec's defaults
  return o.inputs.length ? o : null;
}

// ---- running files in a worker -----------------------------------------------------------------

// One worker at a time, replaced after a crash or a hard timeout.
class FileRunner {
  #worker = null;

  async run(blocks, { timeoutSeconds, module }) {
    const worker = (this.#worker ??= new Worker(new URL('./sqllogic/worker.mjs', import.meta.url)));
    let blocksPassed = 0;
    const hardLimit = Math.ceil(timeoutSeconds) + 1;
    const outcome = await new Promise((resolve) => {
      let timer;  // the hard limit, armed when the worker starts the file
      const partial = (what, crashed) => {
        const finished = blocksPassed >= blocks.length;
        const o = { passed: false, blocksTotal: blocks.length, blocksPassed, failedBlock: 0, failedLine: 0,
                    failure: finished ? `${what} during teardown` : what, crashed };
        if (!finished) {
          o.failedBlock = blocksPassed + 1;
          o.failedLine = blocks[blocksPassed].line;
        }
        return o;
      };
      const done = (o, keepWorker) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (!keepWorker) {
          this.#worker = null;
          worker.terminate();
        }
        resolve(o);
      };
      const onMessage = (m) => {
        if (m.type === 'S' && timeoutSeconds > 0) {
          timer = setTimeout(() => done(partial(`timeout: killed after ${hardLimit} s`, false), false), hardLimit * 1000);
        } else if (m.type === 'P') blocksPassed = m.n;
        else if (m.type === 'R') done(m.outcome, true);
        else if (m.type === 'crash') done(partial(`crashed: ${m.message}`, true), false);
      };
      const onError = (e) => done(partial(`crashed: ${e?.name ?? 'Error'}: ${e?.message ?? e}`, true), false);
      const onExit = (code) => done(partial(`runner worker exited with status ${code} without a result`, true), false);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ blocks, timeoutSeconds, module });
    });
    return outcome;
  }

  close() {
    this.#worker?.terminate();
    this.#worker = null;
  }
}

// --no-fork: in this thread (the package is loaded only then).
async function runInProcess(blocks, options) {
  const { CrashError, runBlocks } = await import('./sqllogic/exec.mjs');
  try {
    return await runBlocks(blocks, options);
  } catch (e) {
    if (!(e instanceof CrashError)) throw e;
    return { passed: false, blocksTotal: blocks.length, blocksPassed: 0, failedBlock: 0, failedLine: 0,
             failure: `crashed: ${e.message}`, crashed: true };
  }
}

async function runFile(file, cli, areas, runner) {
  const rec = { name: file.name, area: areas.get(file.name) ?? '(unmapped)', status: 'failed', blocksPassed: 0,
                blocksTotal: 0, detail: '', crashed: false };
  let text;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch {
    rec.detail = `cannot read ${file.path}`;
    return rec;
  }
  const blocks = parseBlocks(text);
  rec.blocksTotal = blocks.length;
  const caps = parseRequiredCapabilities(`${file.name}.sqllogic`, text);
  if (caps.error) {
    rec.detail = `capability directive: ${caps.error}`;
    return rec;
  }
  for (const cap of caps.required) {
    if (!SUPPORTED_CAPABILITIES.has(cap)) {
      rec.status = 'skipped';
      rec.detail = `backend lacks capability "${cap}"`;
      return rec;
    }
  }
  if (cli.module === 'store' && isMemoryOnlyFile(file.name)) {
    rec.status = 'skipped';
    rec.detail = 'memory-only file (test-corpus.md §5) in store mode';
    return rec;
  }
  const options = { timeoutSeconds: cli.timeoutSeconds, module: cli.module };
  const outcome = runner ? await runner.run(blocks, options) : await runInProcess(blocks, options);
  rec.status = outcome.passed ? 'passed' : 'failed';
  rec.blocksPassed = outcome.blocksPassed;
  rec.blocksTotal = outcome.blocksTotal;
  rec.crashed = !!outcome.crashed;
  if (!outcome.passed) rec.detail = describeFailure(outcome);
  return rec;
}

function areasFor(cli) {
  const path = cli.areasPath || findAreasFile(cli.inputs);
  if (!path) {
    process.stderr.write('note: no areas.tsv found next to the inputs (use --areas PATH)\n');
    return new Map();
  }
  const areas = loadAreas(path);
  if (!areas) process.stderr.write(`note: cannot read ${path}\n`);
  return areas ?? new Map();
}

function writeOrWarn(path, text) {
  try {
    writeFileSync(path, text);
  } catch {
    process.stderr.write(`opticdb-sqllogic: cannot write ${path}\n`);
  }
}

async function main(argv) {
  const cli = parseArgs(argv);
  if (!cli) {
    process.stderr.write(USAGE);
    return 2;
  }
  const { files, error } = collectFiles(cli.inputs);
  if (error) {
    process.stderr.write(`opticdb-sqllogic: ${error}\n`);
    return 2;
  }
  let passing = null;
  if (cli.ratchetPath && !(passing = readRatchet(cli.ratchetPath))) {
    process.stderr.write(`opticdb-sqllogic: cannot read ratchet ${cli.ratchetPath}\n`);
    return 2;
  }
  const areas = areasFor(cli);
  const out = (s) => process.stdout.write(s);

  const runner = cli.fork ? new FileRunner() : null;
  const records = [];
  try {
    for (const f of files) {
      const rec = await runFile(f, cli, areas, runner);
      records.push(rec);
      if (!cli.quiet || rec.status === 'failed') out(formatFileLine(rec) + '\n');
    }
  } finally {
    runner?.close();
  }

  out('\n' + formatAreaTable(records));
  let regressed = false;
  if (passing) {
    const regressions = findRegressions(passing, records);
    for (const r of regressions) out(`REGRESSION ${r.name}: ${r.detail}\n`);
    const unlisted = findUnlistedPasses(passing, records);
    out(`ratchet ${cli.ratchetPath}: ${regressions.length} regression(s), ${unlisted.length} passing file(s) not yet listed\n`);
    regressed = regressions.length > 0;
  }
  if (cli.jsonPath) writeOrWarn(cli.jsonPath, toJsonReport(records));
  if (cli.updateRatchetPath) writeOrWarn(cli.updateRatchetPath, ratchetText(records));
  const crashes = records.filter((r) => r.crashed).length;
  if (cli.failOnCrash && crashes > 0) out(`${crashes} file(s) crashed (--fail-on-crash)\n`);
  out(formatClosingLine(records) + '\n');

  if (cli.failOnCrash && crashes > 0) return 1;
  if (passing) return regressed ? 1 : 0;
  return records.some((r) => r.status === 'failed') ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
