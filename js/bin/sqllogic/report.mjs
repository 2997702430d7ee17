// The corpus on disk and what a run reports, ported from tests/conformance/sqllogic_corpus.cpp
// and sqllogic_report.cpp: file discovery and naming, areas.tsv, the store-mode skip list, the
// per-file lines, the per-area table, the closing line, --json and the ratchet.
//
// A file's *name* (output lines, --json, passing.txt) is its basename without `.sqllogic`.
// A record is { name, area, status: 'passed' | 'failed' | 'skipped', blocksPassed, blocksTotal,
// detail, crashed }.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { splitLines } from './format.mjs';

const SUFFIX = '.sqllogic';
const stripSuffix = (s) => (s.endsWith(SUFFIX) ? s.slice(0, -SUFFIX.length) : s);
const byteOrder = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** Basename without a trailing `.sqllogic`. */
export function fileName(path) {
  return stripSuffix(basename(path));
}

const isDirectory = (p) => { try { return statSync(p).isDirectory(); } catch { return false; } };
const isFile = (p) => { try { return statSync(p).isFile(); } catch { return false; } };

/** The files named on the command line, sorted by name, duplicates dropped:
 *  { files: [{path, name}] } or { error } for a path that does not exist. */
export function collectFiles(args) {
  const files = [];
  for (const arg of args) {
    if (isDirectory(arg)) {
      for (const entry of readdirSync(arg)) {
        const path = join(arg, entry);
        if (entry.endsWith(SUFFIX) && isFile(path)) files.push({ path, name: stripSuffix(entry) });
      }
    } else if (isFile(arg)) {
      files.push({ path: arg, name: fileName(arg) });
    } else {
      return { error: `no such file or directory: ${arg}` };
    }
  }
  files.sort((a, b) => byteOrder(a.name, b.name));
  return { files: files.filter((f, i) => i === 0 || f.name !== files[i - 1].name) };
}

// test-corpus.md §5 MEMORY_ONLY_FILES: skipped in store mode (the spec's list verbatim).
const MEMORY_ONLY = new Set([
  '05-vtab_memory',
  '05.0.1-vtab-memory-unique-index-collation',
  '10.2.2-default-collation-memory',
  '41.2.1-alter-column-retype-deleted-row-memory',
  '83-merge-join',
  '103-database-options-edge-cases',
  '105-vtab-memory-mutation-kills',
  '105.1-vtab-memory-index-mutation-kills',
]);
export const isMemoryOnlyFile = (name) => MEMORY_ONLY.has(stripSuffix(name));

// The whole file as UTF-8, or null if it cannot be read.
function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** areas.tsv (`name<TAB>area` per line) as a Map, or null if unreadable. */
export function loadAreas(path) {
  const text = readText(path);
  if (text === null) return null;
  const areas = new Map();
  for (const line of splitLines(text)) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const name = stripSuffix(line.slice(0, tab).trim());
    const area = line.slice(tab + 1).trim();
    if (name !== '' && area !== '') areas.set(name, area);
  }
  return areas;
}

/** `<dir>/areas.tsv` or `<dir>/../areas.tsv` for the first input's directory, or ''. */
export function findAreasFile(args) {
  if (args.length === 0) return '';
  const first = args[0];
  let dir = isDirectory(first) ? first : dirname(first);
  if (dir === '') dir = '.';
  for (const candidate of [join(dir, 'areas.tsv'), `${dir}/../areas.tsv`]) {
    if (existsSync(candidate) && isFile(candidate)) return candidate;
  }
  return '';
}

// ---- report ----------------------------------------------------------------------------------

/** The failure text for a file's outcome: "block N (line L): what". */
export function describeFailure(outcome) {
  if (outcome.failedBlock === 0) return outcome.failure;
  return `block ${outcome.failedBlock} (line ${outcome.failedLine}): ${outcome.failure}`;
}

/** The `PASS name` / `FAIL name: …` / `SKIP name: …` line for one file. */
export function formatFileLine(r) {
  if (r.status === 'passed') return `PASS ${r.name}`;
  if (r.status === 'failed') return `FAIL ${r.name}: ${r.detail}`;
  return `SKIP ${r.name}: ${r.detail}`;
}

function tally() {
  return { filesPassed: 0, filesTotal: 0, blocksPassed: 0, blocksTotal: 0 };
}
function add(t, r) {
  t.filesTotal++;
  if (r.status === 'passed') t.filesPassed++;
  t.blocksPassed += r.blocksPassed;
  t.blocksTotal += r.blocksTotal;
}
const tableRow = (area, files, blocks) => `${area.padEnd(30)} ${files.padStart(9)} ${blocks.padStart(13)}\n`;
const tallyRow = (area, t) => tableRow(area, `${t.filesPassed}/${t.filesTotal}`, `${t.blocksPassed}/${t.blocksTotal}`);

/** Per-area table (files and blocks passed/total; skipped files excluded) with a total row. */
export function formatAreaTable(records) {
  const byArea = new Map();
  const total = tally();
  for (const r of records) {
    if (r.status === 'skipped') continue;
    if (!byArea.has(r.area)) byArea.set(r.area, tally());
    add(byArea.get(r.area), r);
    add(total, r);
  }
  let out = tableRow('area', 'files', 'blocks');
  for (const area of [...byArea.keys()].sort(byteOrder)) out += tallyRow(area, byArea.get(area));
  return out + tallyRow('total', total);
}

/** "N passed, N failed" (files; skipped files are in neither count). */
export function formatClosingLine(records) {
  const passed = records.filter((r) => r.status === 'passed').length;
  const failed = records.filter((r) => r.status === 'failed').length;
  return `${passed} passed, ${failed} failed`;
}

/** --json: [{file, area, passed, skipped, blocksPassed, blocksTotal, firstFailure}]. */
export function toJsonReport(records) {
  const out = records.map((r) => ({
    file: r.name,
    area: r.area,
    passed: r.status === 'passed',
    skipped: r.status === 'skipped',
    blocksPassed: r.blocksPassed,
    blocksTotal: r.blocksTotal,
    firstFailure: r.status === 'failed' ? r.detail : null,
  }));
  return JSON.stringify(out, null, 2) + '\n';
}

/** The ratchet list (names; blank and `#` lines ignored) as a Set, or null if unreadable. */
export function readRatchet(path) {
  const text = readText(path);
  if (text === null) return null;
  const names = new Set();
  for (const line of splitLines(text)) {
    const s = line.trim();
    if (s !== '' && !s.startsWith('#')) names.add(fileName(s));
  }
  return names;
}

/** Sorted names of passed files, one per line. */
export function ratchetText(records) {
  return records.filter((r) => r.status === 'passed').map((r) => r.name).sort(byteOrder).map((n) => `${n}\n`).join('');
}

/** Records of listed files that ran and did not pass. */
export const findRegressions = (passing, records) => records.filter((r) => r.status === 'failed' && passing.has(r.name));
/** Names of passed files not listed yet. */
export const findUnlistedPasses = (passing, records) =>
  records.filter((r) => r.status === 'passed' && !passing.has(r.name)).map((r) => r.name);
