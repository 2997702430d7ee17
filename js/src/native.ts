// The Embind surface of wasm/bindings.cpp, as the JS layer sees it, and the one loaded module.
// Only this package calls it; every handle here is owned (and deleted) by a Database or
// Statement object of the public API.
import type { ErrorInfo } from './errors.js';
import type { Rehydration } from './database.js';

export interface NativeStatement {
  paramBuffer(size: number): number;
  bindEncoded(): number;
  clearBindings(): number;
  run(withParams: boolean): number;
  stepBatch(max: number): number;
  rowsPtr(): number;
  rowsLen(): number;
  reset(): number;
  interrupt(): number;
  columnNames(): string[];
  parameterNames(): string[];
  sql(): string;
  getChangeScope(withParams: boolean): string;
  lastError(): ErrorInfo;
  delete(): void;
}

export type EventCallback = (kind: string, json: string) => void;

export interface NativeDatabase {
  opened(): boolean;
  loadErrors(): string[];
  rehydration(): Rehydration;
  close(): number;
  exec(sql: string): number;
  acknowledgeStored(through: number): void;
  revertUnstored(): number;
  applyRemoteBatch(batch: Uint8Array, seq: number): number;
  idle(): boolean;
  tablesToLoad(sql: string): string[] | null;
  /** Key ranges as a batch of eraseRange operations (write_batch.ts keyRanges). */
  loadRanges(tables: string[]): Uint8Array;
  /** contents: a batch of puts (write_batch.ts putsRep). */
  loadTables(tables: string[], contents: Uint8Array, seq: number): number;
  /** A connection that fell behind the commit log: the ranges to read again (as loadRanges),
   *  then memory made what they held at commit `seq` (Database::resync). */
  resyncRanges(): Uint8Array;
  resync(ranges: Uint8Array, contents: Uint8Array, seq: number): number;
  tableLoaded(schema: string, table: string): boolean;
  catalogVersion(): number;
  statementCount(sql: string): number;
  /** Database::writes: whether running `sql` may store a commit (false when it does not parse). */
  writes(sql: string): boolean;
  prepare(sql: string): NativeStatement | null;
  eval(sql: string): NativeStatement | null;
  autocommit(): boolean;
  interrupt(): void;
  /** ms from now; negative: no deadline. */
  setDeadline(ms: number): void;
  /** Database::setInterruptPoll: called inside the engine's loops while set (true: stop); null: none. */
  setInterruptPoll(poll: (() => boolean) | null): void;
  createScalarFunction(name: string, numArgs: number, deterministic: boolean, fn: (args: unknown[]) => unknown): number;
  createAggregateFunction(name: string, numArgs: number, step: (acc: unknown, args: unknown[]) => unknown,
                          finish: (acc: unknown) => unknown, initial: unknown): number;
  watch(scopeJson: string, cb: EventCallback): string;
  unwatch(id: string): boolean;
  live(sql: string, params: unknown[], cb: EventCallback): string;
  stopLive(id: string): boolean;
  notifyExternalChange(table: string, schema: string): number;
  onDataChange(cb: EventCallback): number;
  onSchemaChange(cb: EventCallback): number;
  onTransactionCommit(cb: EventCallback): number;
  removeListener(id: number): boolean;
  lastError(): ErrorInfo;
  delete(): void;
}

/** A scope helper's answer: the value, or the engine's error (wasm/bindings.cpp scopeResult). */
export type ScopeResult<T> = { value: T; error?: undefined } | { error: ErrorInfo; value?: undefined };

export interface NativeModule {
  // contents: a batch of puts (write_batch.ts putsRep); write: gets each commit's batch
  // (WriteBatch::rep()). lazy: contents holds the catalog only, tables load on demand
  // (IndexedDB); else everything.
  Database: new (contents: Uint8Array | null, write: ((batch: Uint8Array<ArrayBuffer>) => void) | null,
                 lazy: boolean) => NativeDatabase;
  /** The key range of the catalog, what a lazy open reads, as loadRanges names ranges. */
  catalogRange(): Uint8Array;
  // Change-scope helpers over the wire form as JSON text (api-and-watch.md §4).
  unionScopes(a: string, b: string): ScopeResult<string>;
  intersectScopes(a: string, b: string): ScopeResult<string>;
  bindParameters(scope: string, bound: [number | string, unknown][]): ScopeResult<string>;
  isEmpty(scope: string): ScopeResult<boolean>;
  describesEverything(scope: string): ScopeResult<boolean>;
  HEAPU8: Uint8Array;
}

let loaded: NativeModule | null = null;

/** Called once by the entry point (index.node / index.browser) after instantiating the wasm. */
export function installModule(m: NativeModule): void {
  loaded = m;
}

export function nativeModule(): NativeModule {
  if (!loaded) throw new Error('opticdb: the WebAssembly module is not loaded (import from "opticdb", or await init() from "opticdb/lazy" first)');
  return loaded;
}
