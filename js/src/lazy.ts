// The `opticdb/lazy` entry: the same API, with the engine started when the app says so and from
// where it says. `await init()` loads opticdb.wasm from beside the glue (bundlers emit it);
// `init({ wasm })` takes its URL, a fetch Response, its bytes, or a compiled WebAssembly.Module.
// init() is idempotent: later calls return the first one's promise (their options are ignored).
// @ts-ignore: the Emscripten glue has no typings
import createOpticDB from './opticdb.mjs';
import { installModule, type NativeModule } from './native.js';

export type WasmSource = string | URL | Response | PromiseLike<Response> | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

export interface InitOptions {
  /** Where the engine's opticdb.wasm comes from (default: the file beside the package's glue). */
  wasm?: WasmSource;
}

let started: Promise<void> | null = null;

/** Loads and starts the engine; Database and the rest of the API work once it resolves. */
export function init(options: InitOptions = {}): Promise<void> {
  started ??= start(options.wasm).catch((e) => {
    started = null;  // a failed load may be retried (another source, the network back)
    throw e;
  });
  return started;
}

async function start(wasm: WasmSource | undefined): Promise<void> {
  // A failed instantiation inside the glue's hook rejects through `failed` (the glue would wait).
  let fail!: (e: unknown) => void;
  const failed = new Promise<never>((_resolve, reject) => { fail = reject; });
  const module = await Promise.race([createOpticDB(await glueOptions(wasm, fail)), failed]);
  installModule(module as NativeModule);
}

type Imports = WebAssembly.Imports;
type Ready = (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void;

// Emscripten's instantiateWasm hook: the glue hands over its imports and waits for the instance.
function instantiateWith(fail: (e: unknown) => void,
                         make: (imports: Imports) => Promise<{ instance: WebAssembly.Instance; module?: WebAssembly.Module }>) {
  return {
    instantiateWasm(imports: Imports, ready: Ready) {
      make(imports).then(({ instance, module }) => ready(instance, module), fail);
      return {};  // asynchronous: the glue waits for ready()
    },
  };
}

async function glueOptions(wasm: WasmSource | undefined, fail: (e: unknown) => void): Promise<object> {
  if (wasm === undefined) return {};
  if (wasm instanceof WebAssembly.Module) {
    return instantiateWith(fail, async (imports) => ({ instance: await WebAssembly.instantiate(wasm, imports), module: wasm }));
  }
  if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) {
    const bytes = wasm instanceof ArrayBuffer ? new Uint8Array(wasm)
                                              : new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength);
    return { wasmBinary: bytes };
  }
  const response = typeof wasm === 'string' || wasm instanceof URL ? fetch(wasm) : Promise.resolve(wasm);
  const first = await response;  // a failed fetch rejects init(), not a console message
  if (!first.ok) throw new Error(`opticdb: fetching the wasm failed: ${first.status} ${first.statusText} (${first.url})`);
  return instantiateWith(fail, async (imports) => {
    // Streaming compilation needs the application/wasm type; otherwise compile from the bytes.
    if (typeof WebAssembly.instantiateStreaming === 'function' &&
        first.headers.get('content-type')?.split(';')[0].trim() === 'application/wasm') {
      return WebAssembly.instantiateStreaming(first, imports);
    }
    return WebAssembly.instantiate(await first.arrayBuffer(), imports);
  });
}

export * from './index.js';
