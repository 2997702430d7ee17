// Counts the IndexedDB entries getAll hands back, for tests that assert what a lazy open reads:
// countIdbReads() wraps IDBObjectStore.prototype.getAll for the tests of the calling file
// (installed before each, restored after each); readSince() returns the count and resets it.
import { afterEach, beforeEach } from 'vitest';

export function countIdbReads(): { readSince(): number } {
  let entriesRead = 0;
  const originalGetAll = IDBObjectStore.prototype.getAll;
  beforeEach(() => {
    entriesRead = 0;
    IDBObjectStore.prototype.getAll = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['getAll']>) {
      const req = originalGetAll.apply(this, args);
      req.addEventListener('success', () => { entriesRead += req.result.length; });
      return req;
    };
  });
  afterEach(() => {
    IDBObjectStore.prototype.getAll = originalGetAll;
  });
  return {
    readSince(): number {
      const n = entriesRead;
      entriesRead = 0;
      return n;
    },
  };
}
