// Prints what a web app downloads: opticdb.wasm and its JS glue, raw and gzipped (level 9, as a
// server compresses static files), and their sum. Reads js/dist (scripts/build-js.sh).
// Usage: node scripts/wasm-size.mjs [DIST_DIR] [--budget KB]: with a budget (gzipped total, in
// KB of 1000 bytes), exits 1 when the total is over it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const budgetAt = args.indexOf('--budget');
const budget = budgetAt >= 0 ? Number(args.splice(budgetAt, 2)[1]) : null;
const dist = args[0] ?? new URL('../js/dist', import.meta.url).pathname;

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
let raw = 0;
let gz = 0;
for (const file of ['opticdb.wasm', 'opticdb.mjs']) {
  const bytes = readFileSync(join(dist, file));
  const zipped = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gz += zipped;
  console.log(`${file.padEnd(14)} ${String(bytes.length).padStart(9)} bytes (${kb(bytes.length)}), gzipped ${String(zipped).padStart(8)} bytes (${kb(zipped)})`);
}
console.log(`${'total'.padEnd(14)} ${String(raw).padStart(9)} bytes (${kb(raw)}), gzipped ${String(gz).padStart(8)} bytes (${kb(gz)})`);
if (budget !== null && gz > budget * 1000) {
  console.log(`over the budget: ${kb(gz)} gzipped > ${budget} KB`);
  process.exit(1);
}
