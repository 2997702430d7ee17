// Change scopes (api-and-watch.md §4) in their live JS shape, and the wire form the engine
// speaks (serializeChangeScope / deserializeChangeScope), which round-trips exactly:
// `columns` as a sorted array, literals as {"v": x} (bigint as {"$bigint": "…"}, blobs as
// {"$blob": "hex"}), placeholders as {"p": index, "t": type}.
import { engineError } from './errors.js';
import { nativeModule, type ScopeResult } from './native.js';
import { toCallbackValue, type SqlValue } from './wire.js';

export interface PortableScalarType {
  typeName: string;
  nullable: boolean;
  collationName?: string;
}
export type ScopeValue = SqlValue | { kind: 'param'; index: number | string; type: PortableScalarType };
export type WatchScope =
  | { kind: 'full' }
  | { kind: 'rows'; key: string[]; values: ScopeValue[][] }
  | { kind: 'groups'; groupBy: string[] }
  | { kind: 'rowsByGroup'; groupBy: string[]; values: ScopeValue[][] };
export interface TableWatch {
  table: { schema: string; table: string };
  columns: ReadonlySet<string> | 'all';
  scope: WatchScope;
}
export type NonDetSource =
  | { kind: 'time' }
  | { kind: 'random' }
  | { kind: 'volatileUdf'; name: string }
  | { kind: 'parameter'; index: number | string };
export interface ChangeScope {
  watches: TableWatch[];
  nonDeterministicSources: NonDetSource[];
  unboundParameters: (number | string)[];
}

type Wire = any;  // the engine's JSON document

/** A SQL value as the engine writes it in JSON documents (scopes, event rows). */
export function valueFromEngineJson(x: Wire): SqlValue {
  if (x && typeof x === 'object' && '$bigint' in x) return BigInt(x.$bigint);
  if (x && typeof x === 'object' && '$blob' in x) return hexToBytes(x.$blob);
  return x as SqlValue;
}

function valueFromWire(v: Wire): ScopeValue {
  if (v && typeof v === 'object' && 'p' in v) return { kind: 'param', index: v.p, type: v.t };
  return valueFromEngineJson(v?.v);
}

function valueToWire(v: ScopeValue): Wire {
  if (v && typeof v === 'object' && (v as any).kind === 'param' && 'type' in (v as any)) {
    const p = v as { index: number | string; type: PortableScalarType };
    return { p: p.index, t: p.type };
  }
  if (typeof v === 'bigint') {
    return Number.isSafeInteger(Number(v)) ? { v: Number(v) } : { v: { $bigint: v.toString() } };
  }
  if (v instanceof Uint8Array) return { v: { $blob: bytesToHex(v) } };
  return { v };
}

export function deserializeChangeScope(w: Wire): ChangeScope {
  return {
    watches: (w.watches ?? []).map((x: Wire): TableWatch => {
      const s = x.scope ?? { kind: 'full' };
      const values = (rows: Wire[][]) => rows.map((t) => t.map(valueFromWire));
      let scope: WatchScope;
      if (s.kind === 'rows') scope = { kind: 'rows', key: s.key, values: values(s.values) };
      else if (s.kind === 'groups') scope = { kind: 'groups', groupBy: s.groupBy };
      else if (s.kind === 'rowsByGroup') scope = { kind: 'rowsByGroup', groupBy: s.groupBy, values: values(s.values) };
      else scope = { kind: 'full' };
      return { table: x.table, columns: x.columns === 'all' ? 'all' : new Set<string>(x.columns), scope };
    }),
    nonDeterministicSources: w.nonDeterministicSources ?? [],
    unboundParameters: w.unboundParameters ?? [],
  };
}

export function serializeChangeScope(s: ChangeScope): Wire {
  return {
    watches: s.watches.map((w) => {
      const sc = w.scope;
      const values = (rows: ScopeValue[][]) => rows.map((t) => t.map(valueToWire));
      let scope: Wire = { kind: 'full' };
      if (sc.kind === 'rows') scope = { kind: 'rows', key: sc.key, values: values(sc.values) };
      else if (sc.kind === 'groups') scope = { kind: 'groups', groupBy: sc.groupBy };
      else if (sc.kind === 'rowsByGroup') scope = { kind: 'rowsByGroup', groupBy: sc.groupBy, values: values(sc.values) };
      return { table: w.table, columns: w.columns === 'all' ? 'all' : [...w.columns].sort(), scope };
    }),
    nonDeterministicSources: s.nonDeterministicSources,
    unboundParameters: s.unboundParameters,
  };
}

// ---- helpers (api-and-watch.md §4): the engine's scope lattice, through the wire form ---------
function engineAnswer<T>(r: ScopeResult<T>): T {
  if (r.error) throw engineError(r.error);
  return r.value as T;
}
const wireText = (s: ChangeScope) => JSON.stringify(serializeChangeScope(s));
const fromWireText = (json: string) => deserializeChangeScope(JSON.parse(json));

/** A scope that covers both: `full` absorbs, same-key `rows` merge, mismatched shapes widen to `full`. */
export function unionScopes(a: ChangeScope, b: ChangeScope): ChangeScope {
  return fromWireText(engineAnswer(nativeModule().unionScopes(wireText(a), wireText(b))));
}
/** What both scopes cover (a commit fires both only if it fires this one). */
export function intersectScopes(a: ChangeScope, b: ChangeScope): ChangeScope {
  return fromWireText(engineAnswer(nativeModule().intersectScopes(wireText(a), wireText(b))));
}
/** Replaces parameter placeholders with values: an array binds slots 1..n; object keys name
 *  parameters with or without their `:`/`$` sigil, and numeric-string keys bind `?N`. */
export function bindParameters(scope: ChangeScope, params: readonly SqlValue[] | Readonly<Record<string, SqlValue>>): ChangeScope {
  const bound: [number | string, unknown][] = Array.isArray(params)
    ? params.map((v, i) => [i + 1, toCallbackValue(v)])
    : Object.entries(params).map(([k, v]) => [parameterIndex(k), toCallbackValue(v)]);
  return fromWireText(engineAnswer(nativeModule().bindParameters(wireText(scope), bound)));
}
/** True when the scope names nothing: no watches, no non-deterministic sources, no unbound parameters. */
export function isEmpty(scope: ChangeScope): boolean {
  return engineAnswer(nativeModule().isEmpty(wireText(scope)));
}
/** True when no watch narrows: each is a `full` watch on all columns of its table. */
export function describesEverything(scope: ChangeScope): boolean {
  return engineAnswer(nativeModule().describesEverything(wireText(scope)));
}
function parameterIndex(key: string): number | string {
  const name = key.replace(/^[:$]/, '');
  return /^\d+$/.test(name) ? Number(name) : name;
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
function bytesToHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}
