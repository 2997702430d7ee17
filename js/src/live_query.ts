// LiveQuery: a live query as an observable value (db.liveQuery). Rows are objects, as get/all
// return them; the query runs while something subscribes (the first subscriber starts it, the last
// one to leave stops it). `subscribe` follows the Svelte store contract (the subscriber is called
// at once with the current state, then after each change; it returns the unsubscribe function),
// and `getSnapshot` returns the same object until the state changes, as React's
// useSyncExternalStore requires (opticdb/react useLiveQuery is built on it).
import type { LiveResult } from './database.js';
import { OpticError } from './errors.js';
import type { BindParams, Row } from './statement.js';
import type { SqlValue } from './wire.js';

export interface LiveState<T = Row> {
  /** The result's rows as objects keyed by column name (repeated names as `name:1`, …). */
  rows: T[];
  /** The last delivery, with its diff (added, removed, changed); null before the first. */
  result: LiveResult | null;
  /** Set when the query could not be prepared or run. */
  error: OpticError | null;
}

/** What a LiveQuery needs of its database: Database.live (returns the stop function). */
export type StartLive = (onResult: (r: LiveResult) => void, onError: (e: unknown) => void) => () => void;

const initial: LiveState<never> = Object.freeze({ rows: [], result: null, error: null }) as LiveState<never>;

export class LiveQuery<T = Row> {
  #start: StartLive;
  #state: LiveState<T> = initial;
  #subscribers = new Set<(state: LiveState<T>) => void>();
  #stop: (() => void) | null = null;

  /** @internal Use Database.liveQuery. */
  constructor(start: StartLive) {
    this.#start = start;
  }

  /** The current state; the same object until it changes. */
  getSnapshot = (): LiveState<T> => this.#state;

  /** Calls `run` now with the current state and after each change; returns the unsubscribe
   *  function. The query runs while at least one subscriber is left. */
  subscribe = (run: (state: LiveState<T>) => void): (() => void) => {
    if (this.#subscribers.size === 0) this.#open();  // may deliver the first result at once
    this.#subscribers.add(run);
    run(this.#state);
    return () => {
      if (!this.#subscribers.delete(run) || this.#subscribers.size) return;
      this.#stop?.();
      this.#stop = null;
    };
  };

  #open(): void {
    const failed = (e: unknown) => this.#set({ rows: [], result: null, error: e instanceof OpticError ? e : new OpticError(String(e), 'ERROR') });
    try {
      this.#stop = this.#start((result) => this.#set({ rows: rowObjects<T>(result), result, error: null }), failed);
    } catch (e) {
      failed(e);
    }
  }

  #set(state: LiveState<T>): void {
    this.#state = state;
    for (const run of [...this.#subscribers]) run(state);
  }
}

/** A live result's rows as objects, keyed as Statement rows are. */
export function rowObjects<T = Row>(r: LiveResult): T[] {
  const seen = new Map<string, number>();
  const keys = r.columns.map((n) => {
    const k = seen.get(n) ?? 0;
    seen.set(n, k + 1);
    return k === 0 ? n : `${n}:${k}`;
  });
  return r.rows.map((row) => {
    const o: Record<string, SqlValue> = {};
    for (let i = 0; i < keys.length; i++) o[keys[i]] = row[i];
    return o as T;
  });
}

/** Parameters by position for slots named `names` (null: positional): an array as it is; an
 *  object by name (bare, or with `:`/`$`/`@`) or by numeric-string position. */
export function positionalParams(params: BindParams, names: (string | null)[]): SqlValue[] {
  if (Array.isArray(params)) return params as SqlValue[];
  const byName = params as Readonly<Record<string, SqlValue>>;
  return names.map((name, i) => {
    for (const key of name === null ? [String(i + 1)] : [name, `:${name}`, `$${name}`, `@${name}`, String(i + 1)]) {
      if (Object.prototype.hasOwnProperty.call(byName, key)) return byName[key];
    }
    return null;
  });
}
