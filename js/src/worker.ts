// The `opticdb/worker` entry (browsers): worker mode. In the app's worker file,
// `import { serve } from 'opticdb/worker'; serve();` runs the engine there; on the page,
// `WorkerDatabase.open(new Worker(new URL('./db-worker.js', import.meta.url), { type: 'module' }), options)`
// gives the async Database API backed by it. The page side loads no engine: serve() imports it
// (index.browser.js) when called, so only the worker fetches the wasm.
import { serveWith, type ServeOptions } from './worker_server.js';
import type { Endpoint } from './worker_protocol.js';

/** Serves WorkerDatabase connections from this worker (a dedicated Worker or a SharedWorker):
 *  opens each page's database here and runs its calls. `endpoint`: where connections arrive
 *  (default: this worker's global scope). */
export function serve(options: ServeOptions & { endpoint?: Endpoint } = {}): void {
  const engine = import('./index.browser.js').then((m) => m.Database);
  serveWith(engine, options.endpoint ?? (globalThis as unknown as Endpoint), options);
}

export { WorkerDatabase, WorkerStatement, WorkerRows } from './worker_client.js';
export type { WorkerTarget, WorkerTransaction } from './worker_client.js';
export type { ServeOptions } from './worker_server.js';
export type { Endpoint } from './worker_protocol.js';
// The error classes, for `instanceof` on the page (errors.js loads no engine).
export { OpticError, ParseError, ConstraintError, MisuseError, AbortError, StorageError } from './errors.js';
export type { LiveQuery, LiveState } from './live_query.js';
