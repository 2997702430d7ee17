// The IndexedDB bridge: one IndexedDB database per OpticDB database, with one object store
// (`kv`) created once, holding the engine's flat ordered key space (binary keys compare bytewise,
// exactly the memcmp order of the store layout), so no DDL ever needs a version upgrade.
//
// Opening reads every entry and hands them to the engine, which hydrates the catalog and tables.
// Each commit's write batch arrives here synchronously from the engine (JsSink); batches that
// arrive before the next microtask share one readwrite IndexedDB transaction (group commit), and
// the statements that produced them settle when it completes. If it fails or aborts, or another
// tab's upgrade closes the connection, the bridge reports the failure and the database closes:
// what storage does not have is never shown, and later calls fail with a clear error.

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

export class IndexedDbBridge {
  readonly name: string;
  #idb: IDBDatabase;
  #durability: 'strict' | 'relaxed';
  #queued: Uint8Array[] = [];
  #flush: Promise<void> | null = null;
  #inflight = new Set<Promise<void>>();
  #failure: Error | null = null;
  #onFailure: (e: Error) => void = () => {};

  private constructor(name: string, idb: IDBDatabase, options: BridgeOptions) {
    this.name = name;
    this.#idb = idb;
    this.#durability = options.durability;
    idb.onversionchange = () => {
      idb.close();
      this.#fail(new Error(`IndexedDB database '${name}' was closed by another connection's upgrade or deletion`));
    };
    idb.onclose = () => this.#fail(new Error(`IndexedDB database '${name}' was closed unexpectedly`));
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

  /** Called when a write fails or the connection goes away (once). */
  onFailure(f: (e: Error) => void): void {
    this.#onFailure = f;
  }
  get failure(): Error | null {
    return this.#failure;
  }

  /** A commit's batch (from the engine, synchronously inside the commit). */
  enqueue(batch: Uint8Array): void {
    this.#queued.push(batch);
    if (!this.#flush) {
      this.#flush = Promise.resolve().then(() => this.#write());
      const p = this.#flush.catch(() => {});
      this.#inflight.add(p);
      p.finally(() => this.#inflight.delete(p));
    }
  }

  /** Resolves when every batch queued so far is stored; rejects with the failure if one was not. */
  async settled(): Promise<void> {
    while (this.#flush || this.#inflight.size) {
      if (this.#flush) await this.#flush;
      else await Promise.all([...this.#inflight]);
    }
    if (this.#failure) throw this.#failure;
  }

  /** Drains pending writes, then closes the connection. */
  async close(): Promise<void> {
    try {
      await this.settled();
    } finally {
      this.#idb.onclose = null;
      this.#idb.close();
    }
  }

  #write(): Promise<void> {
    const batches = this.#queued;
    this.#queued = [];
    this.#flush = null;
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      let tx: IDBTransaction;
      try {
        tx = this.#idb.transaction(STORE, 'readwrite', { durability: this.#durability });
        const store = tx.objectStore(STORE);
        for (const b of batches) applyBatch(store, b);
      } catch (e) {
        const err = this.#fail(new Error(`IndexedDB write failed: ${(e as Error).message}`));
        reject(err);
        return;
      }
      tx.oncomplete = () => resolve();
      const failed = () => reject(this.#fail(new Error(`IndexedDB write failed: ${tx.error?.message ?? 'transaction aborted'}`)));
      tx.onerror = failed;
      tx.onabort = failed;
    });
  }

  #fail(e: Error): Error {
    if (!this.#failure) {
      this.#failure = e;
      this.#onFailure(e);
    }
    return this.#failure;
  }
}

// Applies one engine batch (see JsSink in wasm/bindings.cpp) to the object store, in order.
function applyBatch(store: IDBObjectStore, b: Uint8Array): void {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 0;
  const bytes = () => {
    const n = view.getUint32(p, true);
    const s = b.slice(p + 4, p + 4 + n);
    p += 4 + n;
    return s;
  };
  while (p < b.length) {
    const tag = b[p++];
    if (tag === 1) {
      const key = bytes();
      store.put(bytes(), key);
    } else if (tag === 2) {
      store.delete(bytes());
    } else if (tag === 3) {
      const begin = bytes();
      const end = bytes();
      store.delete(end.length ? IDBKeyRange.bound(begin, end, false, true) : IDBKeyRange.lowerBound(begin));
    } else {
      throw new Error(`malformed write batch (tag ${tag})`);
    }
  }
}
