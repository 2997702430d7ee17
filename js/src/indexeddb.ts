// The IndexedDB bridge: one IndexedDB database per OpticDB database (`opticdb:<name>`), laid out
// as idb/format.ts describes (format 2): a commit is ONE record appended to the commit log
// (idb/log.ts: its write batches, keyed by its sequence number), and compaction (idb/compaction.ts)
// folds the log in the background into sorted pages of many entries (idb/pages.ts), so what a
// commit or a load costs follows its bytes, not its entry count. The engine's key space is flat
// and ordered (binary keys compare bytewise, the memcmp order of the store layout), so no DDL ever
// needs a version upgrade; only a new storage format does (migrated once, idb/format.ts).
//
// Reads: every read (readCatalog, readRanges, storedEntries) is one readonly transaction over the
// pages overlapping its key ranges and the log records after the compacted-through number, merged
// (idb/overlay.ts: the log's operations in commit order over the pages, restricted to the ranges);
// a page wholly inside a range and untouched by the log goes to the engine as stored.
// Compaction (idb/schedule.ts) runs once this connection's uncompacted commits pass its thresholds,
// or after idleMs without a commit, and on close when due; it is one readwrite transaction,
// idempotent across connections, and a failed one (quota) changes nothing and is retried later.
//
// Opening reads the catalog entries only (the key range the engine names, with the commit sequence
// number): the engine registers every store table not loaded (core/persistence/store_load.h). Before a
// statement runs, the database asks the engine which not-loaded tables it may touch and
// readRanges() reads their key ranges (rows and index entries) in one readonly transaction, with
// the sequence number, for the engine to load; a table once loaded stays in memory and follows
// other tabs' commits from then on. Ranges and entries cross in the commit-batch format
// (write_batch.ts). Each commit's write batch arrives here synchronously from the engine (write,
// from JsSink), numbered as the engine numbers it (1, 2, …). Batches that arrive while no IndexedDB
// transaction is running, or while one runs, share the next readwrite transaction (group commit);
// transactions run one at a time, so storage always holds a prefix of the commits. A statement
// settles when the batches made up to its end are stored (settled()).
//
// Across tabs: every bridge on one database joins the BroadcastChannel `opticdb:<name>`. Each write
// transaction also bumps the commit sequence number (SEQ, idb/log.ts), and once the transaction
// is complete, never before, the bridge posts {seq,
// batches}. Receivers hand the batches of each sequence number to the database (applyRemoteBatch)
// in sequence order, skipping what their opening snapshot already held (readCatalog reads the
// number with the entries); their own transactions fill their own numbers. A table's load reads the
// number with its entries too: the engine skips, for that table, the batches numbered up to it
// (already in what it read), and the database applies no remote batch while a load is being read,
// so none numbered after it can be missed either. A number missing for GAP_WAIT_MS (a sender that
// closed between storing and posting) is given up on with a warning. The receiving database applies
// the batches to memory only: they are stored already and never pass through this bridge's writes.
//
// The commit log: each write transaction stores its batches under its sequence number (compaction
// keeps the last LOG_KEEP commits it folded, up to LOG_KEEP_BYTES), so a connection can read what
// it missed rather than wait for a broadcast: catchUp() reads the log after the last number it has
// seen, in one readonly transaction with the current number. A gap in the broadcasts (a sender that closed between
// storing and posting) is filled from the log after GAP_WAIT_MS.
//
// Several writers: writes are serialized across connections by the database's write lock
// (write_lock.ts). A connection that takes it catches up first (catchUp), so its statements run
// on every commit stored before, and it releases the lock only once its own commits are stored:
// constraints, `x = x + 1` and materialized views see the union of every connection's writes,
// and each copy equals storage for the tables it has loaded. A connection that fell more than
// LOG_KEEP commits behind cannot catch up from the log: it reads again what it holds (the catalog,
// its loaded tables' rows) and its database makes memory that, as one remote commit (resync). A tab's commit that is later lost (revertUnstored) reverts
// memory to storage minus the lost batches.
//
// When a transaction fails or aborts (quota, a storage error), its batches and every later one
// are lost: the bridge tells the database (revertUnstored), which takes memory back to what
// storage holds and stays usable, and every statement that saw a lost commit rejects. When the
// connection itself goes (another tab's upgrade or deletion, an unexpected close), the database
// closes (fail) and later calls fail with a clear error instead of hanging.
import { StorageError } from './errors.js';
import type { PersistentStore, StoreOwner } from './persistent_store.js';
import { decodeBatch, keyRanges } from './write_batch.js';
import type { CompactionResult } from './idb/compaction.js';
import { Compactor, type CompactionPolicy, type StorageStats } from './idb/schedule.js';
import { connect, idbFactory, request, STATE, asBytes, type State } from './idb/format.js';
import { appendCommit, LOG, META, SEQ, readLog, recordBytes } from './idb/log.js';
import { Overlay, type Entry, type KeyRange } from './idb/overlay.js';
import { concat, packPages, rangeContents, readPages, SEGMENTS } from './idb/pages.js';

