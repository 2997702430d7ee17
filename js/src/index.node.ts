// Node entry: reads the .wasm beside this file (Node's fetch cannot load file URLs), then
// exposes the API. Top-level await: importing the package yields a ready module.
import { readFile } from 'node:fs/promises';
// @ts-ignore: the Emscripten glue has no typings
import createOpticDB from './opticdb.mjs';
import { installModule } from './native.js';

installModule(await createOpticDB({ wasmBinary: await readFile(new URL('./opticdb.wasm', import.meta.url)) }));

export * from './index.js';
