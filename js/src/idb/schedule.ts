// When an IndexedDB connection compacts (compaction.ts does the folding): the policy, and one
// Compactor per connection that counts the commits it stored since the last fold and runs one
// compaction at a time, in the background.
//
// Invariants: at most one compaction of this connection runs at once (others' are serialized by
// IndexedDB); one starts at once when the uncompacted commits pass `commits` or `bytes`, else after
// `idleMs` without a commit; after a deferral (compaction.ts) only once twice the bytes wait;
// after a failure (quota), which changed nothing stored, not before `idleMs`. Once stopped
// (closing, or the connection failed), none starts unless asked (close folds what is due).
import { StorageError } from '../errors.js';
import { compact, type CompactionResult } from './compaction.js';
import { PAGE_BYTES } from './pages.js';

/** When the log is folded into the pages: once this connection's uncompacted commits reach
 *  `commits` or `bytes`, else `idleMs` after the last one; `pageBytes`: the pages' size;
 *  maxAmplification and maxLogBytes: when a compaction defers (FoldOptions). Tests set small ones. */
export interface CompactionPolicy {
  commits: number;
  bytes: number;
  idleMs: number;
  pageBytes: number;
  maxAmplification: number;
  maxLogBytes: number;
}
export const DEFAULT_COMPACTION: CompactionPolicy = {
  commits: 128, bytes: 1 << 20, idleMs: 1000, pageBytes: PAGE_BYTES, maxAmplification: 8, maxLogBytes: 4 << 20,
};

/** What this connection wrote: its commits' bytes, and compaction's. */
export interface StorageStats {
  commits: number;
  committedBytes: number;
  compactions: number;
  foldedBytes: number;
  pageBytesWritten: number;
  longestCompactionMs: number;  // the longest one, from its start to its transaction's completion
}

export class Compactor {
  readonly stats: StorageStats = {
    commits: 0, committedBytes: 0, compactions: 0, foldedBytes: 0, pageBytesWritten: 0, longestCompactionMs: 0,
  };
  #idb: IDBDatabase;
  #policy: CompactionPolicy;
  #uncompacted = { commits: 0, bytes: 0 };  // stored and not yet folded, as far as known here
  #running: Promise<void> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #failed = false;        // the last one failed: the next waits idleMs
  #deferredBelow = 0;     // the last one deferred: the next waits for this many uncompacted bytes
  #stopped = false;

  constructor(idb: IDBDatabase, policy: Partial<CompactionPolicy> = {}) {
    this.#idb = idb;
    this.#policy = { ...DEFAULT_COMPACTION, ...policy };
  }

  /** What opening found uncompacted (commits after compacted-through, the log's bytes). */
  opened(commits: number, bytes: number): void {
    this.#uncompacted = { commits, bytes };
    this.#schedule();
  }
  /** A commit of this connection of `bytes` is stored. */
  stored(bytes: number): void {
    this.stats.commits++;
    this.stats.committedBytes += bytes;
    this.#uncompacted.commits++;
    this.#uncompacted.bytes += bytes;
    this.#schedule();
  }

  /** Folds the log now (after the compaction running, if any), even when a fold would defer. */
  async compactNow(): Promise<CompactionResult> {
    while (this.#running) await this.#running;
    let result!: CompactionResult;
    await this.#run((r) => {
      result = r;
    }, true, true);
    return result;
  }

  /** Starts no more compactions; waits for the one running; with `foldDue`, folds once more if
   *  the thresholds are passed (a clean close). */
  async stop(foldDue: boolean): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    while (this.#running) await this.#running;
    if (foldDue && this.#due()) await this.#run(() => {}, false);
  }

  #schedule(): void {
    if (this.#running || this.#stopped || !this.#uncompacted.commits) return;
    const full = this.#due();
    if (this.#deferredBelow && !full) return;  // no idle compaction while deferred
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#running) void this.#run(() => {}, false);
    }, full && !this.#failed ? 0 : this.#policy.idleMs);
    (this.#timer as { unref?: () => void }).unref?.();  // Node: never what keeps a process alive
  }

  // Whether the uncompacted commits passed the thresholds.
  #due(): boolean {
    const p = this.#policy, u = this.#uncompacted;
    if (this.#deferredBelow) return u.bytes >= this.#deferredBelow;
    return u.commits > 0 && (u.commits >= p.commits || u.bytes >= p.bytes);
  }

  // One compaction; a failure (quota, an abort) changes nothing stored: it is reported (and
  // rethrown when `rethrow`).
  #run(done: (r: CompactionResult) => void, rethrow: boolean, force = false): Promise<void> {
    const folding = { ...this.#uncompacted };
    const started = performance.now();
    const run = compact(this.#idb, { ...this.#policy, force }).then((r) => {
      done(r);
      this.#failed = false;
      if (r.deferred) {
        this.#deferredBelow = Math.max(this.#policy.bytes, 2 * this.#uncompacted.bytes);
        return;
      }
      this.#deferredBelow = 0;
      this.stats.compactions++;
      this.stats.foldedBytes += r.bytesFolded;
      this.stats.pageBytesWritten += r.bytesWritten;
      this.stats.longestCompactionMs = Math.max(this.stats.longestCompactionMs, performance.now() - started);
      this.#uncompacted.commits = Math.max(0, this.#uncompacted.commits - folding.commits);
      this.#uncompacted.bytes = Math.max(0, this.#uncompacted.bytes - folding.bytes);
    }, (e) => {
      this.#failed = true;
      const err = StorageError.of('IndexedDB compaction failed (nothing was changed)', e);
      if (rethrow) throw err;
      if (!this.#stopped) console.warn(`opticdb: ${err.message}`);
    });
    this.#running = run.then(() => {}, () => {}).finally(() => {
      this.#running = null;
      this.#schedule();
    });
    return run;
  }
}