export type { CompactionPolicy, StorageStats };

export interface BridgeOptions {
  durability: 'strict' | 'relaxed';
  compaction?: Partial<CompactionPolicy>;
}

const GAP_WAIT_MS = 1000;
const EVERYTHING: KeyRange = [new Uint8Array(0), new Uint8Array(0)];

/** Entries read from storage, as a batch of puts (write_batch.ts), and the commit sequence number
 *  storage was at when they were read. */
export interface Snapshot {
  contents: Uint8Array;
  seq: number;
}

/** What one write transaction's completion broadcasts to the other bridges on the database. */
interface RemoteMessage {
  seq: number;
  batches: Uint8Array[];
}

interface Waiter {
  through: number;  // the last batch committed when the statement ended
  resolve: () => void;
  reject: (e: Error) => void;
}

export class IndexedDbBridge implements PersistentStore {
  readonly name: string;
  #idb: IDBDatabase;
  #durability: 'strict' | 'relaxed';
  #next = 1;                 // the number the engine gives its next batch
  #settledThrough = 0;       // every batch up to here is stored or known lost
  #queued: Uint8Array<ArrayBuffer>[] = [];  // batches #next - queued.length … #next - 1, not yet written
  #pump: Promise<void> | null = null;
  #waiters: Waiter[] = [];
  #failure: Error | null = null;
  #owner: StoreOwner | null = null;
  #closed = false;
  #channel: BroadcastChannel | null = null;
  #seenSeq = 0;                                       // every commit up to here is in memory
  #arrived = new Map<number, Uint8Array[] | null>();  // later ones, by number (null: our own)
  #gapTimer: ReturnType<typeof setTimeout> | null = null;
  #compactor: Compactor;

