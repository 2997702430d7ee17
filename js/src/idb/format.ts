// The versioned layout of an OpticDB database in IndexedDB (`opticdb:<name>`), and opening it.
//
//   version 1 (before issue 29): one object store `kv`: every row and index entry one record,
//     the commit sequence number at key [0], the commit log at [1] + number (8 bytes, big endian).
//   version 2 (FORMAT): `log` and `meta` (log.ts: one record per commit, SEQ), `segments`
//     (pages.ts: the compacted state in sorted pages) and, in `meta` at STATE, { format,
//     compactedThrough } (compaction.ts).
//
// The IndexedDB version is the format version. Opening a version-1 database migrates it once,
// inside the versionchange transaction (so atomically: a failure leaves version 1 as it was): its
// entries are packed into pages, its sequence number kept, everything compacted through it, and
// `kv` deleted; the pages written are checked against what was read before it commits. A database
// of a newer format than FORMAT (a newer IndexedDB version, or a newer format in STATE) is refused
// with a StorageError naming both versions.
import { StorageError } from '../errors.js';
import { LOG, META, SEQ } from './log.js';
import { packPages, PAGE_BYTES, SEGMENTS, type Page } from './pages.js';
import type { Entry } from './overlay.js';

export const FORMAT = 2;
/** The key, in META, of the layout's state. */
export const STATE = 'state';
export interface State {
  format: number;
  compactedThrough: number;  // every commit up to here is in the pages
  kept?: [number, number][];  // the folded commits still in the log, oldest first: [seq, bytes]
}

const OLD_STORE = 'kv';
const OLD_ENGINE_KEYS_FROM = 2;  // version 1's keys below this byte were its own (number, log)

export function idbFactory(): IDBFactory {
  const factory: IDBFactory | undefined = (globalThis as any).indexedDB;
  if (!factory) throw new Error('IndexedDB is not available here (in Node, import "fake-indexeddb/auto" first)');
  return factory;
}

export function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** A connection to the database of `name`, created, or migrated from an older format, first. */
export async function connect(name: string): Promise<IDBDatabase> {
  const req = idbFactory().open(`opticdb:${name}`, FORMAT);
  let refused = '';  // why the upgrade was aborted
  req.onupgradeneeded = (e) => upgrade(req.result, req.transaction!, e.oldVersion, (why) => {
    refused = why;
  });
  req.onblocked = () => {};
  let idb: IDBDatabase;
  try {
    idb = await request(req);
  } catch (e) {
    if ((e as { name?: string } | null)?.name === 'VersionError') throw await newerFormat(name);
    throw StorageError.of(`IndexedDB database '${name}' could not be opened${refused ? ` (${refused})` : ''}`, e);
  }
  const state = await readState(idb);
  if (state.format > FORMAT) {
    idb.close();
    throw tooNew(name, state.format);
  }
  return idb;
}

async function readState(idb: IDBDatabase): Promise<State> {
  const state = await request(idb.transaction(META, 'readonly').objectStore(META).get(STATE));
  return (state as State | undefined) ?? { format: FORMAT, compactedThrough: 0 };
}

async function newerFormat(name: string): Promise<StorageError> {
  const found = await idbFactory().databases?.().catch(() => []);
  const version = found?.find((d) => d.name === `opticdb:${name}`)?.version;
  return tooNew(name, version ?? 'unknown');
}
function tooNew(name: string, version: number | string): StorageError {
  return new StorageError(`IndexedDB database '${name}' has storage format version ${version}, newer than this ` +
                          `version of OpticDB knows (format ${FORMAT}): open it with a newer OpticDB`, 'IOERR');
}

// Creates the stores of FORMAT, migrating version 1's contents when there are any.
function upgrade(idb: IDBDatabase, tx: IDBTransaction, oldVersion: number, refuse: (why: string) => void): void {
  idb.createObjectStore(LOG);
  idb.createObjectStore(META);
  idb.createObjectStore(SEGMENTS);
  if (oldVersion === 1 && idb.objectStoreNames.contains(OLD_STORE)) migrateFromKv(idb, tx, refuse);
  else tx.objectStore(META).put({ format: FORMAT, compactedThrough: 0 } satisfies State, STATE);
}

// Version 1 to 2, in the upgrade transaction: read `kv`, write its entries as pages (compacted
// through its sequence number), check them, delete `kv`; a mismatch aborts the upgrade.
function migrateFromKv(idb: IDBDatabase, tx: IDBTransaction, refuse: (why: string) => void): void {
  const kv = tx.objectStore(OLD_STORE);
  const seqReq = kv.get(new Uint8Array([0]));
  const range = IDBKeyRange.lowerBound(new Uint8Array([OLD_ENGINE_KEYS_FROM]));
  const keys = kv.getAllKeys(range);
  const values = kv.getAll(range);
  values.onsuccess = () => {
    const entries: Entry[] = (keys.result as ArrayBuffer[]).map((k, i) => [new Uint8Array(k), asBytes(values.result[i])]);
    const seq = (seqReq.result as number | undefined) ?? 0;
    const pages = packPages(entries, PAGE_BYTES);
    const segments = tx.objectStore(SEGMENTS);
    for (const p of pages) segments.put(p, p.first);
    const meta = tx.objectStore(META);
    meta.put(seq, SEQ);
    meta.put({ format: FORMAT, compactedThrough: seq } satisfies State, STATE);
    const check = segments.getAll();
    check.onsuccess = () => {
      const written = (check.result as Page[]).reduce((n, p) => n + p.count, 0);
      if (written !== entries.length) {
        refuse(`migrating format 1 to ${FORMAT}: ${written} entries written of ${entries.length}`);
        tx.abort();
        return;
      }
      idb.deleteObjectStore(OLD_STORE);
    };
  };
}

/** A stored value as bytes (version 1 stored Uint8Arrays; an ArrayBuffer is accepted too). */
export function asBytes(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBuffer);
}
