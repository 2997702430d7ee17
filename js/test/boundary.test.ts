// The wasm boundary under the package (wasm/bindings.cpp, js/src/native.ts): byte lists cross in
// the one commit-batch format (WriteBatch::rep(), js/src/write_batch.ts), and a NOT_LOADED failure
// names the tables to load as data. Driven through the raw Embind handles, as the package's
// persistent stores drive them, since the package itself never lets the engine's NOT_LOADED reach
// an app (it loads the tables and runs the statement again).
import { afterEach, describe, expect, it } from 'vitest';
import { OpticError } from 'opticdb';
import { engineError } from '../dist/errors.js';
import { nativeModule, type NativeDatabase } from '../dist/native.js';
import { decodeBatch, keyRanges, putsRep } from '../dist/write_batch.js';

const handles: NativeDatabase[] = [];
afterEach(() => {
  for (const h of handles.splice(0)) h.delete();
});

// A raw persistent database hydrated from `contents` (a batch of puts); its commits' batches go
// to `written` (never acknowledged: each commit keeps its undo, which these tests never need).
function openRaw(contents: Uint8Array, lazy: boolean, written: Uint8Array[] = []): NativeDatabase {
  const raw = new (nativeModule().Database)(contents, (b) => written.push(b), lazy);
  handles.push(raw);
  expect(raw.opened()).toBe(true);
  return raw;
}

// The storage the batches build, as a sorted list of entries (keys as latin1 strings).
function storageOf(batches: Uint8Array[]): Map<string, [Uint8Array, Uint8Array]> {
  const entries = new Map<string, [Uint8Array, Uint8Array]>();
  const latin1 = (b: Uint8Array) => String.fromCharCode(...b);
  for (const batch of batches) {
    decodeBatch(batch, {
      put: (k, v) => entries.set(latin1(k), [k.slice(), v.slice()]),
      erase: (k) => entries.delete(latin1(k)),
      eraseRange: (begin, end) => {
        for (const key of [...entries.keys()]) if (key >= latin1(begin) && key < latin1(end)) entries.delete(key);
      },
    });
  }
  return entries;
}

function inRanges(storage: Map<string, [Uint8Array, Uint8Array]>, ranges: Uint8Array): [Uint8Array, Uint8Array][] {
  const latin1 = (b: Uint8Array) => String.fromCharCode(...b);
  const bounds = keyRanges(ranges).map(([b, e]) => [latin1(b), latin1(e)]);
  return [...storage].filter(([k]) => bounds.some(([b, e]) => k >= b && k < e)).map(([, entry]) => entry);
}

function check(raw: NativeDatabase, status: number): void {
  if (status < 0) throw engineError(raw.lastError());
}

describe('the wasm boundary', () => {
  it('hands commit batches out, and takes stored entries and key ranges in, in one format', () => {
    const written: Uint8Array[] = [];
    const writer = openRaw(putsRep([]), false, written);
    check(writer, writer.exec('create table t (id integer primary key, v text);' +
                                     "insert into t values (1, 'a'), (2, 'b')"));
    const storage = storageOf(written);
    expect(storage.size).toBeGreaterThan(2);  // the catalog entry and both rows

    // Opening lazily on the catalog alone, then loading t from its ranges.
    const catalog = inRanges(storage, nativeModule().catalogRange());
    expect(catalog.length).toBe(1);
    const reader = openRaw(putsRep(catalog), true);
    expect(reader.tableLoaded('main', 't')).toBe(false);
    expect(reader.tablesToLoad('select v from t')).toEqual(['main.t']);
    check(reader, reader.loadTables(['main.t'], putsRep(inRanges(storage, reader.loadRanges(['main.t']))), 0));
    const st = reader.prepare('select v from t order by id')!;
    expect(st.stepBatch(10)).toBe(2);
    st.delete();
  });

  it('a NOT_LOADED failure names the tables to load; the message stays for people', () => {
    const written: Uint8Array[] = [];
    const writer = openRaw(putsRep([]), false, written);
    check(writer, writer.exec('create table t (id integer primary key); create table u (id integer primary key)'));
    const reader = openRaw(putsRep([...storageOf(written).values()]), true);
    let error: unknown;
    try {
      check(reader, reader.exec('select * from u'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OpticError);
    const e = error as OpticError;
    expect(e.code).toBe('NOT_LOADED');
    expect(e.tablesToLoad).toEqual(['main.u']);
    expect(e.message).toBe("Table 'main.u' is not loaded");
  });

  it('other failures carry no tables to load', () => {
    const raw = openRaw(putsRep([]), false);
    let error: unknown;
    try {
      check(raw, raw.exec('select * from missing'));
    } catch (e) {
      error = e;
    }
    expect((error as OpticError).tablesToLoad).toBeUndefined();
  });
});
