// Write batches and packed entries as the engine hands them over, shared by the persistent stores
// (indexeddb.ts, filestore.ts).
//
// A commit's batch (core/storage/write_batch.h) is, per operation, a tag byte then length-prefixed
// byte strings: 1 put key, value | 2 erase key | 3 eraseRange begin, end (half-open [begin, end)).
// Two length encodings exist: the engine hands JS its batches with u32 little-endian lengths
// (JsSink in wasm/bindings.cpp), and WriteBatch::rep(), the payload of a file-store record, uses
// varints (core/storage/varint.h). decodeBatch reads either; encodeRep writes the varint form.
//
// Packed entries (what the engine reads on open and on a table load): [u32 length][bytes]…,
// little-endian lengths, keys and values alternating.

/** Receives a batch's operations in order. Views point into the batch: copy what is kept. */
export interface BatchHandler<B extends ArrayBufferLike = ArrayBufferLike> {
  put(key: Uint8Array<B>, value: Uint8Array<B>): void;
  erase(key: Uint8Array<B>): void;
  eraseRange(begin: Uint8Array<B>, end: Uint8Array<B>): void;
}

export type LengthEncoding = 'u32' | 'varint';

export const PUT = 1, ERASE = 2, ERASE_RANGE = 3;

/** Calls `h` for each operation of `b`; throws on a malformed batch (a bad tag, a length past the
 *  end), before or after calling `h` for earlier operations: validate first where that matters. */
export function decodeBatch<B extends ArrayBufferLike>(b: Uint8Array<B>, lengths: LengthEncoding, h: BatchHandler<B>): void {
  const field = lengths === 'u32' ? u32Field : varintField;
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
export function isWellFormed(b: Uint8Array, lengths: LengthEncoding): boolean {
  const ignore = () => {};
  try {
    decodeBatch(b, lengths, { put: ignore, erase: ignore, eraseRange: ignore });
    return true;
  } catch {
    return false;
  }
}

/** The WriteBatch::rep() (varint lengths) of a batch in the engine's u32 form. */
export function encodeRep(batch: Uint8Array): Uint8Array {
  const out = new ByteWriter(batch.length);
  decodeBatch(batch, 'u32', {
    put: (k, v) => out.byte(PUT).field(k).field(v),
    erase: (k) => out.byte(ERASE).field(k),
    eraseRange: (b, e) => out.byte(ERASE_RANGE).field(b).field(e),
  });
  return out.bytes();
}

/** A rep of puts only (a compacted snapshot). */
export function putsRep(entries: Iterable<[Uint8Array, Uint8Array]>): Uint8Array {
  const out = new ByteWriter(1024);
  for (const [k, v] of entries) out.byte(PUT).field(k).field(v);
  return out.bytes();
}

/** Byte strings packed as the engine reads them. */
export function pack(strings: Iterable<Uint8Array>): Uint8Array {
  const list = [...strings];
  let size = 0;
  for (const b of list) size += 4 + b.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let p = 0;
  for (const b of list) {
    view.setUint32(p, b.length, true);
    out.set(b, p + 4);
    p += 4 + b.length;
  }
  return out;
}

export function unpack(packed: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  const at = { p: 0 };
  while (at.p < packed.length) out.push(u32Field(packed, at));
  return out;
}

function u32Field<B extends ArrayBufferLike>(b: Uint8Array<B>, at: { p: number }): Uint8Array<B> {
  if (at.p + 4 > b.length) throw new Error('malformed write batch (truncated length)');
  const n = (b[at.p] | (b[at.p + 1] << 8) | (b[at.p + 2] << 16) | (b[at.p + 3] << 24)) >>> 0;
  return take(b, at, at.p + 4, n);
}

function varintField<B extends ArrayBufferLike>(b: Uint8Array<B>, at: { p: number }): Uint8Array<B> {
  let n = 0;
  let scale = 1;
  for (let i = 0; ; i++) {
    if (at.p + i >= b.length || i >= 8) throw new Error('malformed write batch (bad varint)');
    const byte = b[at.p + i];
    n += (byte & 0x7f) * scale;  // arithmetic, not bit shifts: lengths may pass 2^31
    scale *= 128;
    if (!(byte & 0x80)) return take(b, at, at.p + i + 1, n);
  }
}

function take<B extends ArrayBufferLike>(b: Uint8Array<B>, at: { p: number }, start: number, n: number): Uint8Array<B> {
  if (n > b.length - start) throw new Error('malformed write batch (truncated field)');
  at.p = start + n;
  return b.subarray(start, start + n);
}

// A growable byte buffer for encodeRep / putsRep.
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
    this.#reserve(10 + s.length);
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
