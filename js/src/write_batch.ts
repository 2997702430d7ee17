// The commit-batch format in TypeScript: the one byte format in which key/value lists cross the
// wasm boundary, and the payload of a file-store record. It is WriteBatch::rep() of
// core/storage/write_batch.h, which is its C++ codec; this module is the only TypeScript one.
//
// Per operation a tag byte, then byte strings each prefixed by its length as a varint (7 bits a
// byte, least significant first, high bit set on all but the last byte; core/storage/varint.h):
//   1 put: key, value | 2 erase: key | 3 eraseRange: begin, end (half-open [begin, end))
// What crosses in this format: each commit's batch (engine to store, and over the BroadcastChannel
// to other tabs), stored entries handed to the engine (puts: on open and on a table load), and
// the key ranges the engine asks a store to read (eraseRange operations naming the ranges).

/** Receives a batch's operations in order. Views point into the batch: copy what is kept. */
export interface BatchHandler<B extends ArrayBufferLike = ArrayBufferLike> {
  put(key: Uint8Array<B>, value: Uint8Array<B>): void;
  erase(key: Uint8Array<B>): void;
  eraseRange(begin: Uint8Array<B>, end: Uint8Array<B>): void;
}

const PUT = 1, ERASE = 2, ERASE_RANGE = 3;

/** Calls `h` for each operation of `b`; throws on a malformed batch (a bad tag, a length past the
 *  end), before or after calling `h` for earlier operations: validate first where that matters. */
export function decodeBatch<B extends ArrayBufferLike>(b: Uint8Array<B>, h: BatchHandler<B>): void {
  const at = { p: 0 };
  while (at.p < b.length) {
    const tag = b[at.p++];
    if (tag === PUT) {
      const k = field(b, at);
      h.put(k, field(b, at));
    } else if (tag === ERASE) {
      h.erase(field(b, at));
    } else if (tag === ERASE_RANGE) {
      const begin = field(b, at);
      h.eraseRange(begin, field(b, at));
    } else {
      throw new Error(`malformed write batch (tag ${tag})`);
    }
  }
}

/** True when `b` decodes completely. */
export function isWellFormed(b: Uint8Array): boolean {
  const ignore = () => {};
  try {
    decodeBatch(b, { put: ignore, erase: ignore, eraseRange: ignore });
    return true;
  } catch {
    return false;
  }
}

/** A batch of puts only: stored entries for the engine, or a compacted snapshot. */
export function putsRep(entries: readonly (readonly [Uint8Array, Uint8Array])[]): Uint8Array {
  let capacity = 0;
  for (const [k, v] of entries) capacity += 1 + 2 * MAX_VARINT + k.length + v.length;
  const out = new ByteWriter(capacity);
  for (const [k, v] of entries) out.byte(PUT).field(k).field(v);
  return out.bytes();
}

/** The key ranges [begin, end) a batch of eraseRange operations names (the engine's loadRanges
 *  and catalogRange); throws on any other operation. */
export function keyRanges<B extends ArrayBufferLike>(b: Uint8Array<B>): [Uint8Array<B>, Uint8Array<B>][] {
  const ranges: [Uint8Array<B>, Uint8Array<B>][] = [];
  const notARange = () => {
    throw new Error('malformed key ranges (an operation other than eraseRange)');
  };
  decodeBatch(b, { put: notARange, erase: notARange, eraseRange: (begin, end) => ranges.push([begin, end]) });
  return ranges;
}

const MAX_VARINT = 8;  // bytes of the longest length decodeBatch accepts (2^56: far past any buffer)

function field<B extends ArrayBufferLike>(b: Uint8Array<B>, at: { p: number }): Uint8Array<B> {
  let n = 0;
  let scale = 1;
  for (let i = 0; ; i++) {
    if (at.p + i >= b.length || i >= MAX_VARINT) throw new Error('malformed write batch (bad varint)');
    const byte = b[at.p + i];
    n += (byte & 0x7f) * scale;  // arithmetic, not bit shifts: lengths may pass 2^31
    scale *= 128;
    if (!(byte & 0x80)) {
      const start = at.p + i + 1;
      if (n > b.length - start) throw new Error('malformed write batch (truncated field)');
      at.p = start + n;
      return b.subarray(start, start + n);
    }
  }
}

// A growable byte buffer for putsRep.
class ByteWriter {
  #buf: Uint8Array;
  #len = 0;
  constructor(capacity: number) {
    this.#buf = new Uint8Array(Math.max(16, capacity));
  }
  byte(v: number): this {
    this.#reserve(1);
    this.#buf[this.#len++] = v;
    return this;
  }
  field(s: Uint8Array): this {
    this.#reserve(MAX_VARINT + s.length);
    let n = s.length;
    while (n >= 0x80) {
      this.#buf[this.#len++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.#buf[this.#len++] = n;
    this.#buf.set(s, this.#len);
    this.#len += s.length;
    return this;
  }
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }
  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const grown = new Uint8Array(Math.max(this.#buf.length * 2, this.#len + n));
    grown.set(this.#buf.subarray(0, this.#len));
    this.#buf = grown;
  }
}
