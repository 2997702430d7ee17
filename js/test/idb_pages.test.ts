// The IndexedDB layout's pieces against a naive model (fake-indexeddb): random commits of puts,
// erases and range erases over short keys (so they collide and ranges cut pages anywhere),
// appended to the log, folded by compaction into tiny pages now and then; after each commit,
// random key ranges read from pages + log (what a table load reads) equal the model's.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { compact } from '../dist/idb/compaction.js';
import { connect } from '../dist/idb/format.js';
import { appendCommit, LOG, META, readLog } from '../dist/idb/log.js';
import { Overlay, type KeyRange } from '../dist/idb/overlay.js';
import { rangeContents, readPages, SEGMENTS } from '../dist/idb/pages.js';
import { decodeBatch } from '../dist/write_batch.js';
import { generator } from './random.js';

// A batch in the write-batch format: tag, then each field with its varint length.
function batch(ops: [number, ...Uint8Array[]][]): Uint8Array {
  const out: number[] = [];
  for (const [tag, ...fields] of ops) {
    out.push(tag);
    for (const f of fields) {
      let n = f.length;
      while (n >= 0x80) {
        out.push((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      out.push(n);
      out.push(...f);
    }
  }
  return new Uint8Array(out);
}
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);  // hex order is byte order

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = tx.onerror = () => reject(tx.error);
  });
}

describe('pages and log against a model', () => {
  it.each([2029, 7, 4242])('random commits, compactions and range reads (seed %i)', async (seed) => {
    const rand = generator(seed);
    const idb = await connect(`pages-model-${process.pid}-${seed}`);
    const model = new Map<string, string>();  // hex key -> hex value
    const key = () => new Uint8Array(Array.from({ length: 1 + rand(3) }, () => 1 + rand(6)));
    const range = (): KeyRange => {
      const a = key(), b = rand(5) === 0 ? new Uint8Array(0) : key();
      return b.length && hex(b) < hex(a) ? [b, a] : [a, b];
    };
    const inside = (k: string, [b, e]: KeyRange) => k >= hex(b) && (e.length === 0 || k < hex(e));
    for (let step = 0; step < 300; step++) {
      const ops: [number, ...Uint8Array[]][] = [];
      for (let i = 0, n = 1 + rand(12); i < n; i++) {
        const r = rand(10);
        if (r < 6) {
          const k = key(), v = new Uint8Array(Array.from({ length: rand(40) }, () => rand(256)));
          ops.push([1, k, v]);
          model.set(hex(k), hex(v));
        } else if (r < 8) {
          const k = key();
          ops.push([2, k]);
          model.delete(hex(k));
        } else {
          const rg = range();
          ops.push([3, rg[0], rg[1]]);
          for (const k of [...model.keys()]) if (inside(k, rg)) model.delete(k);
        }
      }
      const tx = idb.transaction([LOG, META], 'readwrite');
      appendCommit(tx, [batch(ops)], () => {}, (e) => { throw e; });
      await done(tx);
      if (rand(7) === 0) {
        await compact(idb, { pageBytes: 1 + rand(200), maxAmplification: 8, maxLogBytes: 1 << 20, force: rand(2) === 0 });
      }
      const ranges = [range(), range(), [new Uint8Array(0), new Uint8Array(0)] as KeyRange];
      const rtx = idb.transaction([META, LOG, SEGMENTS], 'readonly');
      const pages = await Promise.all(ranges.map((r) => readPages(rtx.objectStore(SEGMENTS), r)));
      const state = await new Promise<any>((resolve) => {
        const g = rtx.objectStore(META).get('state');
        g.onsuccess = () => resolve(g.result);
      });
      const records = await readLog(rtx, state.compactedThrough);
      const overlay = new Overlay(ranges);
      for (const [, batches] of records) for (const b of batches) overlay.add(b);
      ranges.forEach((r, i) => {
        const got: string[] = [];
        for (const part of rangeContents(pages[i], r, overlay)) {
          decodeBatch(part, { put: (k, v) => got.push(`${hex(k)}=${hex(v)}`), erase: () => {}, eraseRange: () => {} });
        }
        const want = [...model.entries()].filter(([k]) => inside(k, r)).sort(([a], [b]) => cmp(a, b)).map(([k, v]) => `${k}=${v}`);
        expect(got, `step ${step}, range ${hex(r[0])}..${hex(r[1])}`).toEqual(want);
      });
    }
    idb.close();
  });
});
