// The JS half of the wire format (wasm/wire.h has the layout): rows come out of wasm memory as
// one packed batch per call, parameters go in as one packed block per call.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A value as it crosses the API: integers beyond ±(2^53−1) are bigint; JSON is parsed. */
export type SqlValue = null | number | bigint | string | boolean | Uint8Array | JsonValue;

/** A value as wasm/bindings.cpp's fromJs takes it (UDF results, live-query and scope parameters). */
export function toCallbackValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : { bigint: v.toString() };
  if (v === undefined) return null;
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) return { json: JSON.stringify(v) };
  return v;
}
/** A value as wasm/bindings.cpp's toJs hands it over (UDF arguments). */
export function fromCallbackValue(v: unknown): SqlValue {
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && 'json' in v)
    return JSON.parse((v as { json: string }).json);
  return v as SqlValue;
}

const enum Tag {
  Null = 0,
  Number = 1,
  BigInt = 2,
  Text = 3,
  Blob = 4,
  False = 5,
  True = 6,
  Json = 7,
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });
const utf8Encoder = new TextEncoder();

/** Reads rows packed by stepBatch out of wasm memory. */
export class RowDecoder {
  #buffer: ArrayBufferLike | null = null;
  #view!: DataView;
  #bytes!: Uint8Array;

  decode(heap: Uint8Array, ptr: number, columns: number, rows: number, out: SqlValue[][]): void {
    if (heap.buffer !== this.#buffer) {  // memory grew: the old views are detached
      this.#buffer = heap.buffer;
      this.#view = new DataView(heap.buffer);
      this.#bytes = heap;
    }
    const view = this.#view;
    const bytes = this.#bytes;
    let p = ptr;
    for (let r = 0; r < rows; r++) {
      const row = new Array<SqlValue>(columns);
      for (let c = 0; c < columns; c++) {
        const tag = bytes[p++];
        if (tag === Tag.Number) {
          row[c] = view.getFloat64(p, true);
          p += 8;
        } else if (tag === Tag.Null) {
          row[c] = null;
        } else if (tag === Tag.True || tag === Tag.False) {
          row[c] = tag === Tag.True;
        } else {
          const n = view.getUint32(p, true);
          p += 4;
          if (tag === Tag.Text) row[c] = readUtf8(bytes, p, n);
          else if (tag === Tag.Blob) row[c] = bytes.slice(p, p + n);
          else if (tag === Tag.BigInt) row[c] = BigInt(readUtf8(bytes, p, n));
          else row[c] = JSON.parse(readUtf8(bytes, p, n)) as JsonValue;
          p += n;
        }
      }
      out.push(row);
    }
  }
}

// Short ASCII strings (the common case) are faster to build by hand than through TextDecoder.
function readUtf8(bytes: Uint8Array, p: number, n: number): string {
  if (n > 24) return utf8Decoder.decode(bytes.subarray(p, p + n));
  let s = '';
  for (let i = 0; i < n; i++) {
    const b = bytes[p + i];
    if (b >= 0x80) return utf8Decoder.decode(bytes.subarray(p, p + n));
    s += String.fromCharCode(b);
  }
  return s;
}

/** Packs (position, value) pairs into a parameter block. One encoder per statement. */
export class ParamEncoder {
  #bytes = new Uint8Array(256);
  #view = new DataView(this.#bytes.buffer);
  #length = 0;
  #count = 0;

  begin(): void {
    this.#length = 4;
    this.#count = 0;
  }

  add(position: number, value: unknown): void {
    this.#reserve(13);
    this.#view.setInt32(this.#length, position, true);
    this.#length += 4;
    this.#value(value);
    this.#count++;
  }

  /** The finished block (a view valid until the next begin()). */
  finish(): Uint8Array {
    this.#view.setUint32(0, this.#count, true);
    return this.#bytes.subarray(0, this.#length);
  }

  #value(v: unknown): void {
    switch (typeof v) {
      case 'number': return this.#number(v);
      case 'string': return this.#text(Tag.Text, v);
      case 'boolean': return this.#tag(v ? Tag.True : Tag.False);
      case 'bigint':
        if (v >= -MAX_SAFE && v <= MAX_SAFE) return this.#number(Number(v));
        return this.#text(Tag.BigInt, v.toString());
      case 'undefined': return this.#tag(Tag.Null);
      case 'object':
        if (v === null) return this.#tag(Tag.Null);
        if (v instanceof Uint8Array) return this.#blob(v);
        if (v instanceof Date) return this.#text(Tag.Text, v.toISOString());
        return this.#text(Tag.Json, JSON.stringify(v));
      default:
        throw new TypeError(`cannot bind a value of type ${typeof v}`);
    }
  }

  #tag(t: Tag): void {
    this.#reserve(1);
    this.#bytes[this.#length++] = t;
  }
  #number(n: number): void {
    this.#reserve(9);
    this.#bytes[this.#length++] = Tag.Number;
    this.#view.setFloat64(this.#length, n, true);
    this.#length += 8;
  }
  #text(t: Tag, s: string): void {
    this.#reserve(5 + s.length * 3);
    this.#bytes[this.#length] = t;
    const { written } = utf8Encoder.encodeInto(s, this.#bytes.subarray(this.#length + 5));
    this.#view.setUint32(this.#length + 1, written, true);
    this.#length += 5 + written;
  }
  #blob(b: Uint8Array): void {
    this.#reserve(5 + b.length);
    this.#bytes[this.#length] = Tag.Blob;
    this.#view.setUint32(this.#length + 1, b.length, true);
    this.#bytes.set(b, this.#length + 5);
    this.#length += 5 + b.length;
  }
  #reserve(n: number): void {
    if (this.#length + n <= this.#bytes.length) return;
    let size = this.#bytes.length * 2;
    while (size < this.#length + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = bigger;
    this.#view = new DataView(bigger.buffer);
  }
}
