// useLiveQuery: a React hook over Database.liveQuery (entry point `opticdb/react`; React is an
// optional peer dependency), built on useSyncExternalStore, so every component reading the same
// query sees the same rows in one render, with no tearing under concurrent rendering. The
// component re-renders only when a commit changes the query's result; unmounting (or changing
// sql/params) unsubscribes.
import { useMemo, useSyncExternalStore } from 'react';
import type { LiveQuery, LiveState } from './live_query.js';
import type { BindParams, Row } from './statement.js';

export type LiveQueryState<T = Row> = LiveState<T>;

/** What useLiveQuery needs of a database: a Database, or a WorkerDatabase (opticdb/worker). */
export interface LiveQuerySource {
  liveQuery<T = Row>(sql: string, params?: BindParams): LiveQuery<T>;
}

export function useLiveQuery<T = Row>(db: LiveQuerySource, sql: string, params: BindParams = []): LiveQueryState<T> {
  const paramKey = JSON.stringify(params, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  // params are compared by value (paramKey), not identity
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const query = useMemo(() => db.liveQuery<T>(sql, params), [db, sql, paramKey]);
  return useSyncExternalStore(query.subscribe, query.getSnapshot, query.getSnapshot);
}
