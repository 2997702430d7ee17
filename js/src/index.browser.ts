// Browser and Web Worker entry: the Emscripten glue fetches opticdb.wasm next to itself
// (bundlers such as Vite emit and hash it). Top-level await: importing yields a ready module.
// @ts-ignore: the Emscripten glue has no typings
import createOpticDB from './opticdb.mjs';
import { installModule } from './native.js';

installModule(await createOpticDB());

export * from './index.js';
