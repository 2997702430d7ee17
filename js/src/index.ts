// The public API of the opticdb package (the entry points index.node / index.browser load the
// WebAssembly first, then re-export this).
export { Database } from './database.js';
export type {
  DatabaseOptions, LiveResult, Subscription, Transaction, WatchEvent, DataChangeEvent, SchemaChangeEvent, TransactionCommitEvent,
  ScalarFunctionOptions, AggregateFunctionOptions, Rehydration,
} from './database.js';
export { Statement } from './statement.js';
export { RowIterator } from './row_iterator.js';
export { LiveQuery } from './live_query.js';
export type { LiveState } from './live_query.js';
export type { BindParams, Row, RunOptions, RunResult } from './statement.js';
export { OpticError, ParseError, ConstraintError, MisuseError, AbortError, StorageError } from './errors.js';
export type { MutationDiagnostic } from './errors.js';
export {
  serializeChangeScope, deserializeChangeScope, unionScopes, intersectScopes, bindParameters, isEmpty, describesEverything,
} from './change_scope.js';
export type { ChangeScope, TableWatch, WatchScope, ScopeValue, NonDetSource, PortableScalarType } from './change_scope.js';
export type { SqlValue, JsonValue } from './wire.js';
