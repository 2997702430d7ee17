// The database file format of the native FileStore (core/storage/file_store.h), without I/O, so
// the browser build can read and write it too (Database.export / Database.import); the Node file
// store (filestore.ts) keeps its log in it.
//
// Layout: the 8-byte magic "OPTICDB1", then records, each
//   u32 length (LE) | u32 CRC-32 of the payload | payload = WriteBatch rep (varint lengths)
// Replaying the records in order gives the flat key space (Image); a record that is truncated,
// fails its checksum or does not decode ends the replay (recordAt).
import { decodeBatch, isWellFormed, putsRep } from './write_batch.js';

export const MAGIC = new Uint8Array([0x4f, 0x50, 0x54, 0x49, 0x43, 0x44, 0x42, 0x31]);  // "OPTICDB1"
export const HEADER = 8;  // u32 length + u32 CRC

/** Whether `data` starts with the magic (`prefixOnly`: or is a prefix of it, a file never completed). */
export function hasMagic(data: Uint8Array, prefixOnly = false): boolean {
  const n = prefixOnly ? data.length : MAGIC.length;
  if (data.length < n || n > MAGIC.length) return false;
  for (let i = 0; i < n; i++) if (data[i] !== MAGIC[i]) return false;
  return true;
}

/** The payload of the whole, checksummed, well-formed record at `at`; null at the end of the log
 *  or at a torn or corrupt record. */
export function recordAt(data: Uint8Array, at: number): Uint8Array | null {
  if (data.length - at < HEADER) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const len = view.getUint32(at, true);
  if (len > data.length - at - HEADER) return null;
  const rep = data.subarray(at + HEADER, at + HEADER + len);
  if (crc32(rep) !== view.getUint32(at + 4, true) || !isWellFormed(rep)) return null;
  return rep;
}

/** One record holding `rep`. */
export function frame(rep: Uint8Array): Uint8Array {
  const record = new Uint8Array(HEADER + rep.length);
  const view = new DataView(record.buffer);
  view.setUint32(0, rep.length, true);
  view.setUint32(4, crc32(rep), true);
  record.set(rep, HEADER);
  return record;
}

/** A whole database file holding `entries` (one snapshot record, as compaction writes it). */
export function databaseFile(entries: [Uint8Array, Uint8Array][]): Uint8Array {
  const rep = putsRep(entries);
  const record = entries.length ? frame(rep) : new Uint8Array(0);
  const file = new Uint8Array(MAGIC.length + record.length);
  file.set(MAGIC);
  file.set(record, MAGIC.length);
  return file;
}

/** The flat key space replayed from a database file's records, with its live byte count (keys +
 *  values). Keys are held as latin1 strings, one char per byte, which compare in memcmp order. */
export class Image {
  #entries = new Map<string, [Uint8Array, Uint8Array]>();
  liveBytes = 0;

  /** Replays a whole file; returns where its last whole record ends (its valid length). Throws
   *  when `data` is not a database file. */
  static replay(data: Uint8Array, into: Image = new Image()): number {
    if (!hasMagic(data)) throw new Error('not an OpticDB database file');
    let good = MAGIC.length;
    for (let rep: Uint8Array | null; (rep = recordAt(data, good)); good += HEADER + rep.length) into.apply(rep);
    return good;
  }

  apply(rep: Uint8Array): void {
    decodeBatch(rep, {
      put: (k, v) => this.#put(k, v.slice()),
      erase: (k) => this.#erase(latin1(k)),
      // A scan of every key: a Map has no order, and ranges are erased only when a table is
      // dropped or renamed, where the engine's own work is of the same size.
      eraseRange: (begin, end) => {
        const [b, e] = [latin1(begin), latin1(end)];
        for (const key of [...this.#entries.keys()]) if (key >= b && key < e) this.#erase(key);
      },
    });
  }
  entries(): [Uint8Array, Uint8Array][] {
    return [...this.#entries.values()];
  }
  sorted(): [Uint8Array, Uint8Array][] {
    return [...this.#entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
  }

  #put(key: Uint8Array, value: Uint8Array): void {
    const k = latin1(key);
    this.#erase(k);
    this.#entries.set(k, [key.slice(), value]);
    this.liveBytes += key.length + value.length;
  }
  #erase(k: string): void {
    const old = this.#entries.get(k);
    if (!old) return;
    this.liveBytes -= old[0].length + old[1].length;
    this.#entries.delete(k);
  }
}

function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode(...b.subarray(i, i + 4096));
  return s;
}

// CRC-32 (IEEE, the zlib polynomial 0xEDB88320), as core/storage/crc32.h.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
