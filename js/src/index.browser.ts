// Browser and Web Worker entry: the Emscripten glue fetches opticdb.wasm next to itself
// (bundlers such as Vite and webpack emit and hash it). Top-level await: importing yields a ready
// module. To choose where the wasm comes from, or when it loads, import `opticdb/lazy` instead.
import { init } from './lazy.js';

await init();

export * from './index.js';
