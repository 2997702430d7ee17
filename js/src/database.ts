// Database: one OpticDB database behind the idiomatic JS API (api-and-watch.md §2, §5–8).
//
// Every call into the engine runs synchronously in wasm; methods that the reference API makes
// async return Promises so apps port unchanged (and so persistence can await storage later).
// Events of a commit (watch hits, data/schema/commit events) are queued while the engine runs
// and delivered right after the call that committed returns, in commit order, each exactly
// once; a handler that runs statements itself gets its commit delivered after the current one.
// Handler errors are reported to console.error and never affect the commit.
//
// A persistent database also follows the commits other tabs and workers store in the same
// IndexedDB database (the bridge's BroadcastChannel, indexeddb.ts): each is applied to this
// copy in memory as a commit of its own, so watches, live queries and events (remote: true) see
// it as they see a local one. One that arrives while a statement runs or an explicit
// transaction is open waits until the database is idle again (after the call that ends it).
// A remote commit's data-change events carry each row's net change (old row here, new row as
// stored) in key order, not the other tab's write order.
//
// Lazy loading: a persistent database opens on its catalog alone, and each store table is read from
// IndexedDB the first time a statement may touch it (core/persistence/store_load.h says which). Every
// call that runs SQL goes through hydrated(): when the engine names tables to load, the call waits
// for their read (indexeddb.ts readRanges) and then runs; calls made meanwhile wait behind it, so
// statements still run in call order. A call that needs nothing and finds nothing waiting runs at
// once, as before. Should a statement still reach a table that is not loaded (the engine's safety
// net: it fails with NOT_LOADED, naming the tables in its tablesToLoad, and rolls back), those
// tables are loaded and the statement runs once more. Synchronous reads (iterating a result with a
// plain `for`, allRows) cannot wait: on a table not loaded yet they throw NOT_LOADED (and start its
// load); the first read of a table after opening should be awaited. No other tab's commit is
// applied while a load is being read (indexeddb.ts explains the sequence numbers that make this
// exact). Another tab's commit changes this copy, and so fires data-change events and watches, only
// for tables loaded here (storage alone holds the rest, and their load reads it): watch() loads the
// tables it watches, and live() starts once its tables are loaded, so both follow other tabs from
// then on.
//
// Writes across connections: every connection to one IndexedDB database (tabs, workers, several
// Database objects in one process) shares its write lock (write_lock.ts). A call whose SQL may
// write (Database::writes: anything but queries and pragmas) waits in the call queue for the lock,
// then for the commits other connections stored since this copy last heard of one (the bridge's
// catchUp), and only then runs; BEGIN takes it for the whole transaction. While this connection
// holds the lock, its writes run at once (so a burst of them still shares one IndexedDB transaction);
// it lets go once it has no explicit transaction open, no call queued and every commit it made
// stored. Reads never wait for it. A synchronous write (iterating an INSERT … RETURNING with a
// plain `for`) cannot wait: without the lock it throws MISUSE.
//
// The file store (storage 'file', Node only: filestore.ts) is the other persistent store: the
// whole file is read at open (no lazy loading), each commit is appended to the file inside the
// call that commits, and no other connection shares it. Both stores meet the database through
// PersistentStore (persistent_store.ts); the IndexedDB bridge alone does loading and other tabs'
// commits.
import { AbortError, MisuseError, OpticError, StorageError, engineError } from './errors.js';
import { IndexedDbBridge, type CompactionPolicy, type StorageStats } from './indexeddb.js';
import type { CompactionResult } from './idb/compaction.js';
import type { FileStore, FileStoreOptions } from './filestore.js';
import { nativeModule, type NativeDatabase, type NativeStatement } from './native.js';
import type { PersistentStore, StoreOwner } from './persistent_store.js';
import { Statement, limitsOf, stopNow, type BindParams, type Limits, type Row, type RunOptions, type RunResult, type StatementOwner } from './statement.js';
import { RowIterator, type RowSource } from './row_iterator.js';
import { LiveQuery, positionalParams } from './live_query.js';
import { Image, databaseFile } from './file_format.js';
import { putsRep } from './write_batch.js';
import { WriteLock } from './write_lock.js';
import { serializeChangeScope, valueFromEngineJson, type ChangeScope, type TableWatch } from './change_scope.js';
import { fromCallbackValue, toCallbackValue, type SqlValue } from './wire.js';

export interface DatabaseOptions {
  /** Where the data lives: 'memory' (the default), 'indexeddb' or 'file' (Node; with
   *  Database.open). */
  storage?: 'memory' | 'indexeddb' | 'file';
  /** The IndexedDB database name (storage 'indexeddb'); stored as `opticdb:<name>`. */
  name?: string;
  /** The database file (storage 'file'), created when absent; the native CLI opens it too. */
  path?: string;
  /** Durability of commits (default 'strict'): 'strict' syncs each commit to disk before it
   *  settles; 'relaxed' leaves it to the OS (IndexedDB's 'relaxed'; the file store syncs on
   *  close): a process crash loses nothing, a power loss may lose the latest commits. */
  durability?: 'strict' | 'relaxed';
  /** storage 'file': compact the log once it passes this many bytes and twice the live data
   *  (default 4 MiB). */
  compactMinBytes?: number;
  /** storage 'indexeddb': how long a write waits for another connection (a tab, a worker) to end
   *  its write transaction, in ms, before failing with a StorageError of code BUSY (default
   *  5000; Infinity waits for good). */
  lockTimeout?: number;
  /** @internal storage 'indexeddb': when the commit log is folded into pages (tests, benchmarks). */
  compaction?: Partial<CompactionPolicy>;
}

// The file store's opener, installed by the Node entry (index.node.ts) so the browser build
// never loads node:fs.
let openFileStore: ((path: string, options: FileStoreOptions) => Promise<FileStore>) | null = null;
/** @internal Called once by the Node entry. */
export function installFileStore(open: (path: string, options: FileStoreOptions) => Promise<FileStore>): void {
  openFileStore = open;
}

