// The IndexedDB bridge: one IndexedDB database per OpticDB database, with one object store
// (`kv`) created once, holding the engine's flat ordered key space (binary keys compare bytewise,
// exactly the memcmp order of the store layout), so no DDL ever needs a version upgrade.
//
// Opening reads every entry and hands them to the engine, which hydrates the catalog and tables.
// Each commit's write batch arrives here synchronously from the engine (JsSink), numbered as the
// engine numbers it (1, 2, …). Batches that arrive while no IndexedDB transaction is running, or
// while one runs, share the next readwrite transaction (group commit); transactions run one at
// a time, so storage always holds a prefix of the commits. A statement settles when the batches
// made up to its end are stored (settled()).
//
// When a transaction fails or aborts (quota, a storage error), its batches and every later one
// are lost: the bridge tells the database (onLost), which takes memory back to what storage holds
// and stays usable, and every statement that saw a lost commit rejects. When the connection itself
// goes (another tab's upgrade or deletion, an unexpected close), the database closes (onFailure)
// and later calls fail with a clear error instead of hanging.
import { StorageError } from './errors.js';

export interface BridgeOptions {
  durability: 'strict' | 'relaxed';
}

const STORE = 'kv';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

interface Waiter {
  through: number;  // the last batch committed when the statement ended
  resolve: () => void;
  reject: (e: Error) => void;
}

export class IndexedDbBridge {
  readonly name: string;
  #idb: IDBDatabase;
  #durability: 'strict' | 'relaxed';
  #next = 1;                 // the number the engine gives its next batch
  #settledThrough = 0;       // every batch up to here is stored or known lost
  #queued: Uint8Array<ArrayBuffer>[] = [];  // batches #next - queued.length … #next - 1, not yet written
  #pump: Promise<void> | null = null;
  #waiters: Waiter[] = [];
  #failure: Error | null = null;
  #onFailure: (e: Error) => void = () => {};
  #onStored: (through: number) => void = () => {};
  #onLost: (e: Error) => void = () => {};

  private constructor(name: string, idb: IDBDatabase, options: BridgeOptions) {
    this.name = name;
    this.#idb = idb;
    this.#durability = options.durability;
    idb.onversionchange = () => {
      idb.close();
      this.#fail(new StorageError(`IndexedDB database '${name}' was closed by another connection's upgrade or deletion`));
    };
    idb.onclose = () => this.#fail(new StorageError(`IndexedDB database '${name}' was closed unexpectedly`));
  }

