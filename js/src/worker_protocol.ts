// What the page (worker_client.ts) and the worker (worker_server.ts) say to each other over one
// MessagePort per connection. Neither side loads the engine for this file: the page never does.
//
//   page → worker  { id, op, args, tx?, abortable?, timeout?, interrupts? }
//                  a request; `tx`: the transaction it runs in; `timeout`: RunOptions.timeout;
//                  `interrupts`: how many times the page had called interrupt() when it sent it
//   worker → page  { id, ok: true, value } | { id, ok: false, error }
//                  { sub, kind, value }                  an event of subscription `sub` (live, watch,
//                                                        data/schema/commit listeners)
// A connection starts with { opticdb: 'connect', port } posted to the Worker (or SharedWorker port,
// or any endpoint serve() listens on), handing over the port the connection then uses alone.
// Events of a commit are posted before the response of the call that committed, as Database
// delivers them before that call settles; one port keeps the order.
//
// Stopping a running statement. The worker runs a statement without reading its port until the
// statement ends, so where the page can share memory with it (SharedArrayBuffer: Node, and
// cross-origin isolated pages; not a SharedWorker, another agent cluster) the page sends an
// InterruptFlags array first ('interrupts' op) and marks stops in it; the worker's statements
// poll it inside the engine's loops (RunOptions.shouldInterrupt). Elsewhere the same marks travel
// as messages ('abort', 'interrupt' ops) and stop an iterated result at its next batch.
import { AbortError, ConstraintError, MisuseError, OpticError, ParseError, StorageError } from './errors.js';

export const CONNECT = 'opticdb:connect';

export interface Request {
  id: number;
  op: string;
  args: unknown[];
  tx?: number;
  abortable?: boolean;
  timeout?: number;
  interrupts?: number;
}

/** Int32Array(INTERRUPT_SLOTS + 1) over a SharedArrayBuffer: slot `id & (INTERRUPT_SLOTS - 1)`
 *  holds `id` once the page aborted request `id` (a later request reuses the slot only 64
 *  requests on); slot INTERRUPT_COUNT holds how many times the page called interrupt(). */
export type InterruptFlags = Int32Array;
export const INTERRUPT_SLOTS = 64;
export const INTERRUPT_COUNT = INTERRUPT_SLOTS;

/** Flags to share with a worker, or null where memory cannot be shared with it. */
export function interruptFlags(sharedWorker: boolean): InterruptFlags | null {
  if (sharedWorker || typeof SharedArrayBuffer !== 'function') return null;
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) return null;
  return new Int32Array(new SharedArrayBuffer((INTERRUPT_SLOTS + 1) * 4));
}
/** The flags a page sent, if they are flags (anything else: none). */
export function asInterruptFlags(v: unknown): InterruptFlags | null {
  return v instanceof Int32Array && v.length === INTERRUPT_SLOTS + 1 && typeof SharedArrayBuffer === 'function'
    && v.buffer instanceof SharedArrayBuffer ? v : null;
}
export type Response = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };
export interface EventMessage {
  sub: number;
  kind: 'result' | 'error';
  value: unknown;
}

/** Something messages travel through: a MessagePort, a Worker, a worker's global scope. */
export interface Endpoint {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  start?(): void;
  close?(): void;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  line?: number;
  column?: number;
  mutationDiagnostic?: unknown;
  tablesToLoad?: string[];
  cause?: string;
}

export function serializeError(e: unknown): SerializedError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  const out: SerializedError = { name: e.name, message: e.message };
  if (e instanceof OpticError) {
    // The class by what it is, not by its name (a minifying bundler renames classes).
    out.name = e instanceof ParseError ? 'ParseError' : e instanceof ConstraintError ? 'ConstraintError'
      : e instanceof MisuseError ? 'MisuseError' : e instanceof AbortError ? 'AbortError'
      : e instanceof StorageError ? 'StorageError' : 'OpticError';
    out.code = e.code;
    if (e.line) out.line = e.line;
    if (e.column) out.column = e.column;
    if (e.mutationDiagnostic) out.mutationDiagnostic = e.mutationDiagnostic;
    if (e.tablesToLoad) out.tablesToLoad = e.tablesToLoad;
  }
  const cause = (e as { cause?: unknown }).cause;
  if (cause !== undefined) out.cause = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return out;
}