// How long a hold of the write lock may be kept past the end of a write for the next one.
const LOCK_LINGER_MS = 10;
// What settled() returns for a memory database, which never has a commit to store.
const alreadySettled: Promise<void> = Promise.resolve();

// Passes the opened store from Database.open to the constructor without making it public.
const persistentOpen = Symbol('persistentOpen');
interface PersistentParts {
  store: PersistentStore;
  bridge: IndexedDbBridge | null;  // when the store is IndexedDB: lazy loading, other tabs
  lock: WriteLock | null;          // with the bridge: the write lock shared with other connections
  contents: Uint8Array;  // a batch of puts: the catalog entries (IndexedDB), everything (file)
}

/** What opening a persistent database restored (qualified names, `schema.name`). */
export interface Rehydration {
  views: string[];
  materializedViews: string[];
  /** Materialized views whose stored rows were kept (a clean close vouched for them). */
  adopted: string[];
  /** Materialized views refilled from their bodies before they are first read. */
  refilled: string[];
  /** `name: why` for each entry that could not be restored. */
  errors: string[];
  /** `view: unique ("col")` for each key a declared materialized-view schema declares that this
   *  engine's analysis of the body no longer proves: the view runs, and the key is enforced on its
   *  rows but not relied on. */
  unconfirmedKeys: string[];
}

export interface Subscription {
  readonly id: string;
  unsubscribe(): void;
}
export interface WatchEvent {
  matched: { watch: TableWatch; hits: SqlValue[][] }[];
  txnId: string;
}
export interface DataChangeEvent {
  type: 'insert' | 'update' | 'delete';
  moduleName: string;
  schemaName: string;
  tableName: string;
  key: SqlValue[];
  oldRow?: SqlValue[];
  newRow?: SqlValue[];
  changedColumns?: string[];
  remote: boolean;
}
export interface SchemaChangeEvent {
  type: 'create' | 'alter' | 'drop';
  objectType: 'table' | 'index' | 'column';
  moduleName: string;
  schemaName: string;
  objectName: string;
  oldObjectName?: string;
  columnName?: string;
  oldColumnName?: string;
  ddl?: string;
  remote: boolean;
}
export interface TransactionCommitEvent {
  txnId: string;
  dataChanges: number;
  schemaChanges: number;
  remote: boolean;
}

/** What a live query delivers: the whole result, and its difference from the previous one. */
export interface LiveResult {
  columns: string[];
  rows: SqlValue[][];
  added: SqlValue[][];
  removed: SqlValue[][];
  /** Rows whose key stayed but whose other values changed (only when the result has a key). */
  changed: { before: SqlValue[]; after: SqlValue[] }[];
  /** Output positions of the result's inferred unique key; empty when it has none. */
  keyColumns: number[];
  /** The commit that produced this result; '' for the first delivery. */
  txnId: string;
  initial: boolean;
}

export interface ScalarFunctionOptions {
  /** Number of arguments; -1 for any. */
  numArgs: number;
  /** Deterministic functions may be used in CHECK, DEFAULT and materialized views. */
  deterministic?: boolean;
}
export interface AggregateFunctionOptions {
  numArgs: number;
  initialValue?: unknown;
}

/** The handle `db.transaction(fn)` gives its callback: statements through it run inside the
 *  transaction; other callers of the database wait until it ends. */
export interface Transaction {
  exec(sql: string, params?: BindParams, opts?: RunOptions): Promise<void>;
  run(sql: string, params?: BindParams, opts?: RunOptions): Promise<RunResult>;
  get<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T | undefined>;
  all<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T[]>;
  eval<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): RowIterator<T>;
  prepare<T = Row>(sql: string): Statement<T>;
  /** A nested transaction: a savepoint, released when fn resolves, rolled back to when it throws. */
  transaction<R>(fn: (tx: Transaction) => R | Promise<R>): Promise<R>;
}

export class Database implements StatementOwner {
  #raw: NativeDatabase | null;
  #statements = new Set<Statement<any>>();
  #pending: (() => void)[] = [];
  #delivering = false;
  #store: PersistentStore | null = null;
  #bridge: IndexedDbBridge | null = null;
  #lock: WriteLock | null = null;
  #releasing: Promise<void> | null = null;  // the lock is let go once this connection's commits are stored
  #lockSince = 0;                           // when the write lock was taken
  #takingLock: { granted: Promise<void>; tail: Promise<void> | null } | null = null;  // the queued call taking it
  #writes = new Map<string, boolean>();     // Database::writes of SQL texts seen
  #failure: Error | null = null;
  // Other tabs' batches waiting for this database to be idle; with `ranges`, a resync's contents.
  #remote: { batch: Uint8Array; seq: number; ranges?: Uint8Array }[] = [];
  #applyingRemoteBatches = false;
  #loading = 0;                        // table loads being read: remote batches wait
  #queue: Promise<void> | null = null; // the last call waiting to run (hydrated)
  #loadsNothing = new Set<string>();   // SQL texts that need no table loaded at #loadsVersion
  #loadsVersion = -1;
  // db.transaction(): the open one holds #queue until it ends, so every other call waits behind
  // it; its own calls pass (#inside is set while one of them decides whether to wait).
  #openTx: Transaction | null = null;
  #inside = false;
  #savepoints = 0;
  /** Catalog entries that could not be loaded when a persistent database opened. */
  readonly loadErrors: string[] = [];
  /** What opening a persistent database restored: views, materialized views (each adopted with
   *  its stored rows, or refilled from its body before it is first read) and the entries that
   *  could not be restored (a materialized view over a source that no longer exists: reading it
   *  fails with the reason). Empty for an in-memory database. */
  readonly rehydration: Rehydration = { views: [], materializedViews: [], adopted: [], refilled: [], errors: [], unconfirmedKeys: [] };

