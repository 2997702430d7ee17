// Statement: one prepared SQL statement. It owns its native handle (freed by finalize(), by the
// database's close(), or at the latest by the FinalizationRegistry backstop) and moves rows in
// batches: one boundary crossing per batch of rows, one per execution for parameters.
import { AbortError, MisuseError, OpticError, engineError } from './errors.js';
import type { NativeStatement } from './native.js';
import { nativeModule } from './native.js';
import { ParamEncoder, RowDecoder, type SqlValue } from './wire.js';
import { deserializeChangeScope, type ChangeScope } from './change_scope.js';
import { RowIterator, type RowSource } from './row_iterator.js';

/** Parameters: an array binds positions 1..n; an object binds names (with or without `:`/`$`)
 *  and numeric-string keys bind positions. */
export type BindParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;
export type Row = Record<string, SqlValue>;
/** How a call may be stopped before it ends by itself (js/README.md, "Stopping a statement"). */
export interface RunOptions {
  /** Checked before the call starts and between the row batches of an iterated result: once
   *  aborted, the execution is rolled back as a failing statement is and the call rejects with
   *  an AbortError. The engine runs on this thread, so one engine call (run, exec, one batch of
   *  rows) cannot see it abort: bound those with `timeout`. */
  signal?: AbortSignal;
  /** Milliseconds the execution may take from its start (iterated results: time between batches
   *  counts). Checked inside the engine's loops, so it stops even a statement that never returns:
   *  it fails with code INTERRUPT ('interrupted') and is rolled back as a failing statement is. */
  timeout?: number;
  /** Asked inside the engine's loops while the execution runs (every few thousand rows of work)
   *  and before each batch of an iterated result: returning true stops it as `timeout` does
   *  (INTERRUPT, rolled back). It must not call the database. For an engine running in a worker,
   *  where a flag in a SharedArrayBuffer that another thread sets is the only news that can
   *  reach a running statement (WorkerDatabase uses it for interrupt() and AbortSignals). */
  shouldInterrupt?: () => boolean;
}

/** @internal What stops an execution besides its end: a deadline (performance.now() time) and a
 *  poll (RunOptions.shouldInterrupt). */
export interface Limits {
  deadline?: number;
  shouldInterrupt?: () => boolean;
}
/** @internal The limits of an execution started now with `opts` (undefined: none); throws
 *  INTERRUPT when shouldInterrupt says stop already (a call that waited for its turn). */
export function limitsOf(opts: RunOptions | undefined): Limits | undefined {
  const t = opts?.timeout;
  const shouldInterrupt = opts?.shouldInterrupt;
  if (t === undefined && shouldInterrupt === undefined) return undefined;
  if (t !== undefined && (typeof t !== 'number' || !(t >= 0))) {
    throw new MisuseError(`timeout must be a non-negative number of milliseconds`);
  }
  if (shouldInterrupt !== undefined && typeof shouldInterrupt !== 'function') {
    throw new MisuseError(`shouldInterrupt must be a function`);
  }
  if (shouldInterrupt !== undefined && stopNow(shouldInterrupt)) throw new OpticError('interrupted', 'INTERRUPT');
  return { deadline: t === undefined ? undefined : performance.now() + t, shouldInterrupt };
}
/** @internal shouldInterrupt's answer as the engine takes it: a poll that throws says stop (an
 *  exception must not unwind through the engine's frames). */
export function stopNow(shouldInterrupt: () => boolean): boolean {
  try {
    return !!shouldInterrupt();
  } catch {
    return true;
  }
}
/** What run() resolves to. */
export interface RunResult {
  /** The rows the statement inserted, updated or deleted in its target (a view's rows when it
   *  writes through a view or a materialized view); 0 for other statements. Rows written by
   *  foreign-key actions and materialized-view maintenance do not count. */
  changes: number;
}

/** What a Statement needs from its Database (kept narrow so the two files stay independent). */
export interface StatementOwner {
  /** Runs f against the engine, then delivers the events of any commit it made; statements f
   *  runs fail with INTERRUPT past `limits.deadline` or when `limits.shouldInterrupt` says so. */
  call<T>(f: () => T, limits?: Limits): T;
  /** Resolves once the commits made so far are durable (persistent databases). */
  settled(): Promise<void>;
  forget(s: Statement<any>): void;
  /** Runs `run` once the tables `sql` may touch are loaded (at once when nothing is waited for). */
  hydrated<T>(sql: string, run: () => T): Promise<T>;
  /** Null when `sql` can run now; else a promise resolving when it can. `now`: whether the caller
   *  runs now regardless of calls waiting (then only a table to load counts). */
  hydration(sql: string, now?: boolean): Promise<void> | null;
}


const backstop = new FinalizationRegistry<NativeStatement>((raw) => raw.delete());

