// The page side of worker mode: WorkerDatabase has Database's async API, and runs every call in a
// worker that serves it (worker_server.ts) — the engine and the data live there, so a long query
// never blocks the page. This file loads no engine: a page that imports it fetches no wasm.
//
// Calls reach the worker's Database in the order they are made here, so its guarantees hold
// unchanged: statements run in call order, db.transaction(fn) holds every other call until it
// ends, writes take the write lock shared with every other connection to the IndexedDB database
// (other tabs, main-thread or worker), events of a commit arrive before the call that committed
// settles. Rows come in batches, each as its keys and one flat array of values (a structured
// clone; blobs' buffers are transferred, not copied).
//
// Differences from Database, each because a call cannot wait synchronously for another thread:
// prepare() returns its statement at once and a statement that does not compile fails its first
// call; a statement's metadata (getColumnNames, getParameters, isQuery, getChangeScope) and
// getAutocommit/getOption/setOption are async; rows are read with `for await` only; live() and
// watch() report a query or scope that cannot start through onError / console.error rather than
// by throwing. Not proxied: createScalarFunction/createAggregateFunction (functions cannot cross to
// the worker: register them in the worker's serve({ setup })), bind()/allRows() on statements,
// Database.delete/import (call them in the worker's setup, or on the main thread), and a call's
// RunOptions.shouldInterrupt (a function; interrupt() and `signal` reach the worker instead,
// through memory shared with it where there is some: worker_protocol.ts).
import type { DatabaseOptions, DataChangeEvent, LiveResult, Rehydration, SchemaChangeEvent, Subscription,
              TransactionCommitEvent, WatchEvent } from './database.js';
import { AbortError, MisuseError, OpticError } from './errors.js';
import { LiveQuery } from './live_query.js';
import type { BindParams, Row, RunOptions, RunResult } from './statement.js';
import type { ChangeScope } from './change_scope.js';
import type { SqlValue } from './wire.js';
import { CONNECT, INTERRUPT_COUNT, INTERRUPT_SLOTS, deserializeError, interruptFlags, unpackRows, type Endpoint,
         type EventMessage, type InterruptFlags, type PackedRows, type Response } from './worker_protocol.js';

const FIRST_BATCH = 256;
const MAX_BATCH = 4096;

/** Where WorkerDatabase.open connects: a Worker or SharedWorker running `serve()`, or anything
 *  that posts to where a serve() listens (a MessagePort, a worker_threads Worker). */
export type WorkerTarget = Worker | SharedWorker | Pick<Endpoint, 'postMessage'>;

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

// One connection: requests and their responses, events to their subscribers.
class Connection {
  #port: Endpoint;
  #next = 1;
  #pending = new Map<number, Pending>();
  #subs = new Map<number, { result(v: unknown): void; error(e: unknown): void }>();
  #failure: Error | null = null;
  #closed = false;
  #flags: InterruptFlags | null = null;  // shared with the worker (worker_protocol.ts)
  #interrupts = 0;                        // interrupt() calls so far

