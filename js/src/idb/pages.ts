// The compacted state of an IndexedDB database: the `segments` object store holds the engine's
// ordered key space as sorted pages, each one record packing a run of entries in the puts format
// of write_batch.ts, keyed by its first key.
//
// Invariants: pages never overlap (a page's keys lie in [first, last], and every key of the next
// page sorts after last), so the pages a key range needs are the one keyed just below its begin
// plus those keyed inside it: one cursor step and one getAll. A page is written whole and never
// empty. A page "owns" the keys from its first key to the next page's (the first page owns every
// key below too, the last every key above): compaction folds a key into the page that owns it.
// A read hands a page wholly inside a range and untouched by the log to the engine as it is
// stored (its bytes are already a puts batch): no decoding.
import { decodeBatch, putsRep } from '../write_batch.js';
import { compareBytes, type Entry, type KeyRange, type Overlay } from './overlay.js';

export const SEGMENTS = 'segments';
/** A page's target size in bytes (entries are packed until one passes it). */
export const PAGE_BYTES = 128 * 1024;

/** One stored page. */
export interface Page {
  first: Uint8Array<ArrayBuffer>;
  last: Uint8Array<ArrayBuffer>;
  count: number;
  data: Uint8Array;  // the entries as a puts batch, in key order
}

/** Sorted entries packed into pages of about `pageBytes` each. */
export function packPages(entries: readonly Entry[], pageBytes = PAGE_BYTES): Page[] {
  const pages: Page[] = [];
  let from = 0, bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    bytes += entries[i][0].length + entries[i][1].length + 4;
    if (bytes >= pageBytes || i === entries.length - 1) {
      const run = entries.slice(from, i + 1);
      pages.push({ first: run[0][0].slice(), last: run[run.length - 1][0].slice(), count: run.length, data: putsRep(run).slice() });
      from = i + 1;
      bytes = 0;
    }
  }
  return pages;
}

/** A page's entries, in key order (views into its data). */
export function pageEntries(page: Page): Entry[] {
  const out: Entry[] = [];
  decodeBatch(page.data, { put: (k, v) => out.push([k, v]), erase: badPage, eraseRange: badPage });
  return out;
}
function badPage(): never {
  throw new Error('malformed page (an operation other than put)');
}

/** Requests, in `tx`, the pages overlapping `range`, in key order: resolves when they arrive. */
export function readPages(store: IDBObjectStore, [begin, end]: KeyRange): Promise<Page[]> {
  if (end.length && compareBytes(begin, end) >= 0) return Promise.resolve([]);  // an empty range
  return new Promise((resolve, reject) => {
    let before: Page | null | undefined;
    let inside: Page[] | undefined;
    const finish = () => {
      if (before === undefined || inside === undefined) return;
      resolve(before && compareBytes(before.last, begin) >= 0 ? [before, ...inside] : inside);
    };
    const prev = begin.length ? store.openCursor(IDBKeyRange.upperBound(begin, true), 'prev') : null;
    if (prev) {
      prev.onsuccess = () => {
        before = (prev.result?.value as Page | undefined) ?? null;
        finish();
      };
      prev.onerror = () => reject(prev.error);
    } else {
      before = null;
    }
    const all = store.getAll(keyRangeOf([begin, end]));
    all.onsuccess = () => {
      inside = all.result as Page[];
      finish();
    };
    all.onerror = () => reject(all.error);
  });
}

/** The IDBKeyRange of [begin, end) (end empty: unbounded; begin empty: from the first key). */
export function keyRangeOf([begin, end]: KeyRange): IDBKeyRange | null {
  if (!end.length) return begin.length ? IDBKeyRange.lowerBound(begin) : null;
  return begin.length ? IDBKeyRange.bound(begin, end, false, true) : IDBKeyRange.upperBound(end, true);
}

/** The entries of `range` from its `pages` (readPages) with `overlay` laid over them, as puts
 *  batches to concatenate: a page wholly inside the range and untouched by the overlay as it is
 *  stored, the rest decoded and merged. */
export function rangeContents(pages: readonly Page[], range: KeyRange, overlay: Overlay): Uint8Array[] {
  const out: Uint8Array[] = [];
  const [begin, end] = range;
  // The pieces of the range each page owns; the piece before the first page owns nothing stored.
  let at = begin;
  for (let i = 0; i <= pages.length; i++) {
    const page = pages[i] as Page | undefined;
    const next = pages[i + 1]?.first ?? end;
    const from = i === 0 ? begin : at;
    const piece: KeyRange = page ? [from, next] : [from, end];
    if (!page) {
      if (i === 0 && !overlay.empty) pushEntries(out, overlay.merge([], piece));
      break;
    }
    const whole = compareBytes(page.first, begin) >= 0 && (end.length === 0 || compareBytes(page.last, end) < 0);
    if (!overlay.touches(piece) && whole) out.push(page.data);
    else pushEntries(out, overlay.merge(pageEntries(page), piece));
    at = next;
    if (i === pages.length - 1) break;
  }
  return out;
}
function pushEntries(out: Uint8Array[], entries: Entry[]): void {
  if (entries.length) out.push(putsRep(entries));
}

/** Concatenated byte arrays. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}
