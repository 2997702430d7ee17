// The errors OpticDB throws. Every failure from the engine arrives as an OpticError (or a
// subclass) carrying the engine's `code` and message unchanged, and `line`/`column` (1-based)
// when the failure has a position in the SQL text. What a program branches on comes as data
// (mutationDiagnostic, tablesToLoad), never only in the message, which is written for people.

/** Why a write through a view was refused (views.md §2.8): a reason code of the spec's list
 *  (`no-inverse`, `unknown-view-column`, …), the view, the view column ('' when none) and the
 *  operation. */
export interface MutationDiagnostic {
  reason: string;
  view: string;
  column: string;
  operation: 'insert' | 'update' | 'delete';
}

export interface ErrorInfo {
  code: string;
  message: string;
  line: number;
  column: number;
  mutationDiagnostic?: MutationDiagnostic;
  tablesToLoad?: string[];
}

export class OpticError extends Error {
  readonly code: string;
  readonly line?: number;
  readonly column?: number;
  /** Set when a write through a view was refused. */
  mutationDiagnostic?: MutationDiagnostic;
  /** Code NOT_LOADED from the engine: the tables (`schema.table`, lower-case) the statement
   *  reached before they were loaded. */
  tablesToLoad?: string[];
  constructor(message: string, code = 'ERROR', line?: number, column?: number) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    if (line) this.line = line;
    if (column) this.column = column;
  }
}

/** The SQL text does not parse (code SYNTAX); line and column point at the offending token. */
export class ParseError extends OpticError {}
/** NOT NULL, UNIQUE, CHECK, FOREIGN KEY or an assertion refused a write (code CONSTRAINT). */
export class ConstraintError extends OpticError {}
/** The API was used wrongly: a finalized statement, a closed database, a busy statement. */
export class MisuseError extends OpticError {
  constructor(message: string, line?: number, column?: number) {
    super(message, 'MISUSE', line, column);
  }
}
/** An operation was cancelled through its AbortSignal (code ABORT). */
export class AbortError extends OpticError {
  constructor(message = 'The operation was aborted') {
    super(message, 'ABORT');
  }
}

/** Storage refused or lost a write (IndexedDB, the file store): code FULL when the storage quota
 *  is exceeded or the disk is full, IOERR otherwise. The statement that saw the lost commit fails
 *  with it; memory is back to what storage holds. `cause` is the underlying DOMException or Node
 *  error when there is one. Code BUSY: the file store's file is held by another open database. */
export class StorageError extends OpticError {
  constructor(message: string, code: 'FULL' | 'IOERR' | 'BUSY' = 'IOERR', options?: { cause?: unknown }) {
    super(message, code);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
  /** The error for a failed IndexedDB request or transaction. */
  static of(prefix: string, e: unknown): StorageError {
    const name = (e as { name?: string } | null)?.name;
    const message = (e as { message?: string } | null)?.message || name || 'unknown error';
    return new StorageError(`${prefix}: ${message}`, name === 'QuotaExceededError' ? 'FULL' : 'IOERR', { cause: e });
  }
}

/** The JS error for an engine failure. */
export function engineError(e: ErrorInfo): OpticError {
  const err = errorOfCode(e);
  if (e.mutationDiagnostic) err.mutationDiagnostic = e.mutationDiagnostic;
  if (e.tablesToLoad) err.tablesToLoad = e.tablesToLoad;
  return err;
}

function errorOfCode(e: ErrorInfo): OpticError {
  switch (e.code) {
    case 'SYNTAX': return new ParseError(e.message, e.code, e.line, e.column);
    case 'CONSTRAINT': return new ConstraintError(e.message, e.code, e.line, e.column);
    case 'MISUSE': return new MisuseError(e.message, e.line, e.column);
    default: return new OpticError(e.message, e.code, e.line, e.column);
  }
}
