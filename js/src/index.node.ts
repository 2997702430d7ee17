// Node entry: reads the .wasm beside this file (Node's fetch cannot load file URLs), then
// exposes the API, with the file store (storage 'file'). Top-level await: importing the package yields a ready module.
import { readFile } from 'node:fs/promises';
import { URL as NodeURL, fileURLToPath } from 'node:url';  // node's own URL: test DOMs replace the global one
// @ts-ignore: the Emscripten glue has no typings
import createOpticDB from './opticdb.mjs';
import { installModule } from './native.js';
import { installFileStore } from './database.js';
import { FileStore } from './filestore.js';

const wasmPath = fileURLToPath(new NodeURL('./opticdb.wasm', import.meta.url));
installModule(await createOpticDB({ wasmBinary: await readFile(wasmPath) }));
installFileStore(FileStore.open);  // storage 'file': Node only, so only this entry loads node:fs

export * from './index.js';