  /** An in-memory database. Persistent databases come from Database.open. */
  constructor(options: DatabaseOptions = {}, ...internal: unknown[]) {
    const parts = internal[0] === persistentOpen ? (internal[1] as PersistentParts) : null;
    if (!parts && options.storage && options.storage !== 'memory')
      throw new MisuseError(`storage '${options.storage}' needs the async Database.open(options)`);
    const raw = parts
      ? new (nativeModule().Database)(parts.contents, (batch: Uint8Array<ArrayBuffer>) => parts.store.write(batch), parts.bridge !== null)
      : new (nativeModule().Database)(null, null, false);
    if (!raw.opened()) {
      const e = engineError(raw.lastError());
      raw.delete();
      throw e;
    }
    this.#raw = raw;
    if (parts) {
      this.#store = parts.store;
      this.#bridge = parts.bridge;
      this.#lock = parts.lock;
      this.loadErrors.push(...raw.loadErrors());
      this.rehydration = raw.rehydration();
      parts.store.attach(this.#storeOwner());
    }
  }

  /** Opens a database: { storage: 'indexeddb', name } loads it from IndexedDB (in Node,
   *  globalThis.indexedDB, e.g. fake-indexeddb/auto); { storage: 'file', path } opens or
   *  creates a database file (Node only); otherwise an in-memory one. */
  static async open(options: DatabaseOptions = {}): Promise<Database> {
    if (options.storage === 'file') return Database.#openFile(options);
    if (options.storage !== 'indexeddb') return new Database(options);
    const name = options.name ?? 'default';
    const timeout = options.lockTimeout ?? 5000;
    if (!(timeout >= 0)) throw new MisuseError(`lockTimeout must be a duration in ms, not ${timeout}`);
    const bridge = await IndexedDbBridge.open(name, { durability: options.durability ?? 'strict', compaction: options.compaction });
    try {
      const { contents } = await bridge.readCatalog(nativeModule().catalogRange());
      const lock = new WriteLock(name, timeout);
      return new Database(options, persistentOpen, { store: bridge, bridge, lock, contents });
    } catch (e) {
      await bridge.close();
      throw e;
    }
  }

  /** Deletes the IndexedDB database `name` (what `Database.open({ storage: 'indexeddb', name })`
   *  opens). Databases open on it, in this tab or others, close first (later calls on them fail
   *  with a StorageError). A file database is deleted by removing its file. */
  static async delete(name: string): Promise<void> {
    await IndexedDbBridge.delete(name);
  }

  /** Stores a database file's bytes (what export() returns, or a file the native CLI or the
   *  Node file store wrote) as the IndexedDB database `name`, replacing any database of that
   *  name (as delete() does), and opens it. In Node, a file database is imported by writing the
   *  bytes to its file. */
  static async import(bytes: Uint8Array, options: { name: string; durability?: 'strict' | 'relaxed' }): Promise<Database> {
    const image = new Image();
    try {
      Image.replay(bytes, image);
    } catch (e) {
      throw new MisuseError(`Database.import: ${errorMessage(e)}`);
    }
    await IndexedDbBridge.restore(options.name, putsRep(image.sorted()) as Uint8Array<ArrayBuffer>);
    return Database.open({ ...options, storage: 'indexeddb' });
  }

  /** The whole database as the bytes of a database file, in the native file store's format (the
   *  native CLI `opticdb app.odb`, storage 'file' and Database.import open it): every table,
   *  index, view and materialized view, as committed and stored. Persistent databases only. */
  async export(): Promise<Uint8Array> {
    const store = this.#store;
    if (!store) throw new MisuseError('export() needs a persistent database (storage indexeddb or file)');
    await this.settled();
    return databaseFile(await store.storedEntries());
  }

  static async #openFile(options: DatabaseOptions): Promise<Database> {
    if (!openFileStore) throw new MisuseError("storage 'file' needs Node (the file store uses node:fs); in a browser use storage 'indexeddb'");
    if (typeof options.path !== 'string' || options.path === '') throw new MisuseError("storage 'file' needs a path");
    const min = options.compactMinBytes;
    if (min !== undefined && !(Number.isFinite(min) && min >= 0)) throw new MisuseError(`compactMinBytes must be a byte count, not ${min}`);
    const store = await openFileStore(options.path, {
      durability: options.durability ?? 'strict',
      compactMinBytes: options.compactMinBytes,
    });
    try {
      return new Database(options, persistentOpen, { store, bridge: null, lock: null, contents: store.contents() });
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  // ---- statements -------------------------------------------------------------------------
  /** Runs every statement of `sql` in order (a syntax error anywhere runs nothing). With
   *  params, `sql` must be one statement. */
  async exec(sql: string, params?: BindParams, opts?: RunOptions): Promise<void> {
    if (params !== undefined) {
      await this.run(sql, params, opts);
      return;
    }
    if (opts?.signal?.aborted) throw new AbortError();
    await this.hydrated(sql, () => {
      if (opts?.signal?.aborted) throw new AbortError();  // while it waited for its turn
      this.call(() => this.#check(this.#native().exec(sql)), limitsOf(opts));
    }, () => this.#native().statementCount(sql) === 1);
    await this.settled();
  }

  /** `T`: the shape of its rows (unchecked). */
  prepare<T = Row>(sql: string): Statement<T> {
    return this.#adopt<T>(this.call(() => this.#native().prepare(sql)));
  }

  /** Runs one statement; resolves to how many rows it changed. */
  async run(sql: string, params?: BindParams, opts?: RunOptions): Promise<RunResult> {
    // Prepared once its turn comes (its tables loaded, the write lock taken and other
    // connections' commits applied), so it binds to the tables they created too.
    if (opts?.signal?.aborted) throw new AbortError();
    let st: Statement<Row> | null = null;
    try {
      const changes = await this.hydrated(sql, () => {
        st?.dispose();
        st = this.prepare(sql);
        return st.runNow(params, opts);
      });
      await this.settled();
      return { changes };
    } finally {
      (st as Statement<Row> | null)?.dispose();
    }
  }

  /** The first row of the last statement of `sql`, or undefined. */
  async get<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T | undefined> {
    // Prepared and read in one go: a call made meanwhile must not run between the two.
    const row = await this.hydrated(sql, () => {
      const st = this.#evalStatement<T>(sql);
      try {
        return st.firstRow(params, opts);
      } finally {
        st.dispose();
      }
    }, () => this.#native().statementCount(sql) === 1);
    await this.settled();
    return row;
  }

  /** Runs every statement of `sql`; resolves to the rows of the last one, once the tables it
   *  reads are loaded. */
  async all<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): Promise<T[]> {
    const rows = await this.hydrated(sql, () => {
      const st = this.#evalStatement<T>(sql);
      try {
        return st.all(params, opts).toArray();
      } finally {
        st.dispose();
      }
    }, () => this.#native().statementCount(sql) === 1);
    await this.settled();
    return rows;
  }

  /** Runs every statement of `sql`; yields the rows of the last one (`for await` or `for`). */
  eval<T = Row>(sql: string, params?: BindParams, opts?: RunOptions): RowIterator<T> {
    const waiting = this.hydration(sql);
    if (waiting) return this.#evalLater<T>(sql, waiting, params, opts);
    const st = this.#evalStatement<T>(sql);
    try {
      return st.all(params, opts).onFinish(() => st.dispose());
    } catch (e) {
      st.dispose();
      throw e;
    }
  }

  /** Makes the statements running now fail with code INTERRUPT ('interrupted'), each rolled back
   *  as a failing statement is; the database stays usable. The engine runs on this thread, so
   *  what runs while this code runs is an iterated result between batches (its next batch fails);
   *  a call that never returns cannot be reached from here: give it a `timeout` (RunOptions). */
  interrupt(): void {
    this.#native().interrupt();
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
  getAutocommit(): boolean {
    return this.#native().autocommit();
  }

  /** Runs fn inside a transaction: committed when fn resolves, rolled back when it throws (the
   *  error is rethrown). Statements go through `tx`; every other call on this database, from
   *  anywhere, waits until the transaction ends (so a `db.…` call awaited inside fn never
   *  settles: use `tx`). Transactions run one at a time, in call order; `tx.transaction` nests
   *  one as a savepoint. */
  async transaction<R>(fn: (tx: Transaction) => R | Promise<R>): Promise<R> {
    return this.#serial(async () => {
      const tx = this.#transactionHandle();
      this.#openTx = tx;
      try {
        await tx.exec('begin');
        let result: R;
        try {
          result = await fn(tx);
          if (!this.getAutocommit()) await tx.exec('commit');
        } catch (e) {
          if (this.#raw && !this.getAutocommit()) await tx.exec('rollback');
          throw e;
        }
        return result;
      } finally {
        this.#openTx = null;
      }
    });
  }

  /** Waits for every pending write, finalizes every statement and frees the database.
   *  Idempotent. */
  async close(): Promise<void> {
    const store = this.#store;
    if (store && this.#raw && !this.#failure) {
      await this.#queue?.catch(() => {});  // calls waiting for a table load run first
      // The clean-shutdown marker, queued behind every commit: the next open trusts the stored
      // materialized-view rows (a crash, with no marker, refills them instead). It is a write like
      // any other, under the write lock; when the lock cannot be had, the database closes without
      // it, as after a crash.
      const locked = !this.#lock || await this.#takeLock().then(() => true, () => false);
      if (locked) this.#check(this.#native().close());
    }
    this.#bridge = null;  // no table loads start now
    try {
      if (store) await store.close();
    } finally {
      this.#lock?.release();  // every commit is stored (or the store failed)
      // Until here a commit still reaches the store, which stores it or reports it lost.
      this.#store = null;
      this.#release();
    }
  }
  get isOpen(): boolean {
    return this.#raw !== null;
  }
  /** True for a database opened on IndexedDB or a file. */
  get persistent(): boolean {
    return this.#store !== null;
  }

  // ---- options ----------------------------------------------------------------------------
  /** Sets an option; the names are the pragmas' (`pragma name = value`). */
  setOption(name: string, value: string | number | boolean): void {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new MisuseError(`invalid option name: ${name}`);
    const literal = typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value);
    this.call(() => this.#check(this.#native().exec(`pragma ${name} = ${literal}`)));
  }
  getOption(name: string): SqlValue {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new MisuseError(`invalid option name: ${name}`);
    const st = this.prepare(`pragma ${name}`);
    try {
      const rows = st.allRows();
      return rows.length ? rows[0][rows[0].length - 1] : null;
    } finally {
      st.dispose();
    }
  }
  setSchemaPath(path: string[]): void {
    this.setOption('schema_path', path.join(','));
  }
  getSchemaPath(): string[] {
    const v = this.getOption('schema_path');
    return typeof v === 'string' && v !== '' ? v.split(',').map((s) => s.trim()) : [];
  }

  // ---- functions --------------------------------------------------------------------------
  /** A scalar SQL function implemented in JS. fn gets SQL values and returns one. */
  createScalarFunction(name: string, options: ScalarFunctionOptions, fn: (...args: SqlValue[]) => SqlValue): void {
    const call = (args: unknown[]) => guardedCallback(() => fn(...args.map(fromCallbackValue)));
    this.#check(this.#native().createScalarFunction(name, options.numArgs, options.deterministic ?? true, call));
  }
  /** An aggregate: step(acc, ...args) returns the next accumulator, finish(acc) the result. */
  createAggregateFunction(name: string, options: AggregateFunctionOptions,
                          step: (acc: any, ...args: SqlValue[]) => any, finish: (acc: any) => SqlValue): void {
    const stepCall = (acc: unknown, args: unknown[]) => {
      try {
        return { acc: step(acc, ...args.map(fromCallbackValue)) };
      } catch (e) {
        return { error: errorMessage(e) };
      }
    };
    const finishCall = (acc: unknown) => guardedCallback(() => finish(acc));
    this.#check(this.#native().createAggregateFunction(name, options.numArgs, stepCall, finishCall,
                                                         options.initialValue ?? null));
  }

  // ---- reactivity -------------------------------------------------------------------------
  /** Calls handler after each commit that intersects scope (api-and-watch.md §5). */
  watch(scope: ChangeScope, handler: (e: WatchEvent) => void | Promise<void>): Subscription {
    const db = this.#native();
    const id = db.watch(JSON.stringify(serializeChangeScope(scope)), (_kind, json) =>
      this.#enqueue(handler, decodeWatchEvent(json)));
    if (id === '') throw engineError(db.lastError());
    // A remote commit changes a table in this copy only once it is loaded (until then storage
    // alone has it): the watched tables are loaded now, so later commits of other tabs reach
    // the watch. (Commits stored before that load completes come with the load, without an event.)
    if (this.#bridge) {
      const tables = scope.watches.map((w) => `${w.table.schema || 'main'}.${w.table.table}`.toLowerCase());
      this.#serial(() => this.#loadTables(tables)).catch((e) => console.error('opticdb: a watched table could not be loaded:', e));
    }
    return { id, unsubscribe: () => { this.#raw?.unwatch(id); } };
  }
  /** Runs `sql` now and again after each commit that intersects its change scope and changes
   *  its result; onResult gets the rows (as arrays) and the diff, in commit order, at most once
   *  per commit. Returns the unsubscribe function. A query that cannot start throws, or when it
   *  starts later (its tables being loaded) goes to onError (default: console.error).
   *  liveQuery() is the same as an observable of object rows. */
  live(sql: string, params: BindParams, onResult: (r: LiveResult) => void,
       onError?: (e: unknown) => void): () => void {
    let id = '';
    let stopped = false;
    const values = Array.isArray(params) ? params as readonly SqlValue[] : null;
    const start = () => {
      const db = this.#native();
      const positional = values ?? this.#positionalParams(sql, params);
      id = this.call(() => db.live(sql, positional.map(toCallbackValue), (_kind, json) =>
        this.#enqueue(onResult, decodeLiveResult(json))));
      if (id === '') throw engineError(db.lastError());
    };
    const stop = () => {
      stopped = true;
      if (id) this.#raw?.stopLive(id);
    };
    const waiting = this.hydration(sql);
    if (!waiting) start();
    else waiting.then(() => { if (!stopped) start(); })
      .catch(onError ?? ((e) => console.error('opticdb: a live query could not start:', e)));
    return stop;
  }
  /** The live query as an observable value of object rows (LiveQuery: subscribe, getSnapshot):
   *  it runs while something subscribes. A Svelte store; opticdb/react's useLiveQuery uses it. */
  liveQuery<T = Row>(sql: string, params: BindParams = []): LiveQuery<T> {
    return new LiveQuery<T>((onResult, onError) => this.live(sql, params, onResult, onError));
  }
  // Named parameters of `sql` in slot order (live() takes values by position).
  #positionalParams(sql: string, params: BindParams): SqlValue[] {
    const st = this.prepare(sql);
    try {
      return positionalParams(params, st.getParameters());
    } finally {
      st.dispose();
    }
  }

  /** Tells the watches and live queries of `table` that its rows changed behind the engine's
   *  back: they fire as if every row had changed (rows watches report all their tuples). */
  async notifyExternalChange(table: string, schema?: string): Promise<void> {
    const db = this.#native();
    this.call(() => this.#check(db.notifyExternalChange(table, schema ?? '')));
  }

  onDataChange(listener: (e: DataChangeEvent) => void): () => void {
    return this.#listen(this.#native().onDataChange((_k, json) => this.#enqueue(listener, decodeDataEvent(json))));
  }
  onSchemaChange(listener: (e: SchemaChangeEvent) => void): () => void {
    return this.#listen(this.#native().onSchemaChange((_k, json) => this.#enqueue(listener, JSON.parse(json))));
  }
  onTransactionCommit(listener: (e: TransactionCommitEvent) => void): () => void {
    return this.#listen(this.#native().onTransactionCommit((_k, json) => this.#enqueue(listener, JSON.parse(json))));
  }

  // ---- StatementOwner ---------------------------------------------------------------------
  /** @internal */
  call<T>(f: () => T, limits?: Limits): T {
    const native = limits === undefined ? null : this.#native();
    if (limits?.deadline !== undefined) native!.setDeadline(Math.max(0, limits.deadline - performance.now()));
    if (limits?.shouldInterrupt) native!.setInterruptPoll(() => stopNow(limits.shouldInterrupt!));
    try {
      return f();
    } catch (e) {
      // A trap (out-of-bounds access, unreachable, stack overflow) is a bug in the engine, never
      // an opaque WebAssembly error for the app; the engine's state is suspect afterwards.
      if (e instanceof WebAssembly.RuntimeError) throw new OpticError(`internal error: ${e.message}`, 'INTERNAL');
      throw e;
    } finally {
      if (limits?.deadline !== undefined) native!.setDeadline(-1);
      if (limits?.shouldInterrupt) native!.setInterruptPoll(null);
      this.#deliver();
      if (this.#remote.length) this.#applyRemoteBatches();
      this.#store?.afterCall?.();
      this.#letGoOfLock();
    }
  }
  /** @internal IndexedDB: folds the commit log into the pages now (tests, benchmarks). */
  async compactStorage(): Promise<CompactionResult> {
    if (!this.#bridge) throw new MisuseError('compactStorage() needs storage indexeddb');
    await this.settled();
    return this.#bridge.compact();
  }
  /** @internal IndexedDB: the bytes this connection's commits and compactions wrote. */
  storageStats(): StorageStats | null {
    return this.#bridge ? { ...this.#bridge.stats } : null;
  }
  /** @internal Resolves once every commit made so far is stored (persistent databases). A
   *  memory database has nothing to wait for: one settled promise serves every call (a write
   *  loop awaits this once per statement). */
  settled(): Promise<void> {
    if (!this.#store && !this.#failure) return alreadySettled;
    return this.#settledStorage();
  }
  async #settledStorage(): Promise<void> {
    if (this.#store) {
      try {
        await this.#store.settled();
      } catch (e) {
        if (this.#failure) throw this.#lostError();
        throw e instanceof OpticError ? e : StorageError.of('IndexedDB write failed', e);
      }
    }
    if (this.#failure) throw this.#lostError();
  }
  /** @internal */
  forget(s: Statement<any>): void {
    this.#statements.delete(s);
  }
  /** @internal Runs `run` once the store tables `sql` may touch are loaded and every call that
   *  waited before this one has run; at once (synchronously) when nothing needs waiting for.
   *  `retry` says whether a run that failed with NOT_LOADED may run again (it must have changed
   *  nothing: one statement, rolled back); it runs once the tables the error names are loaded. */
  hydrated<T>(sql: string, run: () => T, retry: () => boolean = () => true): Promise<T> {
    // The open transaction's own call: it runs later as it runs now, passing the queue.
    const tx = this.#inside ? this.#openTx : null;
    if (tx) {
      const own = run;
      run = () => this.#within(tx, own);
    }
    const waiting = this.hydration(sql);
    if (!waiting) {
      try {
        return Promise.resolve(run());
      } catch (e) {
        return this.#loadAndRunAgain(e, sql, run, retry, tx);
      }
    }
    return waiting.then(() => {
      try {
        return run();
      } catch (e) {
        return this.#loadAndRunAgain(e, sql, run, retry, tx);
      }
    });
  }
  // hydrated()'s second try: after a NOT_LOADED failure that `retry` allows, loads the tables
  // the error names (else those `sql` reaches) and runs again; any other error goes on up.
  #loadAndRunAgain<T>(e: unknown, sql: string, run: () => T, retry: () => boolean, tx: unknown): Promise<T> {
    if (!(e instanceof OpticError) || e.code !== 'NOT_LOADED' || !this.#bridge || !retry()) throw e;
    const named = e.tablesToLoad ?? [];
    const load = async () => {
      await this.#loadTables(named.length ? named : this.#tablesToLoad(sql));
      return run();
    };
    return tx ? load() : this.#serial(load);
  }
  /** @internal Null when `sql` can run now; else a promise that resolves when it can (its tables
   *  loaded, earlier waiting calls run). Callers run it in the same tick the promise settles. */
  hydration(sql: string, now = false): Promise<void> | null {
    const lock = this.#needsLock(sql);
    if (lock && now) {
      throw new MisuseError('a write to a shared database waits for its write lock: run it with `for await`, run() or exec()');
    }
    if (this.#inside && this.#openTx) {  // the transaction's own call: its tables only
      const tables = this.#bridge ? this.#tablesToLoad(sql) : [];
      if (lock) return this.#loadTables(tables).then(() => this.#takeLock());
      return tables.length ? this.#loadTables(tables) : null;
    }
    if (now && this.#openTx) {
      throw new MisuseError('a transaction (db.transaction) is open: read with `for await` or db.all, which wait for it');
    }
    // `now`: the caller runs now whatever waits (its turn has come): only a table to load counts.
    if (!this.#bridge) return this.#queue && !now ? this.#serial(async () => {}) : null;
    if (!lock && (now || !this.#queue) && this.#tablesToLoad(sql).length === 0) return null;
    // Writes issued together while the lock is being taken, with nothing else queued between
    // them, run together once it is: in call order, in one turn, so their commits share one
    // IndexedDB transaction as they would with the lock held.
    const taking = this.#takingLock;
    if (lock && taking && this.#queue === taking.tail && this.#tablesToLoad(sql).length === 0) return taking.granted;
    const granted = this.#serial(async () => {
      await this.#loadTables(this.#tablesToLoad(sql));
      if (this.#needsLock(sql)) await this.#takeLock();
    });
    if (lock) {
      const mine = { granted, tail: this.#queue };
      this.#takingLock = mine;
      const done = () => { if (this.#takingLock === mine) this.#takingLock = null; };
      granted.then(done, done);
    }
    return granted;
  }

  // ---- internals --------------------------------------------------------------------------
  // Whether `sql` must take the write lock before it runs: it may write, and this connection
  // shares its storage and does not hold the lock.
  #needsLock(sql: string): boolean {
    if (!this.#lock || this.#lock.held) return false;
    let writes = this.#writes.get(sql);
    if (writes === undefined) {
      writes = this.#native().writes(sql);
      if (this.#writes.size >= 1000) this.#writes.clear();
      this.#writes.set(sql, writes);
    }
    return writes;
  }
  // Takes the write lock and applies every commit other connections stored meanwhile.
  async #takeLock(): Promise<void> {
    const lock = this.#lock!;
    if (lock.held) return;
    await lock.acquire();
    this.#lockSince = performance.now();
    try {
      await this.#bridge!.catchUp();
      if (this.#remote.length) {
        // Not idle: an unfinished row iterator keeps other connections' commits from applying,
        // and a write now would build on a copy that misses them.
        throw new StorageError('other connections\' commits wait to be applied here while a statement of this connection is ' +
                               'still open (an unfinished row iterator): finish or close it, then write', 'BUSY');
      }
    } catch (e) {
      lock.release();
      throw e;
    }
  }
  // Lets go of the write lock once no explicit transaction is open, no call waits in the queue
  // (one may have taken the lock for itself and be about to run) and every commit made is stored.
  #letGoOfLock(): void {
    if (!this.#lock?.held || this.#releasing) return;
    this.#releasing = this.#releaseWhenStored().finally(() => { this.#releasing = null; });
  }
  async #releaseWhenStored(): Promise<void> {
    const lock = this.#lock!;
    let through = this.#bridge?.committed;
    let lingered = false;
    for (;;) {
      await this.#store?.settled().catch(() => {});
      if (this.#queue) {
        await this.#queue;
        continue;
      }
      if (!this.#raw || this.#failure || !this.#bridge) break;
      if (!this.#raw.autocommit()) return;  // the call that ends the transaction comes back here
      if (this.#bridge.committed !== through) {  // written meanwhile: wait for that to be stored
        through = this.#bridge.committed;
        lingered = false;
        continue;
      }
      // Kept for one more turn of the event loop while the hold is young: an app that awaits each
      // write issues the next one then, and it runs without taking the lock and catching up again.
      // An older hold lets go at once, so a writer that never pauses cannot starve the others.
      if (lingered || performance.now() - this.#lockSince > LOCK_LINGER_MS) break;
      lingered = true;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    lock.release();
  }
  // f() as a call of the open transaction `tx` (passing the queue it holds); as any call once
  // tx has ended.
  #within<T>(tx: Transaction, f: () => T): T {
    if (this.#openTx !== tx || this.#inside) return f();
    this.#inside = true;
    try {
      return f();
    } finally {
      this.#inside = false;
    }
  }
  // The owner of a statement made now: the open transaction's when one of its calls makes it.
  #owner(): StatementOwner {
    const tx = this.#inside ? this.#openTx : null;
    if (!tx) return this;
    return {
      call: (f, limits) => this.call(f, limits),
      settled: () => this.settled(),
      forget: (s) => this.forget(s),
      hydrated: (sql, run) => this.#within(tx, () => this.hydrated(sql, run)),
      hydration: (sql, now) => this.#within(tx, () => this.hydration(sql, now)),
    };
  }
  // The `tx` of a transaction: this database's calls, made as the transaction's own.
  #transactionHandle(): Transaction {
    const tx: Transaction = {
      exec: (sql, params, opts) => this.#within(tx, () => this.exec(sql, params, opts)),
      run: (sql, params, opts) => this.#within(tx, () => this.run(sql, params, opts)),
      get: (sql, params, opts) => this.#within(tx, () => this.get(sql, params, opts)),
      all: (sql, params, opts) => this.#within(tx, () => this.all(sql, params, opts)),
      eval: (sql, params, opts) => this.#within(tx, () => this.eval(sql, params, opts)),
      prepare: (sql) => this.#within(tx, () => this.prepare(sql)),
      transaction: async (fn) => {
        const name = `opticdb_tx_${++this.#savepoints}`;
        await tx.exec(`savepoint ${name}`);
        try {
          const result = await fn(tx);
          await tx.exec(`release ${name}`);
          return result;
        } catch (e) {
          if (this.#raw && !this.getAutocommit()) {
            await tx.exec(`rollback to ${name}`);
            await tx.exec(`release ${name}`);
          }
          throw e;
        }
      },
    };
    return tx;
  }
  #native(): NativeDatabase {
    if (this.#failure) throw this.#lostError();
    if (!this.#raw) throw new MisuseError('Database is closed');
    return this.#raw;
  }
  #release(): void {
    if (!this.#raw) return;
    for (const s of [...this.#statements]) s.dispose();
    this.#raw.delete();
    this.#raw = null;
  }
  // What the persistent store tells this database (persistent_store.ts), each act passed on to the
  // engine under the engine's name for it.
  #storeOwner(): StoreOwner {
    return {
      acknowledgeStored: (through) => this.#raw?.acknowledgeStored(through),
      // A failed write: memory goes back to what storage holds, live queries and watches
      // re-run, and the database stays open (the statements that saw it reject).
      revertUnstored: () => {
        const native = this.#raw;
        if (native) this.call(() => this.#check(native.revertUnstored()));
      },
      fail: (e) => this.#fail(e),
      applyRemoteBatch: (batch, seq) => {
        this.#remote.push({ batch, seq });
        this.#applyRemoteBatches();
      },
      resync: (read) => this.#resync(read),
    };
  }
  // This copy missed commits of other connections that no remote batch can give it any more:
  // what it holds is read again (the catalog, the loaded tables' rows) and applied before
  // everything that arrived after the read, as one remote commit; what arrived numbered up to
  // the read is in it. No remote batch applies while it is being read.
  async #resync(read: (ranges: Uint8Array) => Promise<{ contents: Uint8Array; seq: number }>): Promise<void> {
    const native = this.#raw;
    if (!native) return;
    const ranges = native.resyncRanges();
    this.#loading++;
    try {
      const { contents, seq } = await read(ranges);
      this.#remote = [{ batch: contents, seq, ranges }, ...this.#remote.filter((r) => r.seq > seq)];
    } finally {
      this.#loading--;
    }
    this.#applyRemoteBatches();
  }
  // The IndexedDB connection went away under a persistent database: memory may hold commits
  // storage does not, and nothing more can be stored, so the database closes; reopening shows
  // exactly what was stored.
  #fail(e: Error): void {
    this.#failure = e;
    this.#store = null;
    this.#bridge = null;
    this.#lock?.release();
    this.#release();
  }
  // Applies the waiting remote batches while the engine is idle (never inside a statement or an
  // explicit transaction); their events are delivered by call(). A batch that fails to apply
  // would leave this copy different from storage: what it holds is read again instead (resync,
  // which no batch overtakes). When that fails too the database fails (closes), so that no
  // answer is served from a copy known to be wrong; reopening reads what is stored.
  #applyRemoteBatches(): void {
    if (this.#applyingRemoteBatches || this.#loading) return;
    this.#applyingRemoteBatches = true;
    try {
      let native: NativeDatabase | null;
      while (this.#remote.length && (native = this.#raw) && native.idle()) {
        const { batch, seq, ranges } = this.#remote.shift()!;
        try {
          this.call(() => this.#check(ranges ? native!.resync(ranges, batch, seq) : native!.applyRemoteBatch(batch, seq)));
        } catch (e) {
          const what = ranges ? `what storage held at commit ${seq}` : `commit ${seq} of another connection`;
          const failure = (cause: unknown) => {
            this.#remote = [];
            this.#bridge?.close().catch(() => {});
            this.#fail(new StorageError(`${what} could not be applied here: ${errorMessage(cause)}`, 'IOERR', { cause }));
          };
          if (ranges || !this.#bridge) failure(e);
          else this.#bridge.resync().catch(() => failure(e));
          return;
        }
      }
      const errors = this.#raw?.loadErrors();
      if (errors && errors.length > this.loadErrors.length) this.loadErrors.push(...errors.slice(this.loadErrors.length));
    } finally {
      this.#applyingRemoteBatches = false;
    }
  }
  // Runs f after every call queued before it (hydrated's order); the queue empties when it does.
  #serial<T>(f: () => Promise<T>): Promise<T> {
    const before = this.#queue;
    const result = (before ? before.then(f) : f());
    const mine: Promise<void> = result.then(() => {}, () => {});
    this.#queue = mine;
    void mine.then(() => {
      if (this.#queue === mine) this.#queue = null;
    });
    return result;
  }
  // The not-loaded tables `sql` may touch (the engine's answer, remembered while the catalog
  // stays the same for texts that need none).
  #tablesToLoad(sql: string): string[] {
    const native = this.#native();
    const version = native.catalogVersion();
    if (version !== this.#loadsVersion) {
      this.#loadsNothing.clear();
      this.#loadsVersion = version;
    }
    if (this.#loadsNothing.has(sql)) return [];
    const tables = native.tablesToLoad(sql);
    if (!tables) throw engineError(native.lastError());
    if (!tables.length && this.#loadsNothing.size < 1000) this.#loadsNothing.add(sql);
    return tables;
  }
  // Reads `tables` from IndexedDB and hands them to the engine. No remote batch is applied
  // meanwhile (those numbered up to the read are in it; the engine skips them for these tables).
  async #loadTables(tables: string[]): Promise<void> {
    if (!tables.length || !this.#bridge) return;
    const bridge = this.#bridge;
    const ranges = this.#native().loadRanges(tables);
    if (!ranges.length) return;  // loaded meanwhile
    this.#loading++;
    try {
      const { contents, seq } = await bridge.readRanges(ranges);
      this.#check(this.#native().loadTables(tables, contents, seq));
    } finally {
      this.#loading--;
      if (this.#remote.length) this.#applyRemoteBatches();
    }
  }
  #lostError(): OpticError {
    return new StorageError(`${this.#failure!.message}; the database was closed, reopen it`, 'IOERR', { cause: this.#failure });
  }
  #check(status: number): void {
    if (status < 0) throw engineError(this.#native().lastError());
  }
  // A statement made by the open transaction's own call keeps passing its queue (#txOwner).
  #adopt<T = Row>(raw: NativeStatement | null, owner: StatementOwner = this.#owner()): Statement<T> {
    if (!raw) throw engineError(this.#native().lastError());
    const s = new Statement<T>(raw, owner);
    this.#statements.add(s);
    return s;
  }
  // eval() of a text that must wait for tables: it runs when they are loaded, on the first pull.
  #evalLater<T>(sql: string, waiting: Promise<void>, params?: BindParams, opts?: RunOptions): RowIterator<T> {
    let st: Statement<T> | null = null;
    let rows: RowSource<T> | null = null;
    const owner = this.#owner();
    return new RowIterator<T>({
      prepare: (sync) => sync ? waiting : waiting.then(() => {
        st = this.#evalStatement<T>(sql, owner);
        const statement = st;
        rows = st.rowSource(params, opts, (r) => statement.objects(r));
      }),
      pull: (n) => rows!.pull(n),
      finish: () => {
        try {
          rows?.finish();
        } finally {
          st?.dispose();
        }
      },
      settled: () => this.settled(),
    });
  }
  #evalStatement<T = Row>(sql: string, owner?: StatementOwner): Statement<T> {
    return this.#adopt<T>(this.call(() => this.#native().eval(sql)), owner);
  }
  #listen(id: number): () => void {
    return () => { this.#raw?.removeListener(id); };
  }
  #enqueue<E>(handler: (e: E) => void | Promise<void>, event: E): void {
    this.#pending.push(() => {
      const r = handler(event);
      if (r instanceof Promise) r.catch(reportHandlerError);
    });
  }
  #deliver(): void {
    // Nothing queued (most calls): return before the try/finally, whose `length = 0` on an
    // empty array still costs a write per engine call.
    if (this.#delivering || this.#pending.length === 0) return;  // an outer delivery loop picks up what this call queued
    this.#delivering = true;
    try {
      for (let i = 0; i < this.#pending.length; i++) {
        try {
          this.#pending[i]();
        } catch (e) {
          reportHandlerError(e);
        }
      }
    } finally {
      this.#pending.length = 0;
      this.#delivering = false;
    }
  }
}

function reportHandlerError(e: unknown): void {
  console.error('opticdb: an event handler threw:', e);
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// Values a JS callback hands back, in the shape wasm/bindings.cpp's fromJs reads.
function guardedCallback(f: () => unknown): unknown {
  try {
    return toCallbackValue(f());
  } catch (e) {
    return { error: errorMessage(e) };
  }
}

function decodeRow(r: unknown[] | undefined): SqlValue[] | undefined {
  return r?.map(valueFromEngineJson);
}
function decodeDataEvent(json: string): DataChangeEvent {
  const e = JSON.parse(json);
  e.key = decodeRow(e.key);
  if (e.oldRow) e.oldRow = decodeRow(e.oldRow);
  if (e.newRow) e.newRow = decodeRow(e.newRow);
  return e;
}
function decodeWatchEvent(json: string): WatchEvent {
  const e = JSON.parse(json);
  return {
    txnId: e.txnId,
    matched: e.matched.map((m: any) => ({
      watch: deserializeWatch(m.watch),
      hits: m.hits.map((h: unknown[]) => h.map(valueFromEngineJson)),
    })),
  };
}
function decodeLiveResult(json: string): LiveResult {
  const r = JSON.parse(json);
  const rows = (rs: unknown[][]) => rs.map((x) => decodeRow(x)!);
  return {
    ...r,
    rows: rows(r.rows),
    added: rows(r.added),
    removed: rows(r.removed),
    changed: r.changed.map((c: any) => ({ before: decodeRow(c.before)!, after: decodeRow(c.after)! })),
  };
}
function deserializeWatch(w: any): TableWatch {
  return { ...w, columns: w.columns === 'all' ? 'all' : new Set<string>(w.columns) };
}

