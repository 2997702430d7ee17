// The `opticdb/worker` entry in Node: the same API as in browsers (worker.ts); serve() uses the
// Node engine, so a worker_threads worker (or a MessageChannel in one thread, as the tests do) can
// serve WorkerDatabase connections.
import { serveWith, type ServeOptions } from './worker_server.js';
import type { Endpoint } from './worker_protocol.js';

/** Serves WorkerDatabase connections arriving on `options.endpoint`: in a worker_threads Worker,
 *  pass its `parentPort` (the page side is then `WorkerDatabase.open(worker)`). */
export function serve(options: ServeOptions & { endpoint?: Endpoint } = {}): void {
  const engine = import('./index.node.js').then((m) => m.Database);
  serveWith(engine, options.endpoint ?? (globalThis as unknown as Endpoint), options);
}

export { WorkerDatabase, WorkerStatement, WorkerRows } from './worker_client.js';
export type { WorkerTarget, WorkerTransaction } from './worker_client.js';
export type { ServeOptions } from './worker_server.js';
export type { Endpoint } from './worker_protocol.js';
// The error classes, for `instanceof` on the page (errors.js loads no engine).
export { OpticError, ParseError, ConstraintError, MisuseError, AbortError, StorageError } from './errors.js';
export type { LiveQuery, LiveState } from './live_query.js';
