// Compaction: folds the commit log (log.ts) into the pages (pages.ts), in ONE readwrite
// transaction over log, segments and meta, so a crash or a closed tab mid-way leaves the
// previous state whole (IndexedDB aborts an unfinished transaction), and no reader ever sees a
// half-folded state (readers see the pages and the log tail of one snapshot).
//
// Invariants: compaction starts from the compacted-through number read inside its own
// transaction, so two connections compacting one after the other fold each commit once (the
// second finds nothing or only newer commits): it is idempotent. It rewrites only the pages that
// own a key the folded commits touched (splitting those that grow past the page size, dropping
// those left empty), sets compacted-through to the last commit folded, and deletes the folded
// log records beyond the newest LOG_KEEP (and LOG_KEEP_BYTES) of them, which the state lists
// (catch-up still reads those kept; readers skip records up to compacted-through). It runs with
// relaxed durability: it changes no content, and if the system loses it, it is lost whole.
import { FORMAT, STATE, asBytes, type State } from './format.js';
import { LOG, LOG_KEEP, LOG_KEEP_BYTES, META, readLog, recordBytes } from './log.js';
import { Overlay, lowerBound, keyString, stringKey, type KeyRange } from './overlay.js';
import { packPages, pageEntries, SEGMENTS, type Page } from './pages.js';

/** What one compaction did. */
export interface CompactionResult {
  commits: number;       // log records folded
  bytesFolded: number;   // their batches' bytes
  pagesRead: number;
  pagesWritten: number;
  bytesWritten: number;  // the pages' bytes written
  through: number;       // compacted-through after it
  deferred: boolean;     // nothing folded: it would rewrite too many pages for the log's bytes
}

/** How a compaction folds: pages of about `pageBytes`; unless `force`, it defers (changes
 *  nothing) while the log holds under `maxLogBytes` and the pages it would rewrite hold more than
 *  `maxAmplification` times the log's bytes (random updates over a big table wait until they
 *  are worth a page rewrite each). */
export interface FoldOptions {
  pageBytes: number;
  maxAmplification: number;
  maxLogBytes: number;
  force: boolean;
}

/** Runs one compaction on `idb`; resolves once its transaction is complete (rejects, having
 *  changed nothing, when it failed or aborted). */
export function compact(idb: IDBDatabase, options: FoldOptions): Promise<CompactionResult> {
  return new Promise((resolve, reject) => {
    const tx = idb.transaction([LOG, SEGMENTS, META], 'readwrite', { durability: 'relaxed' });
    const result: CompactionResult = { commits: 0, bytesFolded: 0, pagesRead: 0, pagesWritten: 0, bytesWritten: 0, through: 0, deferred: false };
    tx.oncomplete = () => resolve(result);
    tx.onabort = tx.onerror = () => reject(tx.error ?? new Error('compaction aborted'));
    const fail = (e: unknown) => {
      try {
        tx.abort();
      } catch {
        // finished already
      }
      reject(e);
    };
    const meta = tx.objectStore(META);
    const stateReq = meta.get(STATE);
    const firstKeys = tx.objectStore(SEGMENTS).getAllKeys();
    stateReq.onsuccess = () => {
      const state = (stateReq.result as State | undefined) ?? { format: FORMAT, compactedThrough: 0 };
      readLog(tx, state.compactedThrough).then(async (records) => {
        result.through = state.compactedThrough;
        if (!records.length) return;
        const overlay = await overlayOf(tx, records, result);
        const firsts = (firstKeys.result as ArrayBuffer[]).map((k) => keyString(new Uint8Array(k)));
        await rewritePages(tx, overlay, firsts, options, result).then((folded) => {
          if (!folded) {
            result.deferred = true;
            result.bytesFolded = 0;
            return;
          }
          result.commits = records.length;
          result.through = records[records.length - 1][0];
          const kept = [...(state.kept ?? []), ...records.map(([n, b]): [number, number] => [n, recordBytes(b)])];
          const dropThrough = trimKept(kept);
          if (dropThrough > 0) tx.objectStore(LOG).delete(IDBKeyRange.upperBound(dropThrough));
          meta.put({ format: FORMAT, compactedThrough: result.through, kept } satisfies State, STATE);
        }).catch(fail);
      }).catch(fail);
    };
  });
}

