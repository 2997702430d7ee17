// The file store (Node): a database's durable copy in one file, in the format of the native
// FileStore (core/storage/file_store.h), so the native CLI (`opticdb app.odb`) and Node open each
// other's files. Loaded by the Node entry only (index.node.ts): the browser build never sees
// node:fs.
//
// File layout (file_format.ts): the 8-byte magic "OPTICDB1", then records, each
//   u32 length (LE) | u32 CRC-32 of the payload | payload = WriteBatch rep (varint lengths)
// One commit is one record. Opening replays the records in order into an in-memory image and
// stops at the first one that is truncated, fails its checksum or does not decode (validated
// whole before any of it is applied, so a record is never half-applied); the file is truncated
// there (that tail was never acknowledged, or is corrupt). The engine opens on the whole image:
// every table is loaded at open, nothing is read later.
//
// Commits: the engine hands each commit's batch over synchronously (write), as WriteBatch::rep(),
// which is already a record's payload; it is appended as one record with fs.writeSync at the
// known end of the log, and in strict durability fs.fdatasyncSync'd before write returns
// (relaxed: once, on close; a process crash loses nothing, a power loss may lose the latest
// commits, never part of one). So a statement's commit is on disk when its engine call returns,
// and settled() has nothing to wait for. Telling the engine (acknowledgeStored) waits until that
// call has returned (afterCall), since the engine may not be re-entered inside a commit. A
// failed append is taken back off the file (truncated to the last whole record); that batch and
// every later one until the engine call returns are lost: afterCall reports the loss
// (revertUnstored: the database reverts memory to what the file holds, as on a failed IndexedDB
// transaction) and throws the StorageError, so the call that committed fails.
//
// Compaction, as the native store: when the log passes compactMinBytes (4 MiB) and twice the
// live bytes (keys + values of the image), the image is written as one snapshot record to
// "<path>.compact", synced, renamed over the log and the directory synced, so a crash leaves the
// old log or the new one whole; opening removes a leftover .compact. A failed compaction leaves
// the log as it was (the commit is already durable in it).
//
// One process at a time: a lock file "<path>.lock", created with the 'wx' flag (fails if it
// exists) and holding the owner's pid, removed on close. A lock whose pid is not a live process
// (a crashed owner) or that is empty (an owner that died between creating and writing it) is
// taken over. A second open in the same process is refused as well (the lock holds our own pid).
// The native CLI locks with flock() instead and does not see this file, nor Node its flock: do not
// open one file from the native CLI and from Node at the same time.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { StorageError } from './errors.js';
import type { PersistentStore, StoreOwner } from './persistent_store.js';
import { putsRep } from './write_batch.js';
import { Image, MAGIC, frame, hasMagic } from './file_format.js';

export interface FileStoreOptions {
  durability: 'strict' | 'relaxed';
  /** Compact when the log exceeds this many bytes and twice the live bytes (default 4 MiB). */
  compactMinBytes?: number;
}

const COMPACT_MIN_BYTES = 4 << 20;
const COMPACT_RATIO = 2;

export class FileStore implements PersistentStore {
  readonly path: string;
  #fd: number;
  #lock: FileLock;
  #durability: 'strict' | 'relaxed';
  #compactMinBytes: number;
  #image = new Image();
  #logBytes = 0;            // the file's length: the end of its last whole record
  #next = 1;                // the number the engine gives its next batch
  #storedThrough = 0;       // every batch up to here is in the file
  #acknowledged = 0;        // … and the engine was told so
  #loss: StorageError | null = null;  // a failed append not yet reported (afterCall)
  #lostFrom = 0;
  #closed = false;
  /** Bytes of a torn or corrupt tail dropped when the file was opened. */
  readonly droppedBytes: number;
  #owner: StoreOwner | null = null;

  private constructor(path: string, fd: number, lock: FileLock, options: FileStoreOptions) {
    this.path = path;
    this.#fd = fd;
    this.#lock = lock;
    this.#durability = options.durability;
    this.#compactMinBytes = options.compactMinBytes ?? COMPACT_MIN_BYTES;
    this.droppedBytes = this.#load();
  }

