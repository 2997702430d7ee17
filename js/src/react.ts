// useLiveQuery: a React hook over Database.live (entry point `opticdb/react`; React is an
// optional peer dependency). The component re-renders only when a commit changes the query's
// result, with the new rows; unmounting (or changing sql/params) unsubscribes.
import { useEffect, useState } from 'react';
import type { Database, LiveResult } from './database.js';
import type { OpticError } from './errors.js';
import type { SqlValue } from './wire.js';

export interface LiveQueryState {
  /** Rows as objects keyed by column name (repeated names as `name:1`, …). */
  rows: Record<string, SqlValue>[];
  /** The last delivery, with its diff (added, removed, changed); null before the first. */
  result: LiveResult | null;
  /** Set when the query could not be prepared or run. */
  error: OpticError | null;
}

const empty: LiveQueryState = { rows: [], result: null, error: null };

export function useLiveQuery(db: Database, sql: string, params: readonly SqlValue[] = []): LiveQueryState {
  const [state, setState] = useState<LiveQueryState>(empty);
  const paramKey = JSON.stringify(params, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  useEffect(() => {
    let stop: (() => void) | null = null;
    try {
      stop = db.live(sql, params, (result) => setState({ rows: objects(result), result, error: null }));
    } catch (e) {
      setState({ ...empty, error: e as OpticError });
    }
    return () => stop?.();
    // params are compared by value (paramKey), not identity
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [db, sql, paramKey]);
  return state;
}

function objects(r: LiveResult): Record<string, SqlValue>[] {
  const seen = new Map<string, number>();
  const keys = r.columns.map((n) => {
    const k = seen.get(n) ?? 0;
    seen.set(n, k + 1);
    return k === 0 ? n : `${n}:${k}`;
  });
  return r.rows.map((row) => Object.fromEntries(keys.map((k, i) => [k, row[i]])));
}
