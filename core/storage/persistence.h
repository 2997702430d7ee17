// PersistenceSink: where a persistent database's commits go.
//
// The engine runs synchronously over in-memory KV stores. At commit, the store module
// (store_module.h) turns the transaction's effect on store tables into one WriteBatch and
// calls write(); only when write() returns does the commit count as done. If write() throws,
// the engine rolls the in-memory state back to before the commit and rethrows, so memory and
// the durable copy never disagree. Rollbacks and savepoints never reach the sink.
//
// Opening reads the durable copy back as an ordered KVStore (its flat key space, see
// store_layout.h) and hydrates the catalog and the tables from it.
//
// Implementations: FileStore (file_store.h, native), the IndexedDB bridge (js/, through wasm/),
// and test sinks that record or fail. A sink that completes asynchronously (IndexedDB) says so
// (storesLater()): write() only queues the batch, and the engine keeps each such commit's undo
// until the embedder acknowledges the batch stored (Engine::acknowledgeStored) or reports it
// lost (Engine::revertUnstored, which puts memory back to what storage holds).
#pragma once

#include <cstdint>

#include "core/storage/write_batch.h"

namespace optic {

// kStrict: a commit returns once its batch is on stable storage (fsync, IndexedDB 'strict').
// kRelaxed: once the storage layer has it (page cache, IndexedDB 'relaxed'): a process crash
// loses nothing, a power loss may lose the latest commits (never part of one).
enum class Durability : uint8_t { kStrict, kRelaxed };

class PersistenceSink {
 public:
  virtual ~PersistenceSink() = default;
  // All or nothing: on return the batch is stored (durably, when the sink promises it); on an
  // exception (optic::Error) none of it is.
  virtual void write(const WriteBatch& batch) = 0;
  // True when write() returns before the batch is stored (see above).
  virtual bool storesLater() const { return false; }
};

}  // namespace optic
