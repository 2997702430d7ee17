// The uncompacted commits of an IndexedDB database, folded into one picture: what the log's
// batches (write_batch.ts) put, erase and erase by range, applied in commit order, so that a
// read (pages.ts) or a compaction (compaction.ts) can lay them over the sorted pages below.
//
// Invariants: a key's latest operation wins (a value, or null: erased); a range erased by any
// batch hides every page entry in it (the pages are older than every log batch), while a put
// after the erase shows again. Keys are held as byte strings (one char per byte), whose string
// order is the bytewise (memcmp) order of the engine's keys. Values are views into the batches:
// copy before storing them apart. An overlay made `within` key ranges keeps only what lies in them.
import { decodeBatch } from '../write_batch.js';

/** A half-open key range [begin, end); an empty end reaches past every key. */
export type KeyRange = readonly [Uint8Array, Uint8Array];
/** One stored entry. */
export type Entry = [Uint8Array, Uint8Array];

/** The byte string of `k` (one char per byte): compares as memcmp compares the bytes. */
export function keyString(k: Uint8Array): string {
  let s = '';
  for (let i = 0; i < k.length; i += 4096) s += String.fromCharCode.apply(null, k.subarray(i, i + 4096) as unknown as number[]);
  return s;
}
export function stringKey(s: string): Uint8Array<ArrayBuffer> {
  const k = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) k[i] = s.charCodeAt(i);
  return k;
}
/** memcmp order of two keys. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
/** Whether `k` lies in [begin, end) (end empty: unbounded). */
export function inRange(k: Uint8Array, [begin, end]: KeyRange): boolean {
  return compareBytes(k, begin) >= 0 && (end.length === 0 || compareBytes(k, end) < 0);
}
// Whether [b1, e1) and [b2, e2) share a key.
function overlaps([b1, e1]: KeyRange, [b2, e2]: KeyRange): boolean {
  return (e2.length === 0 || compareBytes(b1, e2) < 0) && (e1.length === 0 || compareBytes(b2, e1) < 0);
}

export class Overlay {
  #within: readonly KeyRange[] | null;
  #values = new Map<string, Uint8Array | null>();
  #erased: KeyRange[] = [];
  #sorted: string[] | null = null;

  constructor(within: readonly KeyRange[] | null = null) {
    this.#within = within;
  }

  get empty(): boolean {
    return this.#values.size === 0 && this.#erased.length === 0;
  }

  /** Lays one batch over what was added before. */
  add(batch: Uint8Array): void {
    this.#sorted = null;
    decodeBatch(batch, {
      put: (k, v) => {
        if (this.#keeps(k)) this.#values.set(keyString(k), v);
      },
      erase: (k) => {
        if (this.#keeps(k)) this.#values.set(keyString(k), null);
      },
      eraseRange: (begin, end) => {
        const r: KeyRange = [begin, end];
        if (this.#within && !this.#within.some((w) => overlaps(w, r))) return;
        this.#erased.push(r);
        const from = keyString(begin), to = end.length ? keyString(end) : null;
        for (const key of this.#values.keys()) if (key >= from && (to === null || key < to)) this.#values.set(key, null);
      },
    });
  }

  /** Whether anything here falls in [begin, end). */
  touches(range: KeyRange): boolean {
    if (this.#erased.some((r) => overlaps(r, range))) return true;
    const keys = this.#keys();
    const i = lowerBound(keys, keyString(range[0]));
    return i < keys.length && (range[1].length === 0 || keys[i] < keyString(range[1]));
  }

  /** The ranges erased by some batch here (each hides the pages' entries in it). */
  erasedRanges(): readonly KeyRange[] {
    return this.#erased;
  }

  /** The keys here, sorted (each with its latest value or null). */
  sortedKeys(): string[] {
    return this.#keys();
  }

  /** `base` (sorted entries, older than every batch here) with this overlay laid over it,
   *  restricted to [begin, end): sorted. */
  merge(base: readonly Entry[], range: KeyRange): Entry[] {
    const out: Entry[] = [];
    const keys = this.#keys();
    const to = range[1].length ? keyString(range[1]) : null;
    let i = lowerBound(keys, keyString(range[0]));
    const emitOverlayBelow = (limit: string | null) => {
      for (; i < keys.length && (limit === null || keys[i] < limit) && (to === null || keys[i] < to); i++) {
        const v = this.#values.get(keys[i])!;
        if (v) out.push([stringKey(keys[i]), v]);
      }
    };
    for (const [k, v] of base) {
      if (!inRange(k, range)) continue;
      const ks = keyString(k);
      emitOverlayBelow(ks);
      if (i < keys.length && keys[i] === ks) continue;  // laid over: emitted with the next
      if (!this.#erased.some((r) => inRange(k, r))) out.push([k, v]);
    }
    emitOverlayBelow(null);
    return out;
  }

  #keeps(k: Uint8Array): boolean {
    return !this.#within || this.#within.some((r) => inRange(k, r));
  }
  #keys(): string[] {
    return this.#sorted ??= [...this.#values.keys()].sort();
  }
}

/** The first index of sorted `xs` whose item is not below `x`. */
export function lowerBound<T>(xs: readonly T[], x: T, less: (a: T, b: T) => boolean = (a, b) => a < b): number {
  let lo = 0, hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (less(xs[mid], x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
