// The write lock of one IndexedDB database, shared by every connection to it: tabs, workers and
// iframes of one origin, and several Database objects in one process. A connection holds it while
// it runs a write transaction (an autocommit write statement, or BEGIN … COMMIT), so writes on one
// database run one at a time across all of them; reads never take it.
//
// In browsers and workers it is a Web Lock (navigator.locks), exclusive, named after the
// database: the browser grants it in request order and releases it when the context holding it
// goes away (a tab closed or crashed mid-transaction), so a dead holder never blocks the others.
// Where navigator.locks is missing (Node), an in-process lock of the same shape serves the
// connections of that process; it must be one per process, as navigator.locks is one per origin,
// hence the module-level instance (the only one this package keeps).
//
// Invariant (database.ts keeps it): between acquire() and release() the connection first applies
// every commit other connections stored (indexeddb.ts catchUp), then runs its statements, and
// releases only once its own commits are stored, so the next holder's catch-up finds them.
import { StorageError } from './errors.js';

/** The part of the Web Locks API (LockManager.request) this lock uses. */
interface Locks {
  request(name: string, options: { mode: 'exclusive'; signal?: AbortSignal }, callback: () => Promise<void>): Promise<void>;
}

export class WriteLock {
  readonly #name: string;
  readonly #timeoutMs: number;
  readonly #locks: Locks;
  #release: (() => void) | null = null;

  /** The lock of the database `name`; acquire() waits at most `timeoutMs` (Infinity: forever). */
  constructor(name: string, timeoutMs: number) {
    this.#name = name;
    this.#timeoutMs = timeoutMs;
    this.#locks = (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks ?? processLocks;
  }

  get held(): boolean {
    return this.#release !== null;
  }

  /** Resolves once this connection holds the lock; rejects with a StorageError (code BUSY) when
   *  another connection keeps it longer than the timeout. */
  acquire(): Promise<void> {
    if (this.#release) return Promise.resolve();
    const signal = Number.isFinite(this.#timeoutMs) ? AbortSignal.timeout(this.#timeoutMs) : undefined;
    return new Promise<void>((granted, refused) => {
      this.#locks.request(`opticdb:${this.#name}`, { mode: 'exclusive', signal }, () => new Promise<void>((release) => {
        this.#release = release;
        granted();
      })).catch((e: unknown) => {
        if (signal?.aborted) {
          refused(new StorageError(`database '${this.#name}' is locked: another connection kept its write lock for over ${this.#timeoutMs} ms`,
                                   'BUSY', { cause: e }));
        } else {
          refused(StorageError.of('the write lock could not be taken', e));
        }
      });
    });
  }

  release(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }
}

// navigator.locks' exclusive mode for one process: per name, a queue of requests granted in
// order, each holding the lock until its callback's promise settles.
class ProcessLocks implements Locks {
  readonly #tails = new Map<string, Promise<void>>();

  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<void> {
    const before = this.#tails.get(name) ?? Promise.resolve();
    let granted = false;
    const turn = before.then(async () => {
      if (options.signal?.aborted) return;
      granted = true;
      await callback().catch(() => {});
    });
    this.#tails.set(name, turn);
    void turn.then(() => {
      if (this.#tails.get(name) === turn) this.#tails.delete(name);
    });
    const signal = options.signal;
    if (!signal) return turn;
    return new Promise<void>((resolve, reject) => {
      const abort = () => {
        if (!granted) reject(signal.reason ?? new Error('aborted'));
      };
      if (signal.aborted) abort();
      signal.addEventListener('abort', abort, { once: true });
      turn.then(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      });
    });
  }
}

const processLocks = new ProcessLocks();