/** A prepared statement; `T` is the shape of its rows (`db.prepare<Todo>(…)`), unchecked. */
export class Statement<T = Row> {
  readonly sql: string;
  #raw: NativeStatement | null;
  #owner: StatementOwner;
  #encoder = new ParamEncoder();
  #decoder = new RowDecoder();
  #paramCapacity = 0;
  #paramPtr = 0;
  #columns: string[] | null = null;
  #rowKeys: string[] | null = null;
  #paramNames: string[] | null = null;
  #busy = false;
  #limits: Limits | undefined;  // of the execution in progress (RunOptions)

  /** @internal Use Database.prepare. */
  constructor(raw: NativeStatement, owner: StatementOwner) {
    this.#raw = raw;
    this.#owner = owner;
    this.sql = raw.sql();
    backstop.register(this, raw, this);
  }

  // ---- parameters ------------------------------------------------------------------------
  /** Binds one parameter: a 1-based position, or a name (`:name`, `$name` or `name`). */
  bind(key: number | string, value: SqlValue): this {
    this.#idle();
    this.#encoder.begin();
    this.#encoder.add(this.#position(key), value);
    this.#check(this.#writeParams() && this.#native().bindEncoded());
    return this;
  }

  bindAll(params: BindParams): this {
    this.#idle();
    this.#check(this.#encode(params) && this.#native().bindEncoded());
    return this;
  }

  clearBindings(): this {
    this.#idle();
    this.#check(this.#native().clearBindings());
    return this;
  }

  /** Parameter names in slot order: the name without its sigil, or null for a positional slot. */
  getParameters(): (string | null)[] {
    return this.#parameterNames().map((n) => (n === '' ? null : n));
  }

  // ---- execution --------------------------------------------------------------------------
  /** Runs the statement to its end, discarding rows (an implicit transaction in autocommit);
   *  resolves to how many rows it changed. */
  async run(params?: BindParams, opts?: RunOptions): Promise<RunResult> {
    this.#idle();
    if (opts?.signal?.aborted) throw new AbortError();
    // Encoded when it runs: another call may use the parameter buffer while this one waits.
    const changes = await this.#owner.hydrated(this.sql, () => this.runNow(params, opts));
    await this.#owner.settled();
    return { changes };
  }
  /** @internal run() now, without waiting for tables, the write lock or storage: the rows changed. */
  runNow(params?: BindParams, opts?: RunOptions): number {
    if (opts?.signal?.aborted) throw new AbortError();  // while it waited for its turn
    const limits = limitsOf(opts);
    const withParams = params !== undefined && this.#encode(params);
    const n = this.#owner.call(() => this.#native().run(withParams), limits);
    this.#check(n);
    return n;
  }

  /** The first row as an object, or undefined; the statement is reset afterwards. */
  async get(params?: BindParams, opts?: RunOptions): Promise<T | undefined> {
    this.#idle();
    const row = await this.#owner.hydrated(this.sql, () => this.firstRow(params, opts));
    await this.#owner.settled();
    return row;
  }
  /** @internal get() now, without waiting for tables or storage. */
  firstRow(params?: BindParams, opts?: RunOptions): T | undefined {
    this.#start(params, opts);
    let rows: SqlValue[][];
    try {
      rows = this.#next(1, opts);  // one row only: a query stops there
    } finally {
      this.#finish();
    }
    return rows.length ? this.#object(rows[0]) : undefined;
  }

  /** Rows as objects (column name → value; a repeated name gets `name:1`, `name:2`, …).
   *  Iterate with `for await` or plain `for`. */
  all(params?: BindParams, opts?: RunOptions): RowIterator<T> {
    return this.#iterate(params, opts, (rows) => this.objects(rows));
  }

  /** Rows as arrays in column order, pulled from the engine in batches. Iterate with
   *  `for await` or plain `for`. */
  iterateRows(params?: BindParams, opts?: RunOptions): RowIterator<SqlValue[]> {
    return this.#iterate(params, opts, (rows) => rows);
  }

  /** Every row as an array, synchronously (for when the whole result is wanted anyway). */
  allRows(params?: BindParams, opts?: RunOptions): SqlValue[][] {
    return this.iterateRows(params, opts).toArray();
  }

  /** Back to before the first step; bindings are kept. */
  async reset(): Promise<void> {
    this.#idle();
    this.#check(this.#native().reset());
  }

  /** Frees the statement. Idempotent; any later call fails with a MisuseError. */
  async finalize(): Promise<void> {
    this.dispose();
  }

