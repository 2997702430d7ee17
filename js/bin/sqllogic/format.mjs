// The `.sqllogic` file format (test-corpus.md §1), ported from tests/conformance/sqllogic_format.cpp:
// a file's text becomes a list of blocks exactly as the reference runner reads it line by line.
//
// A block is { kind: 'setup' | 'result' | 'error' | 'malformed', sql, expected, params, line }:
//  - setup: `-- run` or end of file (one Database.exec of the whole text);
//  - result: `→ JSON` (statements split on ';', the last one's rows compared with `expected`);
//  - error: `-- error: substring` (an error whose message contains `expected` must occur);
//  - malformed: the file breaks here (bad `-- params:` JSON); `expected` says why. The
//    reference only notices when it reaches that line, so it stays in place.
// `line` is the 1-based line of the directive that closed the block (end of file: last line).
// Here JS string semantics are native (trim, split), so the C++ emulations are unnecessary;
// lower-casing stays ASCII-only, as the native runner's, so both runners judge alike.

const ARROW = '\u2192';

/** ASCII lower-casing (the native runner's asciiLower). */
export function asciiLower(s) {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** text.split(/\r?\n/) */
export function splitLines(text) {
  return text.split(/\r?\n/);
}

/** text.split(';').map(trim).filter(nonEmpty): naive, also inside string literals. */
export function splitStatements(sql) {
  return sql.split(';').map((s) => s.trim()).filter((s) => s !== '');
}

/** The file's blocks in order. */
export function parseBlocks(text) {
  const blocks = [];
  let sql = '';
  let params = null;
  let line = 0;
  const emit = (kind, expected) => {
    blocks.push({ kind, sql: sql.trim(), expected, params, line });
    sql = '';
    params = null;
  };
  const onComment = (s) => {
    const lower = asciiLower(s);
    if (lower.startsWith('-- error:')) {
      if (sql.trim() !== '') emit('error', s.substring(9).trim());
    } else if (lower.startsWith('-- params:')) {
      const json = s.substring(10).trim();
      try {
        params = JSON.parse(json);
      } catch (e) {
        // The reference throws here, aborting the file: record the spot, keep the pending SQL.
        params = null;
        blocks.push({ kind: 'malformed', sql: '', expected: `invalid params JSON (${e.message}): ${json}`,
                      params: null, line });
      }
    } else if (lower === '-- run') {
      if (sql.trim() !== '') emit('setup', '');
    }
  };
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    line = i + 1;
    const raw = lines[i];
    const s = raw.trim();
    if (s === '') continue;
    if (s.startsWith('--')) {
      onComment(s);
      continue;
    }
    if (s.startsWith(ARROW)) {
      if (sql.trim() !== '') emit('result', s.substring(ARROW.length).trim());
      continue;
    }
    // SQL: the naive cut at the first "--", even inside a string literal.
    const cut = raw.indexOf('--');
    const part = cut < 0 ? raw : raw.substring(0, cut);
    if (part.trim() !== '') sql += part + '\n';
  }
  if (sql.trim() !== '') emit('setup', '');
  return blocks;
}

// ---- the capability directive ----------------------------------------------------------------

const KNOWN_CAPABILITIES = ['standalone-index-ddl'];  // the closed set the corpus defines
const ASCII_SPACE = /[ \t\n\v\f\r]/;

/** The capability tokens the corpus defines. */
export function knownCapabilities() {
  return new Set(KNOWN_CAPABILITIES);
}

// /^--\s*requires-capability\s*:\s*(.*)$/i on a trimmed line; the token text, or null.
function matchDirective(s) {
  const m = /^--[ \t\n\v\f\r]*requires-capability[ \t\n\v\f\r]*:(.*)$/is.exec(s);
  return m ? m[1] : null;
}

// /^--\s*require[sd]?[-_ ]?capabilit/i
function isNearMiss(s) {
  return /^--[ \t\n\v\f\r]*require[sd]?[-_ ]?capabilit/i.test(s);
}

function knownList() {
  return [...KNOWN_CAPABILITIES].sort().join(', ');
}

// Folds the directive's tokens into `into`; returns an error text, or null.
function addTokens(rest, into) {
  const tokens = [];
  let current = '';
  for (const c of rest) {
    if (c === ',' || ASCII_SPACE.test(c)) {
      if (current !== '') tokens.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (current !== '') tokens.push(current);
  if (tokens.length === 0) return `\`-- requires-capability:\` declares no tokens. Valid capabilities: ${knownList()}.`;
  for (const raw of tokens) {
    const token = asciiLower(raw);
    if (!KNOWN_CAPABILITIES.includes(token)) return `unknown capability "${raw}". Valid capabilities: ${knownList()}.`;
    into.add(token);
  }
  return null;
}

/** `-- requires-capability:` directives of the leading comment block: { required: Set } or
 *  { error: "[file:line] …" } for an unknown token, an empty list, a directive after the first
 *  SQL line, or a near-miss spelling. */
export function parseRequiredCapabilities(fileName, text) {
  if (text.startsWith('\uFEFF')) text = text.substring(1);
  const required = new Set();
  let inLeadingBlock = true;
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i].trim();
    if (s === '') continue;
    if (!s.startsWith('--')) {
      inLeadingBlock = false;  // keep scanning: a late directive must still fail loudly
      continue;
    }
    let why = null;
    const rest = matchDirective(s);
    if (rest !== null) {
      if (!inLeadingBlock) {
        why = '`-- requires-capability:` must appear in the leading comment block, before the first SQL line.';
      } else {
        why = addTokens(rest, required);
      }
    } else if (isNearMiss(s)) {
      why = `\`${s}\` looks like a capability directive but is not the canonical form. ` +
            'Use `-- requires-capability: <tokens>`.';
    }
    if (why !== null) return { error: `[${fileName}:${i + 1}] ${why}` };
  }
  return { required };
}
