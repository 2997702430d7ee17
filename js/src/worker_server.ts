// The worker side of worker mode: each connection (a MessagePort handed over by
// WorkerDatabase.open) gets a session that runs the page's calls on a real Database in this worker
// and posts back results, row batches and events (worker_protocol.ts says how).
//
// Connections that open the same IndexedDB database through one serve() (several
// WorkerDatabase.open in one tab, or every tab of a SharedWorker) share one Database: one engine
// and one copy of the data; its commits are local to all of them (remote: false). Each session
// keeps its own subscriptions, statements, cursors and transactions, and closing one closes the
// Database only when it was the last. Other databases (memory, file) get one Database each.
import type { Database, DatabaseOptions, Transaction } from './database.js';
import type { RunOptions, Statement } from './statement.js';
import { asInterruptFlags, blobBuffers, CONNECT, INTERRUPT_COUNT, INTERRUPT_SLOTS, packRows, serializeError, type Endpoint,
         type InterruptFlags, type Request } from './worker_protocol.js';
import { MisuseError } from './errors.js';

export interface ServeOptions {
  /** Called once for each Database this worker opens, before the page uses it: register SQL
   *  functions (createScalarFunction…), set options. */
  setup?(db: Database): void | Promise<void>;
}

type DatabaseClass = typeof Database;
interface Shared {
  db: Promise<Database>;
  refs: number;
}
const ROLLBACK = Symbol('rollback');

/** @internal Serves connections arriving on `endpoint` with the Database class `engine` resolves
 *  to (the entry loads the engine; connections arriving meanwhile wait for it). */
export function serveWith(engine: Promise<DatabaseClass>, endpoint: Endpoint, options: ServeOptions = {}): void {
  const shared = new Map<string, Shared>();
  engine.catch(() => {});  // each connection is told why the engine did not load
  const listen = (source: Endpoint) => {
    source.addEventListener('message', (e: MessageEvent) => {
      const data = e.data as { opticdb?: string; port?: MessagePort } | null;
      if (data?.opticdb === CONNECT && data.port) void session(engine, data.port as unknown as Endpoint, shared, options);
    });
    source.start?.();
  };
  // A SharedWorker's scope: each tab connects through a port of its own.
  const scope = endpoint as unknown as { onconnect?: unknown; addEventListener(t: 'connect', f: (e: MessageEvent) => void): void };
  if (typeof SharedWorkerGlobalScope !== 'undefined' && endpoint instanceof SharedWorkerGlobalScope) {
    scope.addEventListener('connect', (e) => listen(e.ports[0] as unknown as Endpoint));
  } else {
    listen(endpoint);
  }
}
declare const SharedWorkerGlobalScope: { new(): object; prototype: object } | undefined;

