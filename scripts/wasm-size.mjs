// Prints what a web app downloads: opticdb.wasm and its JS glue, raw and gzipped (level 9, as a
// server compresses static files), and their sum; then the wasm's sections. Reads js/dist
// (scripts/build-js.sh).
// Usage: node scripts/wasm-size.mjs [DIST_DIR] [--budget KB] [--top N]
//   --budget KB  exits 1 when the gzipped total is over KB (of 1000 bytes)
//   --top N      the code size by C++ namespace/class and the N largest functions; needs function
//                names in the wasm (a profiling build: emcmake cmake … -DOPTIC_WASM_PROFILING=ON)
//   --layers DIR the compiled code of each engine layer before linking (the code sections of the
//                object files under DIR, a wasm build directory such as build-wasm), with the
//                optimisation level each object was compiled at (the link shares template
//                instances between objects, so the linked wasm is smaller than the sum)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args.splice(at, 2)[1]) : null;
};
const budget = option('--budget');
const top = option('--top');
const layersAt = args.indexOf('--layers');
const layersDir = layersAt >= 0 ? args.splice(layersAt, 2)[1] : null;
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

// ---- the wasm's sections, and with names its functions -------------------------------------
const wasm = readFileSync(join(dist, 'opticdb.wasm'));
let pos = 8;
const leb = () => {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = wasm[pos++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return result;
  }
};
const sections = [];
let imported = 0;
let bodies = [];
let names = new Map();
while (pos < wasm.length) {
  const id = wasm[pos++];
  const size = leb();
  const end = pos + size;
  let name = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount', 'tag'][id] ?? `#${id}`;
  if (id === 0) {
    const n = leb();
    name = wasm.subarray(pos, pos + n).toString('utf8');
    pos += n;
    if (name === 'name') {
      while (pos < end) {
        const sub = wasm[pos++];
        const subEnd = leb() + pos;
        if (sub === 1) {
          for (let count = leb(); count > 0; count--) {
            const index = leb();
            const len = leb();
            names.set(index, wasm.subarray(pos, pos + len).toString('utf8'));
            pos += len;
          }
        }
        pos = subEnd;
      }
    }
  } else if (id === 2) {
    for (let count = leb(); count > 0; count--) {
      // The names' lengths, then their bytes (`pos += leb()` would add to pos as read before leb moved it).
      for (let name = 0; name < 2; name++) {  // module, field
        const length = leb();
        pos += length;
      }
      const kind = wasm[pos++];
      if (kind === 0) { imported++; leb(); } else if (kind === 1) { pos++; const f = leb(); leb(); if (f & 1) leb(); }
      else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); } else if (kind === 3) { pos += 2; } else if (kind === 4) { pos++; leb(); }
    }
  } else if (id === 10) {
    for (let count = leb(); count > 0; count--) {
      const len = leb();
      bodies.push(len);
      pos += len;
    }
  }
  sections.push([name, size]);
  pos = end;
}
console.log(`sections: ${sections.filter(([, n]) => n > 1000).map(([s, n]) => `${s} ${kb(n)}`).join(', ')}`);
if (top !== null) {
  if (!names.size) {
    console.log('no function names in this wasm: build with -DOPTIC_WASM_PROFILING=ON for --top');
  } else {
    const fns = bodies.map((len, i) => [names.get(imported + i) ?? `fn${imported + i}`, len]);
    // The part of the engine a function belongs to: its namespace and class (optic::Binder, std::…).
    const groups = new Map();
    for (const [name, len] of fns) {
      const scope = name.replace(/\(.*$/, '').replace(/<.*$/, '').split('::').slice(0, -1).slice(0, 2).join('::') || '(global)';
      groups.set(scope, (groups.get(scope) ?? 0) + len);
    }
    console.log(`code by scope (top ${top}):`);
    for (const [scope, len] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${kb(len).padStart(10)}  ${scope}`);
    console.log(`largest functions (top ${top}):`);
    for (const [name, len] of fns.sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${kb(len).padStart(10)}  ${name.slice(0, 140)}`);
  }
}
if (layersDir !== null) printLayers(layersDir);

// The code section's size of a wasm object file (0 if it has none).
function codeSize(file) {
  const bytes = readFileSync(file);
  let at = 8;
  const read = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return result;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = read();
    if (id === 10) return size;
    at += size;
  }
  return 0;
}
// Each object's -O level, from the build's compile_commands.json (the last -O on the line wins).
function optLevels(dir) {
  const levels = new Map();
  const commands = join(dir, 'compile_commands.json');
  if (!existsSync(commands)) return levels;
  for (const { command, output, directory } of JSON.parse(readFileSync(commands, 'utf8'))) {
    const flags = command.match(/ -O[0-3sz]\b/g) ?? [];
    const out = output ?? command.match(/ -o (\S+)/)?.[1];
    if (out) levels.set(join(directory, out), flags.length ? flags[flags.length - 1].trim() : '');
  }
  return levels;
}
function printLayers(dir) {
  const levels = optLevels(dir);
  const objects = (root) => !existsSync(root) ? [] : readdirSync(root, { recursive: true })
    .filter((f) => f.endsWith('.o')).map((f) => resolve(root, f));
  const parts = new Map();  // layer -> {code, levels: Map(level -> code)}
  const add = (layer, file) => {
    const size = codeSize(file);
    const part = parts.get(layer) ?? { code: 0, levels: new Map() };
    const level = levels.get(file) ?? '?';
    part.code += size;
    part.levels.set(level, (part.levels.get(level) ?? 0) + size);
    parts.set(layer, part);
  };
  const core = resolve(dir, 'core/CMakeFiles/opticcore.dir');
  for (const file of objects(core)) add(relative(core, file).split('/')[0], file);
  for (const file of objects(join(dir, 'wasm/CMakeFiles/opticdb_wasm.dir'))) add('wasm bindings', file);
  const total = [...parts.values()].reduce((n, p) => n + p.code, 0);
  console.log(`compiled code by layer (object files, ${kb(total)} before linking):`);
  for (const [layer, { code, levels: byLevel }] of [...parts].sort((a, b) => b[1].code - a[1].code)) {
    const detail = [...byLevel].sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l || 'default'} ${kb(n)}`).join(', ');
    console.log(`  ${kb(code).padStart(10)}  ${String(Math.round((100 * code) / total)).padStart(3)}%  ${layer.padEnd(14)} ${detail}`);
  }
}
if (budget !== null && gz > budget * 1000) {
  console.log(`over the budget: ${kb(gz)} gzipped > ${budget} KB`);
  process.exit(1);
}
