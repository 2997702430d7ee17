// Row conversion and value comparison (test-corpus.md §2), ported from
// tests/conformance/sqllogic_rows.cpp and sqllogic_json.cpp. Here the JS values come straight
// from the opticdb package, as the reference runner gets them from Quereus:
//  - normalize(): the reference's normalizeBigInts (bigint → nearest double, Uint8Array →
//    {"0": b0, …}, arrays and plain objects rebuilt);
//  - makeRow(): the single-column "bare value" heuristic, else {name || col_i: value};
//  - deepEqual(): chai deep.equal (strict types, -0 ≠ 0, NaN equals NaN, objects by key set);
//  - toDisplay()/truncateForDisplay(): the compact rendering of failure messages, as the
//    native runner prints them.

/** A cell as the reference's normalizeBigInts leaves it. */
export function normalize(v) {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Uint8Array) {
    const o = {};
    for (let i = 0; i < v.length; i++) o[String(i)] = v[i];
    return o;
  }
  if (Array.isArray(v)) return v.map(normalize);
  if (v !== null && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) setKey(o, k, normalize(x));
    return o;
  }
  return v;
}

const BARE_FUNCTIONS = /^(json_extract|json_array_length|json_array|json_object|json_insert|json_replace|json_set|json_remove|strftime|julianday|date|time|datetime|epoch_s|epoch_ms|epoch_s_frac)\(.+\)$/;

// An own property even for a key like "__proto__" (as JSON.parse makes it).
function setKey(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

function hasBooleanConnective(n) {
  return n.includes(' xor ') || n.includes(' and ') || n.includes(' or ');
}

/** Whether a single column named `name` is reported as its bare value. Lower-casing is
 *  ASCII-only, as in the native runner. */
export function isBareValueColumn(name) {
  const n = name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  const isNullTest = (n.endsWith(' is not null') || n.endsWith(' is null')) && !hasBooleanConnective(n);
  const isSubtraction = n.includes(' - ') && !hasBooleanConnective(n);
  return isNullTest || isSubtraction || BARE_FUNCTIONS.test(n);
}

/** One result row as the reference reports it. `values` are already normalized. */
export function makeRow(names, values) {
  if (names.length === 1 && values.length === 1 && isBareValueColumn(names[0])) return values[0];
  const row = {};
  for (let i = 0; i < values.length; i++) {
    const key = i < names.length && names[i] !== '' ? names[i] : `col_${i}`;
    setKey(row, key, values[i]);
  }
  return row;
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** chai deep.equal over JSON-like values. */
export function deepEqual(a, b) {
  if (typeof a === 'number' && typeof b === 'number') {
    return Object.is(a, b);  // by value, except -0 ≠ 0; NaN equals NaN (as deep-eql)
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
  }
  return true;
}

function numberToDisplay(d) {
  if (Object.is(d, -0)) return '-0';
  return String(d);  // NaN, Infinity and -Infinity as JS names them; else shortest round-trip
}

function quoted(s) {
  let out = '"';
  for (const c of s) {
    switch (c) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      default:
        out += c.charCodeAt(0) < 0x20 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
    }
  }
  return out + '"';
}

/** Compact JSON-like rendering for failure messages (not used for comparison). */
export function toDisplay(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return numberToDisplay(v);
  if (typeof v === 'string') return quoted(v);
  if (Array.isArray(v)) return `[${v.map(toDisplay).join(',')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${quoted(k)}:${toDisplay(x)}`).join(',')}}`;
}

/** `text` cut to at most `max` UTF-8 bytes (on a code point boundary), "…" appended when cut. */
export function truncateForDisplay(text, max) {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let cut = max;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut).toString('utf8') + '…';
}