  /** @internal finalize() without the Promise (Database.close uses it). */
  dispose(): void {
    if (!this.#raw) return;
    backstop.unregister(this);
    this.#raw.delete();
    this.#raw = null;
    this.#owner.forget(this);
  }

  // ---- metadata ---------------------------------------------------------------------------
  getColumnNames(): string[] {
    return [...this.#columnNames()];
  }
  getColumnName(i: number): string {
    const names = this.#columnNames();
    if (i < 0 || i >= names.length) throw new MisuseError(`column index ${i} out of range`);
    return names[i];
  }
  /** True when the statement returns rows. */
  isQuery(): boolean {
    return this.#columnNames().length > 0;
  }
  /** What the statement reads (api-and-watch.md §4), with `params` applied. */
  getChangeScope(params?: BindParams): ChangeScope {
    this.#idle();
    const withParams = params !== undefined && this.#encode(params);
    const json = this.#native().getChangeScope(withParams);
    if (json === '') throw engineError(this.#native().lastError());
    return deserializeChangeScope(JSON.parse(json));
  }

  // ---- internals --------------------------------------------------------------------------
  #native(): NativeStatement {
    if (!this.#raw) throw new MisuseError('Statement is finalized');
    return this.#raw;
  }
  #idle(): void {
    this.#native();
    if (this.#busy) throw new MisuseError('Statement busy');
  }
  #check(status: number | boolean): void {
    if (typeof status === 'number' && status < 0) throw engineError(this.#native().lastError());
  }
  #columnNames(): string[] {
    return (this.#columns ??= this.#native().columnNames());
  }
  #parameterNames(): string[] {
    return (this.#paramNames ??= this.#native().parameterNames());
  }

  #iterate<T>(params: BindParams | undefined, opts: RunOptions | undefined,
               shape: (rows: SqlValue[][]) => T[]): RowIterator<T> {
    return new RowIterator<T>(this.rowSource(params, opts, shape));
  }
  /** @internal The rows of one execution (started now: parameters bound, statement busy). */
  rowSource<T>(params: BindParams | undefined, opts: RunOptions | undefined,
               shape: (rows: SqlValue[][]) => T[]): RowSource<T> {
    this.#start(params, opts);
    return {
      prepare: (sync) => this.#owner.hydration(this.sql, sync),
      pull: (n) => shape(this.#next(n, opts)),
      finish: () => this.#finish(),
      settled: () => this.#owner.settled(),
    };
  }
  /** @internal Rows as objects (what all() yields). */
  objects(rows: SqlValue[][]): T[] {
    return rows.map((r) => this.#object(r));
  }
  #start(params: BindParams | undefined, opts: RunOptions | undefined): void {
    this.#idle();
    if (opts?.signal?.aborted) throw new AbortError();
    const limits = limitsOf(opts);
    if (params !== undefined) this.#check(this.#encode(params) && this.#native().bindEncoded());
    this.#limits = limits;
    this.#busy = true;
  }
  #finish(): void {
    this.#busy = false;
    if (this.#raw) this.#owner.call(() => this.#raw!.reset());
  }
  #next(batch: number, opts: RunOptions | undefined): SqlValue[][] {
    const raw = this.#native();
    if (opts?.signal?.aborted) {
      // Ended as failed, not reset: rows a DML statement with RETURNING wrote are rolled back.
      this.#owner.call(() => raw.interrupt());
      throw new AbortError();
    }
    // Asked between batches too: a batch that ends quickly never reaches a check inside the engine.
    const poll = this.#limits?.shouldInterrupt;
    if (poll && stopNow(poll)) this.#owner.call(() => raw.interrupt());  // the step fails
    const n = this.#owner.call(() => raw.stepBatch(batch), this.#limits);
    if (n < 0) throw engineError(raw.lastError());
    const out: SqlValue[][] = [];
    if (n > 0) this.#decoder.decode(nativeModule().HEAPU8, raw.rowsPtr(), this.#columnNames().length, n, out);
    return out;
  }
  #object(row: SqlValue[]): T {
    const keys = (this.#rowKeys ??= uniqueKeys(this.#columnNames()));
    const o: Row = {};
    for (let i = 0; i < keys.length; i++) o[keys[i]] = row[i];
    return o as T;
  }

  /** Encodes params into the native parameter buffer; returns true (for `&&` chaining). */
  #encode(params: BindParams): boolean {
    const enc = this.#encoder;
    enc.begin();
    if (Array.isArray(params)) {
      for (let i = 0; i < params.length; i++) enc.add(i + 1, params[i]);
    } else {
      for (const [k, v] of Object.entries(params)) enc.add(this.#position(k), v);
    }
    return this.#writeParams();
  }
  #writeParams(): true {
    const block = this.#encoder.finish();
    if (block.length > this.#paramCapacity) {
      this.#paramCapacity = Math.max(block.length, this.#paramCapacity * 2, 64);
      this.#paramPtr = this.#native().paramBuffer(this.#paramCapacity);
    }
    nativeModule().HEAPU8.set(block, this.#paramPtr);
    return true;
  }
  #position(key: number | string): number {
    if (typeof key === 'number') {
      if (!Number.isInteger(key) || key < 1) throw new MisuseError(`parameter position ${key} out of range`);
      return key;
    }
    const name = /^[:$@?]/.test(key) ? key.slice(1) : key;
    if (/^\d+$/.test(name)) return Number(name);
    const i = this.#parameterNames().indexOf(name);
    if (i < 0) throw new MisuseError(`no such parameter: ${key}`);
    return i + 1;
  }
}

function uniqueKeys(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const k = seen.get(n) ?? 0;
    seen.set(n, k + 1);
    return k === 0 ? n : `${n}:${k}`;
  });
}
