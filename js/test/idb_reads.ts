// Counts the entries the IndexedDB bridge reads from storage for the engine (what opening and each
// table load hand over): countIdbReads() wraps IndexedDbBridge's readCatalog and readRanges for the
// tests of the calling file (installed before each, restored after each); readSince() returns
// the count and resets it. Storage reads whole pages (indexeddb.ts); what a lazy open or load
// reads is the entries of the ranges it asked for, counted here.
import { afterEach, beforeEach } from 'vitest';
import { IndexedDbBridge } from '../dist/indexeddb.js';
import { decodeBatch } from '../dist/write_batch.js';

function entries(contents: Uint8Array): number {
  let n = 0;
  const count = () => { n++; };
  decodeBatch(contents, { put: count, erase: count, eraseRange: count });
  return n;
}

export function countIdbReads(): { readSince(): number } {
  let entriesRead = 0;
  const proto = IndexedDbBridge.prototype;
  const { readCatalog, readRanges } = proto;
  beforeEach(() => {
    entriesRead = 0;
    for (const [name, original] of [['readCatalog', readCatalog], ['readRanges', readRanges]] as const) {
      proto[name] = async function (this: IndexedDbBridge, ranges: Uint8Array) {
        const snapshot = await original.call(this, ranges);
        entriesRead += entries(snapshot.contents);
        return snapshot;
      };
    }
  });
  afterEach(() => {
    proto.readCatalog = readCatalog;
    proto.readRanges = readRanges;
  });
  return {
    readSince(): number {
      const n = entriesRead;
      entriesRead = 0;
      return n;
    },
  };
}