  /** Opens or creates the file at `path`, replaying its log. */
  static async open(path: string, options: FileStoreOptions): Promise<FileStore> {
    const lock = FileLock.acquire(path);
    let fd = -1;
    try {
      removeIfPresent(`${path}.compact`);  // an interrupted compaction: the log is still whole
      fd = ioStep('open', path, () => fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644));
      const store = new FileStore(path, fd, lock, options);
      store.#maybeCompact();
      return store;
    } catch (e) {
      if (fd >= 0) fs.closeSync(fd);
      lock.release();
      throw e;
    }
  }

  /** The image, as the batch of puts the engine opens on. */
  contents(): Uint8Array {
    return putsRep(this.#image.entries());
  }
  async storedEntries(): Promise<[Uint8Array, Uint8Array][]> {
    return this.#image.sorted();
  }
  get logBytes(): number {
    return this.#logBytes;
  }

  /** The database this file stores for: told acknowledgeStored and revertUnstored by afterCall.
   *  (Never fail: a file does not go away under an open descriptor; failures are per write.) */
  attach(owner: StoreOwner): void {
    this.#owner = owner;
  }

  /** A commit's batch (from the engine, synchronously inside the commit): appended now. */
  write(batch: Uint8Array): void {
    const n = this.#next++;
    if (this.#loss) return;  // lost with the failed one before it (reported by afterCall)
    if (this.#closed) {
      this.#loss = new StorageError(`cannot write ${this.path}: the database is being closed`);
      this.#lostFrom = n;
      return;
    }
    if (batch.length) {
      try {
        this.#append(batch);
      } catch (e) {
        this.#loss = e as StorageError;
        this.#lostFrom = n;
        return;
      }
      this.#image.apply(batch);
    }
    this.#storedThrough = n;
    this.#maybeCompact();
  }

  /** After each engine call: tells the engine which batches are stored; on a failed append,
   *  reports the loss (memory reverts) and throws it. */
  afterCall(): void {
    if (this.#storedThrough > this.#acknowledged) {
      this.#acknowledged = this.#storedThrough;
      this.#owner?.acknowledgeStored(this.#acknowledged);
    }
    const loss = this.#loss;
    if (!loss) return;
    this.#loss = null;
    const err = new StorageError(`${loss.message}; commits ${this.#lostFrom}..${this.#next - 1} were rolled back`,
                                 loss.code === 'FULL' ? 'FULL' : 'IOERR', { cause: loss });
    this.#owner?.revertUnstored();
    throw err;
  }

  /** Every commit is on disk when its call returns: nothing to wait for. */
  settled(): Promise<void> {
    return Promise.resolve();
  }

  /** Syncs (relaxed durability), closes the file and releases the lock. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#durability === 'relaxed') ioStep('sync', this.path, () => fs.fdatasyncSync(this.#fd));
    } finally {
      fs.closeSync(this.#fd);
      this.#lock.release();
    }
  }

  // Replays the file into the image; truncates a torn or corrupt tail. Returns the bytes dropped.
  #load(): number {
    const data = ioStep('read', this.path, () => fs.readFileSync(this.path));
    if (data.length < MAGIC.length && hasMagic(data, true)) {
      this.#initialise();  // new, or created but never completed
      return 0;
    }
    if (!hasMagic(data)) throw new StorageError(`cannot open ${this.path}: not an OpticDB database file`);
    const good = Image.replay(data, this.#image);
    this.#logBytes = good;
    const dropped = data.length - good;
    if (dropped > 0) {
      ioStep('truncate', this.path, () => {
        fs.ftruncateSync(this.#fd, good);
        fs.fdatasyncSync(this.#fd);
      });
    }
    return dropped;
  }

  #initialise(): void {
    ioStep('initialise', this.path, () => {
      fs.ftruncateSync(this.#fd, 0);
      writeAll(this.#fd, MAGIC, 0);
      fs.fdatasyncSync(this.#fd);
    });
    syncDirectory(this.path);
    this.#logBytes = MAGIC.length;
  }

  // Appends one record at the end of the log (synced in strict mode); on failure takes the
  // partial record back off, so the log stays a sequence of whole records, and throws.
  #append(rep: Uint8Array): void {
    const record = frame(rep);
    try {
      writeAll(this.#fd, record, this.#logBytes);
      if (this.#durability === 'strict') fs.fdatasyncSync(this.#fd);
    } catch (e) {
      try {
        fs.ftruncateSync(this.#fd, this.#logBytes);
      } catch {
        // Replay drops a torn tail anyway; the next append writes over it at #logBytes.
      }
      throw ioError('write', this.path, e);
    }
    this.#logBytes += record.length;
  }

  #maybeCompact(): void {
    if (this.#logBytes <= this.#compactMinBytes || this.#logBytes <= COMPACT_RATIO * this.#image.liveBytes) return;
    try {
      this.#compact();
    } catch (e) {
      // Every commit is durable in the log; compaction can wait for the next chance.
      console.warn(`opticdb: compaction of ${this.path} failed (the log is intact):`, e);
    }
  }

  // Rewrites the log as one snapshot record of the image: "<path>.compact", synced, renamed over
  // the log, directory synced.
  #compact(): void {
    const tmp = `${this.path}.compact`;
    const rep = putsRep(this.#image.sorted());
    const fd = ioStep('create', tmp, () => fs.openSync(tmp, 'w+', 0o644));
    let size = MAGIC.length;
    try {
      writeAll(fd, MAGIC, 0);
      if (rep.length) size += writeAll(fd, frame(rep), MAGIC.length);
      fs.fdatasyncSync(fd);
      fs.renameSync(tmp, this.path);
    } catch (e) {
      fs.closeSync(fd);
      removeIfPresent(tmp);
      throw ioError('compact', this.path, e);
    }
    syncDirectory(this.path);
    fs.closeSync(this.#fd);
    this.#fd = fd;
    this.#logBytes = size;
  }
}

// Writes all of `data` at `position` (writeSync may write less than asked); returns its length.
function writeAll(fd: number, data: Uint8Array, position: number): number {
  for (let done = 0; done < data.length;) {
    done += fs.writeSync(fd, data, done, data.length - done, position + done);
  }
  return data.length;
}

// Syncs the directory holding `path`, so a created or renamed entry survives a power loss
// (best effort, as natively: some platforms cannot open a directory).
function syncDirectory(path: string): void {
  try {
    const fd = fs.openSync(nodePath.dirname(nodePath.resolve(path)), 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // best effort
  }
}

function removeIfPresent(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('remove', path, e);
  }
}

function ioError(what: string, path: string, e: unknown): StorageError {
  const code = (e as NodeJS.ErrnoException).code;
  const message = (e as Error).message ?? String(e);
  return new StorageError(`cannot ${what} ${path}: ${message}`, code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' ? 'FULL' : 'IOERR', { cause: e });
}

// Runs one I/O step, turning its failure into a StorageError that names the step and the file.
function ioStep<T>(what: string, path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof StorageError ? e : ioError(what, path, e);
  }
}

// The lock file "<path>.lock" (see the header): created with 'wx', holding the owner's pid.
class FileLock {
  #path: string;
  #released = false;
  private constructor(path: string) {
    this.#path = path;
  }

  static acquire(dbPath: string): FileLock {
    const path = `${dbPath}.lock`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = fs.openSync(path, 'wx', 0o644);
        try {
          fs.writeSync(fd, String(process.pid));
        } finally {
          fs.closeSync(fd);
        }
        return new FileLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('lock', dbPath, e);
      }
      const owner = lockOwner(path);
      if (owner !== null && isAlive(owner)) {
        const who = owner === process.pid ? 'another Database of this process' : `process ${owner}`;
        throw new StorageError(`cannot open ${dbPath}: it is in use by ${who} (lock file ${path}); close that first`, 'BUSY');
      }
      removeIfPresent(path);  // a dead owner's lock: take it over
    }
    throw new StorageError(`cannot lock ${dbPath}: ${path} keeps reappearing`);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    removeIfPresent(this.#path);
  }
}

// The pid in a lock file; null when it is empty or unreadable (its owner died writing it, or
// just removed it).
function lockOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(path, 'latin1'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';  // alive, someone else's
  }
}