async function session(engine: Promise<DatabaseClass>, port: Endpoint, shared: Map<string, Shared>,
                       options: ServeOptions): Promise<void> {
  let Database: DatabaseClass;
  try {
    Database = await engine;
  } catch (e) {
    // Every request of this connection fails with why the engine did not load.
    port.addEventListener('message', (m: MessageEvent) => {
      port.postMessage({ id: (m.data as Request).id, ok: false, error: serializeError(e) });
    });
    port.start?.();
    return;
  }
  let db: Database | null = null;
  let key: string | null = null;
  const stops = new Map<number, () => void>();           // live queries, watches, listeners
  const statements = new Map<number, Statement<any>>();
  const cursors = new Map<number, AsyncIterator<unknown>>();
  const txs = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<unknown> }>();
  const aborts = new Map<number, AbortController>();
  let next = 1;
  let flags: InterruptFlags | null = null;  // shared by the page (worker_protocol.ts)
  let interrupts = 0;                       // the page's interrupt() calls, when not shared

  // The options of a call `req` starts: its signal and timeout, and a poll that stops it once
  // the page interrupts after sending it, or aborts it through shared flags.
  const runOptions = (req: Request, signal: AbortSignal | undefined): RunOptions => {
    const before = req.interrupts ?? 0;
    const slot = req.id & (INTERRUPT_SLOTS - 1);
    const mark = req.id | 0;
    const shouldInterrupt = () => (flags ? Atomics.load(flags, INTERRUPT_COUNT) : interrupts) > before
      || (signal !== undefined && flags !== null && Atomics.load(flags, slot) === mark);
    return { signal, timeout: req.timeout, shouldInterrupt };
  };

  const post = (message: unknown, transfer: Transferable[] = []) => port.postMessage(message, transfer);
  const event = (sub: number, kind: 'result' | 'error', value: unknown) => {
    try {
      post({ sub, kind, value: kind === 'error' ? serializeError(value) : value });
    } catch (e) {
      post({ sub, kind: 'error', value: serializeError(e) });
    }
  };
  const opened = (): Database => {
    if (!db) throw new MisuseError('Database is closed');
    return db;
  };
  const target = (tx: number | undefined): Database | Transaction => {
    if (tx === undefined) return opened();
    const t = txs.get(tx);
    if (!t) throw new MisuseError('the transaction has ended');
    return t.tx;
  };
  const statement = (id: number): Statement<any> => {
    const st = statements.get(id);
    if (!st) throw new MisuseError('Statement is finalized');
    return st;
  };
  // A new cursor over `iterator`, answered with its first batch (one round trip for a small result).
  const cursor = async (iterator: AsyncIterator<unknown>, first: number) => {
    const id = next++;
    cursors.set(id, iterator);
    return { cursor: id, ...await pull(id, first) };
  };
  // Up to n rows of a cursor, and whether it is done (then forgotten).
  const pull = async (id: number, n: number) => {
    const it = cursors.get(id);
    if (!it) throw new MisuseError('the rows were closed');
    const rows: unknown[] = [];
    try {
      while (rows.length < n) {
        const r = await it.next();
        if (r.done) {
          cursors.delete(id);
          return { rows: packRows(rows), done: true, transfer: blobBuffers(rows) };
        }
        rows.push(r.value);
      }
    } catch (e) {
      cursors.delete(id);
      throw e;
    }
    return { rows: packRows(rows), done: false, transfer: blobBuffers(rows) };
  };
  let closing: Promise<void> | null = null;
  const closeSession = () => (closing ??= closeAll().finally(() => { closing = null; }));
  const closeAll = async () => {
    for (const stop of stops.values()) stop();
    stops.clear();
    for (const it of cursors.values()) void it.return?.();
    cursors.clear();
    for (const t of txs.values()) t.end(false);
    await Promise.all([...txs.values()].map((t) => t.done.catch(() => {})));
    for (const st of statements.values()) st.dispose();
    statements.clear();
    const mine = db;
    db = null;
    if (!mine) return;
    const entry = key ? shared.get(key) : null;
    if (entry && --entry.refs > 0) return;
    if (key) shared.delete(key);
    await mine.close();
  };

  const ops: Record<string, (req: Request, opts: RunOptions) => unknown> = {
    async open({ args: [o] }) {
      if (db) throw new MisuseError('this connection is open already');
      const dbOptions = (o ?? {}) as DatabaseOptions;
      key = dbOptions.storage === 'indexeddb' ? `indexeddb:${dbOptions.name ?? 'default'}` : null;
      let entry = key ? shared.get(key) : undefined;
      if (!entry) {
        const opening = Database.open(dbOptions).then(async (d) => {
          try {
            await options.setup?.(d);
          } catch (e) {
            await d.close();
            throw e;
          }
          return d;
        });
        entry = { db: opening, refs: 0 };
        if (key) {
          shared.set(key, entry);
          const k = key;
          opening.catch(() => { if (shared.get(k) === entry) shared.delete(k); });
        }
      }
      entry.refs++;
      try {
        db = await entry.db;
      } catch (e) {
        entry.refs--;
        key = null;
        throw e;
      }
      return { rehydration: db.rehydration, loadErrors: db.loadErrors, persistent: db.persistent };
    },
    exec: ({ args: [sql, params], tx }, opts) => target(tx).exec(sql as string, params as never, opts),
    run: ({ args: [sql, params], tx }, opts) => target(tx).run(sql as string, params as never, opts),
    get: ({ args: [sql, params], tx }, opts) => target(tx).get(sql as string, params as never, opts),
    all: async ({ args: [sql, params], tx }, opts) => {
      const rows = await target(tx).all(sql as string, params as never, opts);
      return { rows: packRows(rows), transfer: blobBuffers(rows) };
    },
    eval: ({ args: [sql, params, first], tx }, opts) =>
      cursor(target(tx).eval(sql as string, params as never, opts)[Symbol.asyncIterator](), first as number),
    pull: ({ args: [id, n] }) => pull(id as number, n as number),
    finish: async ({ args: [id] }) => {
      const it = cursors.get(id as number);
      cursors.delete(id as number);
      await it?.return?.();
    },
    prepare: ({ args: [sql], tx }) => {
      const id = next++;
      statements.set(id, target(tx).prepare(sql as string));
      return id;
    },
    statement: ({ args: [id, method, ...rest] }, opts) => {
      const st = statement(id as number);
      switch (method) {
        case 'run': return st.run(rest[0] as never, opts);
        case 'get': return st.get(rest[0] as never, opts);
        case 'all': return cursor(st.all(rest[0] as never, opts)[Symbol.asyncIterator](), rest[1] as number);
        case 'iterateRows': return cursor(st.iterateRows(rest[0] as never, opts)[Symbol.asyncIterator](), rest[1] as number);
        case 'getChangeScope': return st.getChangeScope(rest[0] as never);
        case 'getColumnNames': return st.getColumnNames();
        case 'getParameters': return st.getParameters();
        case 'isQuery': return st.isQuery();
        case 'bindAll': st.bindAll(rest[0] as never); return;
        case 'clearBindings': st.clearBindings(); return;
        case 'reset': return st.reset();
        case 'finalize':
          statements.delete(id as number);
          st.dispose();
          return;
        default: throw new MisuseError(`no such statement method: ${String(method)}`);
      }
    },
    async begin() {
      const d = opened();
      const id = next++;
      let end!: (commit: boolean) => void;
      const ended = new Promise<boolean>((resolve) => { end = resolve; });
      let open!: () => void;
      const isOpen = new Promise<void>((resolve) => { open = resolve; });
      const done = d.transaction(async (tx) => {
        txs.set(id, { tx, end, done });
        open();
        if (!(await ended)) throw ROLLBACK;
      });
      done.catch(() => {}).finally(() => txs.delete(id));
      await Promise.race([isOpen, done]);
      return id;
    },
    async end({ args: [id, commit] }) {
      const t = txs.get(id as number);
      if (!t) throw new MisuseError('the transaction has ended');
      t.end(commit as boolean);
      try {
        await t.done;
      } catch (e) {
        if (e !== ROLLBACK) throw e;
      }
    },
    autocommit: () => opened().getAutocommit(),
    live({ args: [sub, sql, params] }) {
      const s = sub as number;
      try {
        stops.set(s, opened().live(sql as string, params as never, (r) => event(s, 'result', r), (e) => event(s, 'error', e)));
      } catch (e) {
        event(s, 'error', e);
      }
    },
    watch({ args: [sub, scope] }) {
      const s = sub as number;
      const w = opened().watch(scope as never, (e) => event(s, 'result', e));
      stops.set(s, () => w.unsubscribe());
      return w.id;
    },
    listen({ args: [sub, kind] }) {
      const s = sub as number;
      const d = opened();
      const deliver = (e: unknown) => event(s, 'result', e);
      const stop = kind === 'data' ? d.onDataChange(deliver) : kind === 'schema' ? d.onSchemaChange(deliver)
        : kind === 'commit' ? d.onTransactionCommit(deliver) : null;
      if (!stop) throw new MisuseError(`no such event: ${String(kind)}`);
      stops.set(s, stop);
    },
    unsubscribe({ args: [sub] }) {
      stops.get(sub as number)?.();
      stops.delete(sub as number);
    },
    notifyExternalChange: ({ args: [table, schema] }) => opened().notifyExternalChange(table as string, schema as string | undefined),
    setOption: ({ args: [name, value] }) => opened().setOption(name as string, value as string),
    getOption: ({ args: [name] }) => opened().getOption(name as string),
    export: () => opened().export(),
    loadErrors: () => opened().loadErrors,
    close: () => closeSession(),
    abort({ args: [id] }) {
      aborts.get(id as number)?.abort();
    },
    interrupts({ args: [shared] }) {
      flags = asInterruptFlags(shared);
    },
    interrupt({ args: [count] }) {
      interrupts = Math.max(interrupts, count as number);
    },
  };

  // The page went away (a SharedWorker's tab closed, where browsers tell: MessagePort's close
  // event): its transactions roll back, its subscriptions and statements go.
  (port as unknown as EventTarget).addEventListener?.('close', () => { void closeSession().catch(() => {}); });
  port.addEventListener('message', (m: MessageEvent) => {
    const req = m.data as Request;
    let signal: AbortSignal | undefined;
    if (req.abortable) {
      const controller = new AbortController();
      aborts.set(req.id, controller);
      signal = controller.signal;
    }
    let result: unknown;
    try {
      const op = ops[req.op];
      if (!op) throw new MisuseError(`no such operation: ${req.op}`);
      result = op(req, runOptions(req, signal));  // called now: calls reach the Database in the order the page made them
    } catch (e) {
      result = Promise.reject(e);
    }
    Promise.resolve(result).then((value) => {
      aborts.delete(req.id);
      // Blobs move instead of being copied: rows say which (`transfer`), a row or bytes are checked here.
      let transfer: Transferable[] = [];
      if (value && typeof value === 'object' && Array.isArray((value as { transfer?: unknown }).transfer)) {
        ({ transfer } = value as { transfer: Transferable[] });
        delete (value as { transfer?: unknown }).transfer;
      } else if (value instanceof Uint8Array || (req.op === 'get' && value && typeof value === 'object')) {
        transfer = blobBuffers([value]);
      }
      post({ id: req.id, ok: true, value }, transfer);
      if (req.op === 'close') port.close?.();
    }, (e) => {
      aborts.delete(req.id);
      post({ id: req.id, ok: false, error: serializeError(e) });
    });
  });
  port.start?.();
}