  private constructor(name: string, idb: IDBDatabase, options: BridgeOptions) {
    this.name = name;
    this.#idb = idb;
    this.#durability = options.durability;
    this.#compactor = new Compactor(idb, options.compaction);
    // Joined before readCatalog, so no commit stored after the snapshot goes unseen.
    if (typeof BroadcastChannel !== 'undefined') {
      this.#channel = new BroadcastChannel(`opticdb:${name}`);
      this.#channel.onmessage = (e: MessageEvent<RemoteMessage>) => {
        if (typeof e.data?.seq === 'number' && Array.isArray(e.data.batches)) this.#arrive(e.data.seq, e.data.batches);
      };
    }
    idb.onversionchange = () => {
      idb.close();
      this.#fail(new StorageError(`IndexedDB database '${name}' was closed by another connection's upgrade or deletion`));
    };
    idb.onclose = () => this.#fail(new StorageError(`IndexedDB database '${name}' was closed unexpectedly`));
  }

  static async open(name: string, options: BridgeOptions): Promise<IndexedDbBridge> {
    return new IndexedDbBridge(name, await connect(name), options);
  }

  /** Deletes the stored database `name`; open connections to it (here and in other tabs) close
   *  first, their databases failing with a StorageError. */
  static async delete(name: string): Promise<void> {
    await request(idbFactory().deleteDatabase(`opticdb:${name}`));
  }

  /** Replaces the stored database `name` (deleted first, as by delete()) with `entries` (a batch
   *  of puts), in one transaction. */
  static async restore(name: string, entries: Uint8Array<ArrayBuffer>): Promise<void> {
    await IndexedDbBridge.delete(name);
    const idb = await connect(name);
    try {
      const tx = idb.transaction(SEGMENTS, 'readwrite');
      const done = new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = tx.onabort = () => reject(StorageError.of('IndexedDB write failed', tx.error));
      });
      const store = tx.objectStore(SEGMENTS);
      try {
        for (const page of packPages(batchEntries(entries))) store.put(page, page.first);
      } catch (e) {
        done.catch(() => {});
        tx.abort();  // a put refused (quota): none of it may stay
        throw StorageError.of('IndexedDB write failed', e);
      }
      await done;
    } finally {
      idb.close();
    }
  }

  /** Every stored entry of the engine's key space, in key order (Database.export). */
  async storedEntries(): Promise<[Uint8Array, Uint8Array][]> {
    return batchEntries((await this.#read([EVERYTHING])).contents);
  }

  /** The catalog entries (what opening needs), from the key range the engine names (its
   *  catalogRange); commits up to the snapshot's number are in it and are not handed over as
   *  remote batches. */
  async readCatalog(range: Uint8Array): Promise<Snapshot> {
    const snapshot = await this.#read(keyRanges(range));
    this.#seenSeq = Math.max(this.#seenSeq, snapshot.seq);
    this.#compactor.opened(snapshot.seq - snapshot.compactedThrough, snapshot.logBytes);
    for (const seq of [...this.#arrived.keys()]) if (seq <= this.#seenSeq) this.#arrived.delete(seq);
    return snapshot;
  }

  /** The entries of the key ranges the engine names (a batch of eraseRange operations, end
   *  exclusive: its loadRanges), read in one transaction with the commit sequence number. */
  async readRanges(ranges: Uint8Array): Promise<Snapshot> {
    const { contents, seq } = await this.#read(keyRanges(ranges));
    return { contents, seq };
  }

  /** Hands the database every commit other connections stored since the last one it has seen
   *  (from the commit log), before resolving. When some of them are no longer in the log, the
   *  database reads again what it holds instead (resync). */
  async catchUp(): Promise<void> {
    const from = this.#seenSeq + 1;
    const tx = this.#idb.transaction([LOG, META], 'readonly');
    const [seq, records] = await Promise.all([request(tx.objectStore(META).get(SEQ)), readLog(tx, from - 1)]);
    const stored = (seq as number | undefined) ?? 0;
    const first = records.length ? records[0][0] : stored + 1;
    if (stored >= from && first > this.#seenSeq + 1) return this.resync();
    for (const [n, batches] of records) this.#arrive(n, batches);
  }

  /** The database reads again what it holds, at a snapshot of storage; commits numbered up to
   *  the snapshot's are in it and are not handed over. For missed commits the log no longer holds
   *  (this connection slept while others wrote more than LOG_KEEP commits), and for a commit that
   *  could not be applied. */
  async resync(): Promise<void> {
    const owner = this.#owner;
    if (!owner) throw new StorageError(`this connection to '${this.name}' missed commits the commit log no longer holds`);
    await owner.resync(async (ranges) => {
      const { contents, seq } = await this.#read(keyRanges(ranges));
      this.#seenSeq = Math.max(this.#seenSeq, seq);
      for (const n of [...this.#arrived.keys()]) if (n <= this.#seenSeq) this.#arrived.delete(n);
      return { contents, seq };
    });
    this.#drain();
  }

  /** The number of batches the engine has handed over (its last batch's number). */
  get committed(): number {
    return this.#next - 1;
  }

  // The entries of `ranges` as one puts batch, with the commit number and compacted-through number
  // of the snapshot, in one readonly transaction: the pages overlapping the ranges with the log
  // records after compacted-through laid over them (restricted to the ranges).
  async #read(ranges: KeyRange[]): Promise<Snapshot & { compactedThrough: number; logBytes: number }> {
    const tx = this.#idb.transaction([META, LOG, SEGMENTS], 'readonly');
    const meta = tx.objectStore(META);
    const segments = tx.objectStore(SEGMENTS);
    const seq = request(meta.get(SEQ));
    const pages = Promise.all(ranges.map((r) => readPages(segments, r)));
    const log = request(meta.get(STATE)).then((state) => {
      const through = (state as State | undefined)?.compactedThrough ?? 0;
      return readLog(tx, through).then((records) => ({ through, records }));
    });
    const [{ through, records }, pagesOf] = await Promise.all([log, pages]);
    const overlay = new Overlay(ranges);
    let logBytes = 0;
    for (const [, batches] of records) {
      for (const b of batches) overlay.add(asBytes(b));
      logBytes += recordBytes(batches);
    }
    const contents = concat(ranges.flatMap((r, i) => rangeContents(pagesOf[i], r, overlay)));
    return { contents, seq: ((await seq) as number | undefined) ?? 0, compactedThrough: through, logBytes };
  }

  /** @internal Folds the log into the pages now (after any compaction running); resolves with
   *  what it did. */
  compact(): Promise<CompactionResult> {
    return this.#compactor.compactNow();
  }
  /** @internal What this connection's commits and compactions wrote. */
  get stats(): StorageStats {
    return this.#compactor.stats;
  }

  /** The database this bridge stores for. It hears acknowledgeStored after each transaction;
   *  revertUnstored when one failed (every batch not yet stored is lost); fail once, when the
   *  connection goes away; applyRemoteBatch with each batch another tab or worker stored, in
   *  commit order, with the commit's sequence number. */
  attach(owner: StoreOwner): void {
    this.#owner = owner;
    this.#drain();  // what arrived while the database was being made
  }
  get failure(): Error | null {
    return this.#failure;
  }

  /** A commit's batch (from the engine, synchronously inside the commit): queued for the next
   *  write transaction. */
  write(batch: Uint8Array<ArrayBuffer>): void {
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
      await this.#compactor.stop(!this.#failure);
      if (this.#failure) throw this.#failure;
    } finally {
      this.#closed = true;
      this.#leaveChannel();
      this.#idb.onclose = null;
      this.#idb.close();
    }
  }

  #leaveChannel(): void {
    this.#channel?.close();
    this.#channel = null;
    if (this.#gapTimer) clearTimeout(this.#gapTimer);
    this.#gapTimer = null;
    this.#arrived.clear();
  }

  // Commit `seq` is known: another tab's batches, or null for this bridge's own transaction.
  #arrive(seq: number, batches: Uint8Array[] | null): void {
    if (seq <= this.#seenSeq || this.#failure || this.#closed) return;
    this.#arrived.set(seq, batches);
    this.#drain();
  }

  // Hands over every arrived commit that follows the last one seen, in order; waits for a gap.
  // What arrives before a database is attached waits for it.
  #drain(): void {
    const owner = this.#owner;
    if (!owner) return;
    let next: Uint8Array[] | null | undefined;
    while ((next = this.#arrived.get(this.#seenSeq + 1)) !== undefined) {
      this.#arrived.delete(++this.#seenSeq);
      for (const batch of next ?? []) owner.applyRemoteBatch(batch, this.#seenSeq);
    }
    if (this.#arrived.size && !this.#gapTimer) {
      this.#gapTimer = setTimeout(() => this.#skipGap(), GAP_WAIT_MS);
    } else if (!this.#arrived.size && this.#gapTimer) {
      clearTimeout(this.#gapTimer);
      this.#gapTimer = null;
    }
  }

  // A commit was never announced (its sender closed between storing and posting): read it, and
  // whatever else was missed, from the log.
  #skipGap(): void {
    this.#gapTimer = null;
    if (!this.#arrived.size || this.#closed || this.#failure) return;
    this.catchUp().catch((e) => console.error('opticdb: commits of other connections could not be read:', e));
  }

  // Writes the queued batches, one IndexedDB transaction at a time, until none are left.
  async #run(): Promise<void> {
    await Promise.resolve();  // the batches of this tick go together
    while (this.#queued.length && !this.#failure) {
      const batches = this.#queued;
      this.#queued = [];
      const through = this.#next - 1;
      let seq: number;
      try {
        seq = await this.#transaction(batches);
      } catch (e) {
        if (!this.#failure) this.#lose(e as Error, through - batches.length + 1);
        continue;
      }
      this.#announce(seq, batches);
      this.#compactor.stored(recordBytes(batches));
      this.#settle(through, null);
      this.#owner?.acknowledgeStored(through);
    }
    this.#pump = null;
    if (this.#failure) this.#settle(Infinity, this.#failure);
  }

  // Tells the other tabs about a stored transaction, and counts it as seen here.
  #announce(seq: number, batches: Uint8Array[]): void {
    try {
      this.#channel?.postMessage({ seq, batches } satisfies RemoteMessage);
    } catch (e) {
      console.error('opticdb: could not announce a commit to other tabs:', e);
    }
    this.#arrive(seq, null);
  }

  // One readwrite transaction writing `batches` and the next commit sequence number; resolves
  // with that number when the transaction is complete.
  #transaction(batches: Uint8Array<ArrayBuffer>[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let tx: IDBTransaction;
      try {
        tx = this.#idb.transaction([LOG, META], 'readwrite', { durability: this.#durability });
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
      let seq = 0;
      tx.oncomplete = () => resolve(seq);
      tx.onerror = () => fail(tx.error ?? new Error('transaction error'));
      tx.onabort = () => fail(tx.error ?? new Error('transaction aborted'));
      try {
        appendCommit(tx, batches.map(ownBytes), (n) => {
          seq = n;
        }, fail);
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
    this.#owner?.revertUnstored();
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
      void this.#compactor.stop(false);
      this.#leaveChannel();
      this.#owner?.fail(e);
      this.#settle(Infinity, e);
    }
    return this.#failure;
  }
}

// `b` as an array of its own (storing a view stores the whole buffer it views).
function ownBytes(b: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice();
}

// The entries of a batch of puts, in its order (views into it).
function batchEntries(b: Uint8Array): Entry[] {
  const out: Entry[] = [];
  const notAPut = () => {
    throw new Error('malformed entries (an operation other than put)');
  };
  decodeBatch(b, { put: (k, v) => out.push([k, v]), erase: notAPut, eraseRange: notAPut });
  return out;
}
