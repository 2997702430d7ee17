// Where a persistent Database meets its store (the IndexedDB bridge, indexeddb.ts; the file
// store, filestore.ts). The engine hands each commit's batch to the store (write); the store
// answers through a StoreOwner whose acts carry the names the engine gives them
// (core/api/database.h), so that one act has one name from C++ to TypeScript.

/** The database as its store sees it. */
export interface StoreOwner {
  /** Batches up to `through` (the engine numbers them 1, 2, …) are stored. */
  acknowledgeStored(through: number): void;
  /** Every batch not yet stored is lost: memory goes back to what storage holds. */
  revertUnstored(): void;
  /** The connection went away: nothing more can be stored, so the database closes. */
  fail(e: Error): void;
  /** A batch another tab or worker stored, with its commit sequence number (IndexedDB only). */
  applyRemoteBatch(batch: Uint8Array, seq: number): void;
  /** It missed commits of other tabs that no batch can give it any more (IndexedDB only): it
   *  reads again, through `read`, the key ranges it holds (with the commit number they were read
   *  at) and makes memory what they hold. */
  resync(read: (ranges: Uint8Array) => Promise<{ contents: Uint8Array; seq: number }>): Promise<void>;
}

/** Where a persistent database's commits go. */
export interface PersistentStore {
  /** A commit's batch (WriteBatch::rep()), synchronously inside the commit. */
  write(batch: Uint8Array<ArrayBuffer>): void;
  /** Resolves once every batch so far is stored; rejects when one was lost. */
  settled(): Promise<void>;
  close(): Promise<void>;
  /** Called once, by the database the store was opened for, before its first write. */
  attach(owner: StoreOwner): void;
  /** Runs after each call into the engine (may throw the call's storage error). */
  afterCall?(): void;
  /** Every stored entry in key order (what is committed and stored; Database.export). */
  storedEntries(): Promise<[Uint8Array, Uint8Array][]>;
}