/** The error a serialized one stands for, of the same class (OpticError and its subclasses keep
 *  code, line, column and the data fields; `cause` comes back as its text). */
export function deserializeError(s: SerializedError): Error {
  let e: Error;
  const cause = s.cause !== undefined ? { cause: s.cause } : undefined;
  switch (s.name) {
    case 'ParseError': e = new ParseError(s.message, s.code, s.line, s.column); break;
    case 'ConstraintError': e = new ConstraintError(s.message, s.code, s.line, s.column); break;
    case 'MisuseError': e = new MisuseError(s.message, s.line, s.column); break;
    case 'AbortError': e = s.code === 'ABORT' ? new AbortError(s.message) : new OpticError(s.message, s.code); break;
    case 'StorageError': e = new StorageError(s.message, (s.code ?? 'IOERR') as 'IOERR', cause); break;
    case 'OpticError': e = new OpticError(s.message, s.code, s.line, s.column); break;
    default: {
      const ctor = ({ TypeError, RangeError, SyntaxError, ReferenceError } as Record<string, ErrorConstructor>)[s.name] ?? Error;
      e = new ctor(s.message, cause);
      if (ctor === Error && s.name !== 'Error') e.name = s.name;
      return e;
    }
  }
  const optic = e as OpticError;
  if (s.mutationDiagnostic) optic.mutationDiagnostic = s.mutationDiagnostic as OpticError['mutationDiagnostic'];
  if (s.tablesToLoad) optic.tablesToLoad = s.tablesToLoad;
  if (cause && !(e instanceof StorageError)) (e as { cause?: unknown }).cause = s.cause;
  return e;
}

/** The buffers of the blobs in `rows` that own their whole buffer (as decoded rows' blobs do):
 *  they move to the other side instead of being copied. */
export function blobBuffers(rows: unknown[], transfer: Transferable[] = []): Transferable[] {
  const seen = new Set<ArrayBufferLike>();
  const visit = (v: unknown) => {
    if (v instanceof Uint8Array) {
      const b = v.buffer;
      if (b instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === b.byteLength && !seen.has(b)) {
        seen.add(b);
        transfer.push(b);
      }
    }
  };
  for (const r of rows) {
    if (r instanceof Uint8Array) visit(r);
    else if (Array.isArray(r)) r.forEach(visit);
    else if (r && typeof r === 'object') for (const k in r) visit((r as Record<string, unknown>)[k]);
  }
  return transfer;
}

/** Rows on the wire: object rows as their keys once and their values in one flat array (cheaper
 *  to clone than an object per row); array rows (iterateRows) as they are. */
export type PackedRows = { keys: string[]; values: unknown[]; count: number } | unknown[][];

export function packRows(rows: unknown[]): PackedRows {
  if (rows.length === 0 || Array.isArray(rows[0])) return rows as unknown[][];
  const keys = Object.keys(rows[0] as object);
  const values = new Array(rows.length * keys.length);
  let p = 0;
  for (const row of rows as Record<string, unknown>[]) for (const k of keys) values[p++] = row[k];
  return { keys, values, count: rows.length };
}

export function unpackRows<T>(packed: PackedRows): T[] {
  if (Array.isArray(packed)) return packed as T[];
  const { keys, values, count } = packed;
  const out = new Array<T>(count);
  for (let r = 0, p = 0; r < count; r++) {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) o[keys[i]] = values[p++];
    out[r] = o as T;
  }
  return out;
}