  static async open(name: string, options: BridgeOptions): Promise<IndexedDbBridge> {
    const factory: IDBFactory | undefined = (globalThis as any).indexedDB;
    if (!factory) throw new Error('IndexedDB is not available here (in Node, import "fake-indexeddb/auto" first)');
    const req = factory.open(`opticdb:${name}`, 1);
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
    };
    req.onblocked = () => {};
    const idb = await request(req);
    return new IndexedDbBridge(name, idb, options);
  }

  /** Every stored entry, packed as the engine reads it: [u32 len][key][u32 len][value]… */
  async readAll(): Promise<Uint8Array> {
    const tx = this.#idb.transaction(STORE, 'readonly');
    const store = tx.objectStore(STORE);
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    let size = 0;
    const ks = keys.map((k) => new Uint8Array(k as ArrayBuffer));
    const vs = values.map((v) => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBuffer)));
    for (let i = 0; i < ks.length; i++) size += 8 + ks[i].length + vs[i].length;
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    let p = 0;
    for (let i = 0; i < ks.length; i++) {
      for (const b of [ks[i], vs[i]]) {
        view.setUint32(p, b.length, true);
        out.set(b, p + 4);
        p += 4 + b.length;
      }
    }
    return out;
  }

  /** Called once when the connection goes away: the database must close. */
  onFailure(f: (e: Error) => void): void {
    this.#onFailure = f;
  }
  /** Called after each transaction: batches up to `through` are stored. */
  onStored(f: (through: number) => void): void {
    this.#onStored = f;
  }
  /** Called when a transaction failed: every batch not yet stored is lost. */
  onLost(f: (e: Error) => void): void {
    this.#onLost = f;
  }
  get failure(): Error | null {
    return this.#failure;
  }

  /** A commit's batch (from the engine, synchronously inside the commit). */
  enqueue(batch: Uint8Array<ArrayBuffer>): void {
    this.#queued.push(batch);
    this.#next++;
    if (!this.#pump) this.#pump = this.#run();
  }

  /** Resolves when every batch committed so far is stored; rejects when one of them was lost
   *  (the caller saw a commit storage does not have) or the connection went away. */
  settled(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const through = this.#next - 1;
    if (through <= this.#settledThrough) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ through, resolve, reject }));
  }

  /** Drains pending writes, then closes the connection. */
  async close(): Promise<void> {
    try {
      while (this.#pump) await this.#pump;
      if (this.#failure) throw this.#failure;
    } finally {
      this.#idb.onclose = null;
      this.#idb.close();
    }
  }

  // Writes the queued batches, one IndexedDB transaction at a time, until none are left.
  async #run(): Promise<void> {
    await Promise.resolve();  // the batches of this tick go together
    while (this.#queued.length && !this.#failure) {
      const batches = this.#queued;
      this.#queued = [];
      const through = this.#next - 1;
      try {
        await this.#transaction(batches);
      } catch (e) {
        if (!this.#failure) this.#lose(e as Error, through - batches.length + 1);
        continue;
      }
      this.#settle(through, null);
      this.#onStored(through);
    }
    this.#pump = null;
    if (this.#failure) this.#settle(Infinity, this.#failure);
  }

  #transaction(batches: Uint8Array<ArrayBuffer>[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let tx: IDBTransaction;
      try {
        tx = this.#idb.transaction(STORE, 'readwrite', { durability: this.#durability });
      } catch (e) {
        // No transaction can be made: the connection is unusable.
        reject(this.#fail(StorageError.of('IndexedDB write failed', e)));
        return;
      }
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        reject(StorageError.of('IndexedDB write failed', e));
      };
      tx.oncomplete = () => resolve();
      tx.onerror = () => fail(tx.error ?? new Error('transaction error'));
      tx.onabort = () => fail(tx.error ?? new Error('transaction aborted'));
      try {
        const store = tx.objectStore(STORE);
        for (const b of batches) applyBatch(store, b);
      } catch (e) {
        fail(e);  // a request refused (quota, a bad key): none of it may stay
        try {
          tx.abort();
        } catch {
          // already finished
        }
      }
    });
  }

  // Batches from `first` on are lost (those written in the failed transaction and every one
  // queued after them): memory reverts, and statements that saw them reject.
  #lose(e: Error, first: number): void {
    const through = this.#next - 1;
    this.#queued = [];
    const err = new StorageError(`${e.message}; commits ${first}..${through} were rolled back`,
                                 e instanceof StorageError && e.code === 'FULL' ? 'FULL' : 'IOERR', { cause: e });
    this.#settle(through, err, first);
    this.#onLost(err);
  }

  // Batches up to `through` are settled: waiters up to there resolve, or, with `error`, the
  // waiters that saw batch `lostFrom` or later reject.
  #settle(through: number, error: Error | null, lostFrom = 0): void {
    if (through !== Infinity) this.#settledThrough = Math.max(this.#settledThrough, through);
    const waiting: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.through > through) waiting.push(w);
      else if (error && w.through >= lostFrom) w.reject(error);
      else w.resolve();
    }
    this.#waiters = waiting;
  }

  #fail(e: Error): Error {
    if (!this.#failure) {
      this.#failure = e;
      this.#onFailure(e);
      this.#settle(Infinity, e);
    }
    return this.#failure;
  }
}

// Applies one engine batch (see JsSink in wasm/bindings.cpp) to the object store, in order.
function applyBatch(store: IDBObjectStore, b: Uint8Array<ArrayBuffer>): void {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 0;
  // A key may be a view into the batch (IndexedDB copies a key's bytes); a value must be a copy
  // of its own bytes, since storing a view stores the whole buffer it views.
  const next = (copy: boolean) => {
    const n = view.getUint32(p, true);
    const s = copy ? b.slice(p + 4, p + 4 + n) : b.subarray(p + 4, p + 4 + n);
    p += 4 + n;
    return s;
  };
  const key = () => next(false);
  while (p < b.length) {
    const tag = b[p++];
    if (tag === 1) {
      const k = key();
      store.put(next(true), k);
    } else if (tag === 2) {
      store.delete(key());
    } else if (tag === 3) {
      const begin = key();
      const end = key();
      store.delete(end.length ? IDBKeyRange.bound(begin, end, false, true) : IDBKeyRange.lowerBound(begin));
    } else {
      throw new Error(`malformed write batch (tag ${tag})`);
    }
  }
}
