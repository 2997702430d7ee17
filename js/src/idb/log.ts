// The commit log of an IndexedDB database: the `log` object store holds one record per write
// transaction, keyed by its commit sequence number (1, 2, …), whose value is the transaction's
// batches (write_batch.ts), and the `meta` store holds that number (SEQ). A commit is one put
// here, whatever its size, plus the number's update, in one readwrite transaction over both.
//
// Invariants: SEQ is the number of the last commit stored; the log holds every commit after the
// compacted-through number (compaction.ts), and the last LOG_KEEP ones before it (as long as they
// hold no more than LOG_KEEP_BYTES), for other connections to catch up from (a connection that
// missed more fails rather than guess). Records
// are never changed once written; compaction alone deletes them, in its own transaction.
export const LOG = 'log';
export const META = 'meta';
/** The key, in META, of the number of the last commit stored. */
export const SEQ = 'seq';
/** Compacted commits kept for other connections' catch-up. */
export const LOG_KEEP = 1000;
/** At most this many bytes of them (a few big imports do not stay in the log twice). */
export const LOG_KEEP_BYTES = 16 << 20;

/** Issues, in `tx` (readwrite over LOG and META), the next commit: SEQ + 1, with `batches`;
 *  calls `numbered(seq)` once its number is known (the commit is stored when `tx` completes), or
 *  `refused(e)` when a request is refused (quota, a value that cannot be stored), having aborted
 *  `tx`. */
export function appendCommit(tx: IDBTransaction, batches: Uint8Array[], numbered: (seq: number) => void,
                             refused: (e: unknown) => void): void {
  const meta = tx.objectStore(META);
  const last = meta.get(SEQ);
  last.onsuccess = () => {
    const seq = ((last.result as number | undefined) ?? 0) + 1;
    try {
      meta.put(seq, SEQ);
      tx.objectStore(LOG).put(batches, seq);
    } catch (e) {
      refused(e);
      try {
        tx.abort();
      } catch {
        // finished already
      }
      return;
    }
    numbered(seq);
  };
}

/** The log's records numbered after `after`, in commit order, requested in `tx`. */
export function readLog(tx: IDBTransaction, after: number): Promise<[number, Uint8Array[]][]> {
  const log = tx.objectStore(LOG);
  const range = IDBKeyRange.lowerBound(after, true);
  const keys = log.getAllKeys(range);
  const values = log.getAll(range);
  return new Promise((resolve, reject) => {
    values.onsuccess = () => resolve((keys.result as number[]).map((k, i) => [k, values.result[i] as Uint8Array[]]));
    keys.onerror = () => reject(keys.error);
    values.onerror = () => reject(values.error);
  });
}

/** The bytes of a log record's batches. */
export function recordBytes(batches: readonly Uint8Array[]): number {
  let n = 0;
  for (const b of batches) n += b.byteLength;
  return n;
}
