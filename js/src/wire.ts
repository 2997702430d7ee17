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

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
type MaybeWellFormed = { isWellFormed?: () => boolean };
/** No unpaired surrogate (String.prototype.isWellFormed where the runtime has it). */
const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as MaybeWellFormed).isWellFormed === 'function'
    ? (s) => (s as unknown as Required<MaybeWellFormed>).isWellFormed()
    : (s) => !LONE_SURROGATE.test(s);

/** UTF-8 of `s` with each unpaired surrogate encoded as its own three bytes; returns the length. */
function encodeCodeUnits(s: string, out: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 0x3f);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
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
    const out = this.#bytes.subarray(this.#length + 5);
    // TextEncoder would turn a lone surrogate into U+FFFD, storing something other than what was
    // bound; encoded as SQL text crosses (each surrogate on its own, as Emscripten's stringToUTF8
    // does), the engine sees it and a store refuses it (core/storage/storable_text.h).
    const written = isWellFormed(s) ? utf8Encoder.encodeInto(s, out).written : encodeCodeUnits(s, out);
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