  constructor(port: Endpoint) {
    this.#port = port;
    port.addEventListener('message', (e: MessageEvent) => this.#receive(e.data as Response | EventMessage));
    port.start?.();
  }

  /** Shares interrupt flags with the worker when memory can be shared with it. */
  shareInterruptFlags(sharedWorker: boolean): void {
    const flags = interruptFlags(sharedWorker);
    if (!flags) return;
    try {
      this.#port.postMessage({ id: this.#next++, op: 'interrupts', args: [flags] });
      this.#flags = flags;
    } catch {
      // Not cloneable here after all: stops travel as messages.
    }
  }

  request<T>(op: string, args: unknown[], tx?: number, opts?: RunOptions): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(new MisuseError('Database is closed'));
    const id = this.#next++;
    const message: Record<string, unknown> = { id, op, args, interrupts: this.#interrupts };
    if (tx !== undefined) message.tx = tx;
    if (opts?.timeout !== undefined) message.timeout = opts.timeout;
    const signal = opts?.signal;
    let onAbort: (() => void) | null = null;
    if (signal) {
      if (signal.aborted) return Promise.reject(new AbortError());
      message.abortable = true;
      onAbort = () => {
        if (this.#flags) Atomics.store(this.#flags, id & (INTERRUPT_SLOTS - 1), id | 0);
        this.#port.postMessage({ id: this.#next++, op: 'abort', args: [id] });
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, {
        resolve: (v) => { if (onAbort) signal!.removeEventListener('abort', onAbort); resolve(v as T); },
        reject: (e) => {
          if (onAbort) signal!.removeEventListener('abort', onAbort);
          // Stopped inside the engine because the signal aborted: an abort, as on the main thread.
          reject(signal?.aborted && e instanceof OpticError && e.code === 'INTERRUPT' ? new AbortError() : e);
        },
      });
      try {
        this.#port.postMessage(message);
      } catch (e) {
        this.#pending.delete(id);
        reject(e);  // a value that cannot be cloned (a function, a symbol)
      }
    });
  }
  subscribe(sub: { result(v: unknown): void; error(e: unknown): void }): number {
    const id = this.#next++;
    this.#subs.set(id, sub);
    return id;
  }
  unsubscribe(id: number): void {
    if (this.#subs.delete(id) && !this.#closed && !this.#failure) this.request('unsubscribe', [id]).catch(() => {});
  }
  /** Stops every call made so far that has not finished (WorkerDatabase.interrupt). */
  interrupt(): void {
    if (this.#closed || this.#failure) return;
    this.#interrupts++;
    if (this.#flags) Atomics.store(this.#flags, INTERRUPT_COUNT, this.#interrupts);
    else this.#port.postMessage({ id: this.#next++, op: 'interrupt', args: [this.#interrupts] });
  }
  /** Every call from now on fails with `e` (the worker failed or went away). */
  fail(e: Error): void {
    this.#failure ??= e;
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
  }
  closed(): void {
    this.#closed = true;
    this.#subs.clear();
    this.#port.close?.();
  }
  get isOpen(): boolean {
    return !this.#closed && !this.#failure;
  }

  #receive(m: Response | EventMessage): void {
    if ('sub' in m) {
      const sub = this.#subs.get(m.sub);
      if (!sub) return;
      try {
        if (m.kind === 'result') sub.result(m.value);
        else sub.error(deserializeError(m.value as never));
      } catch (e) {
        console.error('opticdb: an event handler threw:', e);
      }
      return;
    }
    const p = this.#pending.get(m.id);
    if (!p) return;
    this.#pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(deserializeError(m.error));
  }
}

/** What a request that starts an execution answers: its cursor and first batch. */
interface Batch {
  cursor: number;
  rows: PackedRows;
  done: boolean;
}

/** Rows pulled from the worker in growing batches; iterate with `for await`. The first batch comes
 *  with the call that starts the execution, and each later one is asked for while the page reads
 *  the one before. Leaving the loop early (break, return, throw) ends the execution in the worker. */
export class WorkerRows<T> implements AsyncIterableIterator<T> {
  #conn: Connection;
  #cursor = 0;
  #rows: T[] = [];
  #i = 0;
  #batch = FIRST_BATCH;
  #done = false;      // the worker has no more rows (or the iteration ended)
  #next: Promise<Batch> | null;  // the batch asked for and not yet read

  /** @internal `start(n)` starts the execution, asking for its first n rows. */
  constructor(conn: Connection, start: (first: number) => Promise<Batch>) {
    this.#conn = conn;
    this.#next = start(FIRST_BATCH);
    this.#next.catch(() => {});  // reported by the first next()
  }
  [Symbol.asyncIterator](): this {
    return this;
  }
  async next(): Promise<IteratorResult<T, undefined>> {
    while (this.#i >= this.#rows.length) {
      const coming = this.#next;
      if (!coming) return { value: undefined, done: true };
      this.#next = null;
      let batch: Batch;
      try {
        batch = await coming;
      } catch (e) {
        this.#done = true;
        throw e;
      }
      this.#cursor = batch.cursor || this.#cursor;
      this.#rows = unpackRows<T>(batch.rows);
      this.#i = 0;
      if (batch.done) this.#done = true;
      else if (!this.#done) this.#ask();
    }
    return { value: this.#rows[this.#i++], done: false };
  }
  async return(): Promise<IteratorResult<T, undefined>> {
    const coming = this.#next;
    const wasDone = this.#done;
    this.#done = true;
    this.#next = null;
    this.#rows = [];
    if (coming) {
      const batch = await coming.catch(() => null);
      if (batch && !batch.done) await this.#finish(batch.cursor || this.#cursor);
    } else if (!wasDone) {
      await this.#finish(this.#cursor);
    }
    return { value: undefined, done: true };
  }
  /** Every remaining row. */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const r of this) out.push(r);
    return out;
  }
  #ask(): void {
    this.#batch = Math.min(this.#batch * 2, MAX_BATCH);
    this.#next = this.#conn.request<{ rows: PackedRows; done: boolean }>('pull', [this.#cursor, this.#batch])
      .then((r) => ({ cursor: this.#cursor, ...r }));
    this.#next.catch(() => {});
  }
  async #finish(cursor: number): Promise<void> {
    if (cursor) await this.#conn.request('finish', [cursor]).catch(() => {});
  }
}

/** A statement prepared in the worker (WorkerDatabase.prepare). */
export class WorkerStatement<T = Row> {
  readonly sql: string;
  #conn: Connection;
  #id: Promise<number>;
  #finalized = false;

  /** @internal */
  constructor(conn: Connection, sql: string, id: Promise<number>) {
    this.#conn = conn;
    this.sql = sql;
    this.#id = id;
    id.catch(() => {});  // reported by the first call
  }
  async run(params?: BindParams, opts?: RunOptions): Promise<RunResult> {
    return this.#call('run', [params], opts);
  }
  async get(params?: BindParams, opts?: RunOptions): Promise<T | undefined> {
    return this.#call('get', [params], opts);
  }
  /** Rows as objects (`for await`). */
  all(params?: BindParams, opts?: RunOptions): WorkerRows<T> {
    return new WorkerRows<T>(this.#conn, (first) => this.#call('all', [params, first], opts));
  }
  /** Rows as arrays in column order (`for await`). */
  iterateRows(params?: BindParams, opts?: RunOptions): WorkerRows<SqlValue[]> {
    return new WorkerRows<SqlValue[]>(this.#conn, (first) => this.#call('iterateRows', [params, first], opts));
  }
  /** Binds parameters for the next executions that pass none. */
  async bindAll(params: BindParams): Promise<this> {
    await this.#call('bindAll', [params]);
    return this;
  }
  async clearBindings(): Promise<this> {
    await this.#call('clearBindings', []);
    return this;
  }
  async reset(): Promise<void> {
    return this.#call('reset', []);
  }
  getColumnNames(): Promise<string[]> {
    return this.#call('getColumnNames', []);
  }
  getParameters(): Promise<(string | null)[]> {
    return this.#call('getParameters', []);
  }
  isQuery(): Promise<boolean> {
    return this.#call('isQuery', []);
  }
  /** What the statement reads (api-and-watch.md §4), with `params` applied. */
  getChangeScope(params?: BindParams): Promise<ChangeScope> {
    return this.#call('getChangeScope', [params]);
  }
  /** Frees the statement in the worker. Idempotent. */
  async finalize(): Promise<void> {
    if (this.#finalized) return;
    this.#finalized = true;
    const id = await this.#id.catch(() => null);
    if (id !== null && this.#conn.isOpen) await this.#conn.request('statement', [id, 'finalize']).catch(() => {});
  }
  /** finalize() without waiting. */
  dispose(): void {
    void this.finalize();
  }
  async #call<R>(method: string, args: unknown[], opts?: RunOptions): Promise<R> {
    if (this.#finalized) throw new MisuseError('Statement is finalized');
    const id = await this.#id;
    return this.#conn.request<R>('statement', [id, method, ...args], undefined, opts);
  }
}

/** The handle `db.transaction(fn)` gives fn: its statements run inside the transaction. */
export interface WorkerTransaction {
  exec(sql: string, params?: BindParams, opts?: RunOptions): Promise<void>;
  run(sql: string, params?: BindParams, opts?: RunOptions): Promise<RunResult>;
  get<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T | undefined>;
  all<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T[]>;
  eval<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): WorkerRows<T>;
  prepare<T = Row>(sql: string): WorkerStatement<T>;
  /** A nested transaction: a savepoint, released when fn resolves, rolled back to when it throws. */
  transaction<R>(fn: (tx: WorkerTransaction) => R | Promise<R>): Promise<R>;
}

/** Database's async API, served by a worker (`serve()` from 'opticdb/worker' in the worker file). */
export class WorkerDatabase {
  #conn: Connection;
  #savepoints = 0;
  readonly rehydration: Rehydration;
  /** Catalog entries that could not be loaded when the database opened. */
  readonly loadErrors: string[];
  /** True for a database opened on IndexedDB or a file. */
  readonly persistent: boolean;

  private constructor(conn: Connection, info: { rehydration: Rehydration; loadErrors: string[]; persistent: boolean }) {
    this.#conn = conn;
    this.rehydration = info.rehydration;
    this.loadErrors = info.loadErrors;
    this.persistent = info.persistent;
  }

  /** Opens a database in the worker `target` runs (`serve()`): a Worker, a SharedWorker, or a
   *  MessagePort whose other end serve() listens on. `options` are Database.open's. Several
   *  WorkerDatabases may share one worker. */
  static async open(target: WorkerTarget, options: DatabaseOptions = {}): Promise<WorkerDatabase> {
    const shared = typeof SharedWorker !== 'undefined' && target instanceof SharedWorker;
    const endpoint = (shared ? (target as SharedWorker).port : target) as Endpoint;
    const { port1, port2 } = new MessageChannel();
    const conn = new Connection(port1 as unknown as Endpoint);
    // A worker that fails to load (or throws at the top level) fails the open waiting for it.
    const failure = (e: Event) => {
      const message = (e as ErrorEvent).message;
      conn.fail(new OpticError(`the database worker failed${message ? `: ${message}` : ''}`, 'INTERNAL'));
    };
    const errors = (shared || (typeof Worker !== 'undefined' && target instanceof Worker)) ? target as EventTarget : null;
    errors?.addEventListener('error', failure);
    endpoint.postMessage({ opticdb: CONNECT, port: port2 }, [port2 as unknown as Transferable]);
    conn.shareInterruptFlags(shared);
    try {
      const info = await conn.request<{ rehydration: Rehydration; loadErrors: string[]; persistent: boolean }>('open', [options]);
      return new WorkerDatabase(conn, info);
    } catch (e) {
      conn.closed();
      throw e;
    } finally {
      errors?.removeEventListener('error', failure);
    }
  }

  /** Makes the calls made so far that have not finished fail with code INTERRUPT
   *  ('interrupted'), each rolled back as a failing statement is; the database stays usable.
   *  Where memory can be shared with the worker (Node; a cross-origin isolated page; not a
   *  SharedWorker) this reaches a statement while it runs; elsewhere only between the batches of
   *  an iterated result, and a statement the worker has not started yet. */
  interrupt(): void {
    this.#conn.interrupt();
  }

  // ---- statements -------------------------------------------------------------------------
  exec(sql: string, params?: BindParams, opts?: RunOptions): Promise<void> {
    return this.#conn.request('exec', [sql, params], undefined, opts);
  }
  run(sql: string, params?: BindParams, opts?: RunOptions): Promise<RunResult> {
    return this.#conn.request('run', [sql, params], undefined, opts);
  }
  get<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T | undefined> {
    return this.#conn.request('get', [sql, params], undefined, opts);
  }
  async all<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T[]> {
    return unpackRows<T>((await this.#conn.request<{ rows: PackedRows }>('all', [sql, params], undefined, opts)).rows);
  }
  /** The rows of the last statement of `sql`, pulled in batches (`for await`). */
  eval<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): WorkerRows<T> {
    return new WorkerRows<T>(this.#conn, (first) => this.#conn.request('eval', [sql, params, first], undefined, opts));
  }
  /** A statement prepared in the worker, returned at once: one that does not compile fails its
   *  first call. */
  prepare<T = Row>(sql: string): WorkerStatement<T> {
    return new WorkerStatement<T>(this.#conn, sql, this.#conn.request('prepare', [sql]));
  }

  // ---- transactions -----------------------------------------------------------------------
  async beginTransaction(): Promise<void> {
    await this.exec('begin');
  }
  async commit(): Promise<void> {
    await this.exec('commit');
  }
  async rollback(): Promise<void> {
    await this.exec('rollback');
  }
  /** True when no explicit transaction is open. */
  getAutocommit(): Promise<boolean> {
    return this.#conn.request('autocommit', []);
  }
  /** Runs fn inside a transaction: committed when fn resolves, rolled back when it throws (the
   *  error is rethrown). Every other call on this database waits until it ends (use `tx`). */
  async transaction<R>(fn: (tx: WorkerTransaction) => R | Promise<R>): Promise<R> {
    const id = await this.#conn.request<number>('begin', []);
    let result: R;
    try {
      result = await fn(this.#transactionHandle(id));
    } catch (e) {
      await this.#conn.request('end', [id, false]);
      throw e;
    }
    await this.#conn.request('end', [id, true]);
    return result;
  }
  #transactionHandle(id: number): WorkerTransaction {
    const conn = this.#conn;
    const tx: WorkerTransaction = {
      exec: (sql, params, opts) => conn.request('exec', [sql, params], id, opts),
      run: (sql, params, opts) => conn.request('run', [sql, params], id, opts),
      get: (sql, params, opts) => conn.request('get', [sql, params], id, opts),
      all: async (sql, params, opts) => unpackRows((await conn.request<{ rows: PackedRows }>('all', [sql, params], id, opts)).rows),
      eval: (sql, params, opts) => new WorkerRows(conn, (first) => conn.request('eval', [sql, params, first], id, opts)),
      prepare: (sql) => new WorkerStatement(conn, sql, conn.request('prepare', [sql], id)),
      transaction: async (fn) => {
        const name = `opticdb_tx_${++this.#savepoints}`;
        await tx.exec(`savepoint ${name}`);
        try {
          const result = await fn(tx);
          await tx.exec(`release ${name}`);
          return result;
        } catch (e) {
          if (conn.isOpen && !(await conn.request<boolean>('autocommit', [], id).catch(() => true))) {
            await tx.exec(`rollback to ${name}`);
            await tx.exec(`release ${name}`);
          }
          throw e;
        }
      },
    };
    return tx;
  }

  // ---- reactivity -------------------------------------------------------------------------
  /** Runs `sql` now and again after each commit that changes its result (Database.live); returns
   *  the unsubscribe function. A query that cannot start goes to onError (default console.error). */
  live(sql: string, params: BindParams, onResult: (r: LiveResult) => void, onError?: (e: unknown) => void): () => void {
    const error = onError ?? ((e: unknown) => console.error('opticdb: a live query could not start:', e));
    let stopped = false;
    const sub = this.#conn.subscribe({ result: (v) => { if (!stopped) onResult(v as LiveResult); }, error });
    this.#conn.request('live', [sub, sql, params]).catch(error);
    return () => {
      stopped = true;
      this.#conn.unsubscribe(sub);
    };
  }
  /** The live query as an observable value of object rows (Database.liveQuery). */
  liveQuery<T = Row>(sql: string, params: BindParams = []): LiveQuery<T> {
    return new LiveQuery<T>((onResult, onError) => this.live(sql, params, onResult, onError));
  }
  /** Calls handler after each commit that intersects scope (Database.watch). A scope that cannot
   *  be watched is reported to console.error. `id` is this connection's number for the watch. */
  watch(scope: ChangeScope, handler: (e: WatchEvent) => void | Promise<void>): Subscription {
    const sub = this.#listen(handler);
    this.#conn.request('watch', [sub, scope]).catch((e) => console.error('opticdb: a watch could not start:', e));
    return { id: String(sub), unsubscribe: () => this.#conn.unsubscribe(sub) };
  }
  onDataChange(listener: (e: DataChangeEvent) => void): () => void {
    return this.#on('data', listener);
  }
  onSchemaChange(listener: (e: SchemaChangeEvent) => void): () => void {
    return this.#on('schema', listener);
  }
  onTransactionCommit(listener: (e: TransactionCommitEvent) => void): () => void {
    return this.#on('commit', listener);
  }
  async notifyExternalChange(table: string, schema?: string): Promise<void> {
    await this.#conn.request('notifyExternalChange', [table, schema]);
  }
  #listen<E>(handler: (e: E) => void | Promise<void>): number {
    return this.#conn.subscribe({
      result: (v) => {
        const r = handler(v as E);
        if (r instanceof Promise) r.catch((e) => console.error('opticdb: an event handler threw:', e));
      },
      error: (e) => console.error('opticdb:', e),
    });
  }
  #on<E>(kind: string, listener: (e: E) => void): () => void {
    const sub = this.#listen(listener);
    this.#conn.request('listen', [sub, kind]).catch((e) => console.error('opticdb: a listener could not start:', e));
    return () => this.#conn.unsubscribe(sub);
  }

  // ---- the rest ---------------------------------------------------------------------------
  setOption(name: string, value: string | number | boolean): Promise<void> {
    return this.#conn.request('setOption', [name, value]);
  }
  getOption(name: string): Promise<SqlValue> {
    return this.#conn.request('getOption', [name]);
  }
  async setSchemaPath(path: string[]): Promise<void> {
    await this.setOption('schema_path', path.join(','));
  }
  async getSchemaPath(): Promise<string[]> {
    const v = await this.getOption('schema_path');
    return typeof v === 'string' && v !== '' ? v.split(',').map((s) => s.trim()) : [];
  }
  /** The database as the bytes of a database file (Database.export); the bytes are moved, not copied. */
  export(): Promise<Uint8Array> {
    return this.#conn.request('export', []);
  }
  /** Closes the database in the worker (after every call made before) and this connection;
   *  the worker itself keeps running (terminate it when the app is done with it). Idempotent. */
  async close(): Promise<void> {
    if (!this.#conn.isOpen) return;
    try {
      await this.#conn.request('close', []);
    } finally {
      this.#conn.closed();
    }
  }
  get isOpen(): boolean {
    return this.#conn.isOpen;
  }
}