// The log records laid over one another, other tasks let run after each SLICE_BYTES decoded.
async function overlayOf(tx: IDBTransaction, records: [number, Uint8Array[]][], result: CompactionResult): Promise<Overlay> {
  const overlay = new Overlay();
  let sinceTurn = 0;
  for (const [, batches] of records) {
    if (sinceTurn >= SLICE_BYTES) {
      await nextTurn(tx);
      sinceTurn = 0;
    }
    for (const b of batches) overlay.add(asBytes(b));
    const bytes = recordBytes(batches);
    result.bytesFolded += bytes;
    sinceTurn += bytes;
  }
  return overlay;
}

// Drops from `kept` (oldest first) the records beyond the newest LOG_KEEP and LOG_KEEP_BYTES;
// returns the last number dropped (0: none).
function trimKept(kept: [number, number][]): number {
  let bytes = kept.reduce((n, [, b]) => n + b, 0);
  let dropped = 0;
  while (kept.length > LOG_KEEP || (kept.length && bytes > LOG_KEEP_BYTES)) {
    const [n, b] = kept.shift()!;
    bytes -= b;
    dropped = n;
  }
  return dropped;
}

// Reads the pages the overlay touches (by the sorted first keys of every page), folds the
// overlay into each over the keys it owns, and replaces them with the result's pages; resolves
// false, having written nothing, when it defers (FoldOptions).
async function rewritePages(tx: IDBTransaction, overlay: Overlay, firsts: string[], options: FoldOptions,
                            result: CompactionResult): Promise<boolean> {
  const segments = tx.objectStore(SEGMENTS);
  const touched = touchedPages(overlay, firsts);
  const defers = (rewritten: number) =>
    !options.force && result.bytesFolded < options.maxLogBytes && rewritten > options.maxAmplification * result.bytesFolded;
  // Many pages: decided on an estimate (a page holds at least about half the page size), before
  // reading them; a few: on their real size, once read.
  if (touched.length > 8 && defers(touched.length * options.pageBytes / 2)) return false;
  const pieces: { range: KeyRange; page: Promise<Page | undefined> }[] = [];
  if (!firsts.length) {
    pieces.push({ range: [new Uint8Array(0), new Uint8Array(0)], page: Promise.resolve(undefined) });
  }
  for (const i of touched) {
    const range: KeyRange = [i === 0 ? new Uint8Array(0) : stringKey(firsts[i]),
                             i + 1 < firsts.length ? stringKey(firsts[i + 1]) : new Uint8Array(0)];
    const get = segments.get(stringKey(firsts[i]));
    pieces.push({ range, page: new Promise((resolve, reject) => {
      get.onsuccess = () => resolve(get.result as Page);
      get.onerror = () => reject(get.error);
    }) });
  }
  const pages = await Promise.all(pieces.map((p) => p.page));
  if (defers(pages.reduce((n, p) => n + (p?.data.byteLength ?? 0), 0))) return false;
  for (let n = 0; n < pieces.length; n++) {
    if (n && n % SLICE_PAGES === 0) await nextTurn(tx);
    const old = pages[n];
    if (old) {
      result.pagesRead++;
      segments.delete(old.first);
    }
    for (const page of packPages(overlay.merge(old ? pageEntries(old) : [], pieces[n].range), options.pageBytes)) {
      segments.put(page, page.first);
      result.pagesWritten++;
      result.bytesWritten += page.data.byteLength;
    }
  }
  return true;
}

// Pages folded between two turns of the event loop: a fold of many pages (or of a long log) lets
// other tasks (the page's UI) run between slices, its transaction kept alive by a request.
const SLICE_PAGES = 16;
const SLICE_BYTES = 512 * 1024;  // log bytes decoded between two turns
// Resolves on the next task that completes a request of `tx` (so `tx` stays active).
function nextTurn(tx: IDBTransaction): Promise<void> {
  const r = tx.objectStore(META).get('');
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve();
    r.onerror = () => reject(r.error);
  });
}

// The indexes of the pages (given by their sorted first keys) owning a key the overlay has or a
// range it erased.
function touchedPages(overlay: Overlay, firsts: string[]): number[] {
  if (!firsts.length) return [];
  const owner = (key: string) => Math.max(0, lowerBound(firsts, key, (a, b) => a <= b) - 1);
  const touched = new Set<number>();
  for (const key of overlay.sortedKeys()) touched.add(owner(key));
  for (const [begin, end] of overlay.erasedRanges()) {
    const last = end.length ? owner(keyString(end)) : firsts.length - 1;
    for (let i = owner(keyString(begin)); i <= last; i++) touched.add(i);
  }
  return [...touched].sort((a, b) => a - b);
}
