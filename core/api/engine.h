// Engine: the state of one open database: catalog, functions, settings, the transaction.
//
// Transactions: outside an explicit BEGIN every statement runs in an implicit transaction that
// commits (deferred checks first) or rolls back when the statement ends. Inside BEGIN, each
// statement still rolls back alone on failure (a statement mark in the undo log), and COMMIT
// runs the deferred checks for the whole transaction.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/catalog/declared_schema.h"
#include "core/execution/function_registry.h"
#include "core/maintenance/change_events.h"
#include "core/parser/ast.h"
#include "core/storage/transaction.h"

namespace optic {

class StoreModule;                 // core/storage/store_module.h
class MaterializedViewMaintainer;  // core/maintenance/mv_maintenance.h
class WriteBatch;                  // core/storage/write_batch.h

struct Settings {
  std::string defaultModule = "memory";
  bool defaultNullable = false;           // pragma default_column_nullability
  Collation defaultCollation = Collation::kBinary;
  std::string defaultCollationSpelling = "BINARY";  // echoed by `pragma default_collation` as set
  bool foreignKeys = true;
  bool nondeterministicSchema = false;
  std::vector<std::string> schemaPath;    // pragma schema_path; empty = main
  bool strictDdlTransactions = false;     // pragma ddl_transaction_policy = 'strict'
  // Boolean diagnostics/optimizer switches of the reference engine (runtime_stats,
  // validate_plan, trace_plan_stack, runtime_fuse_scalars): accepted and echoed, results never
  // depend on them. Keyed by lower-case pragma name; read and set by the pragma statement in database.cpp.
  std::map<std::string, bool> plannerFlags = {{"runtime_stats", false},
                                              {"validate_plan", false},
                                              {"trace_plan_stack", false},
                                              {"runtime_fuse_scalars", true}};
};

// A deferred constraint check, run at COMMIT (FK child existence, CHECKs with subqueries).
struct DeferredCheck {
  std::string schema;
  std::string table;
  std::string constraint;  // FK or CHECK name
  Row row;                 // the row as written
  bool isCheck = false;    // a CHECK with a subquery (else a foreign key)
  std::optional<Row> oldRow;  // the CHECK's old.* (updates and deletes)
  bool deleted = false;       // recorded by a DELETE: `row` is the removed row
  Row context;                // the statement's mutation-context values (CHECKs reading them)
};

// How much a failing statement undoes: the statement (ABORT, the default), nothing of the rows
// it already wrote (OR FAIL), or the whole transaction (OR ROLLBACK).
enum class FailureScope : uint8_t { kStatement, kKeepEarlierRows, kTransaction };

struct Savepoint {
  std::string name;
  TransactionMark mark;
  size_t deferred = 0;
};

// Told about each successful commit (core/api/watch.h), after it is durable and with the
// transaction state already clean, so it may run statements of its own.
class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  // False when nothing would see the commit (no watch, no listener, nothing queued): the engine
  // then keeps the change log's buffers for the next transaction instead of handing them over.
  virtual bool observing() const = 0;
  // remote: the commit was made by another connection to the same storage (applyRemoteBatch).
  virtual void committed(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote) = 0;
};

class Engine {
 public:
  Engine();
  ~Engine();

  Catalog& catalog() { return catalog_; }
  const FunctionRegistry& functions() const { return functions_; }
  FunctionRegistry& functions() { return functions_; }
  Settings& settings() { return settings_; }
  const Settings& settings() const { return settings_; }
  Transaction& txn() { return txn_; }
  // `declare schema` declarations (core/execution/schema_diff.h applies them).
  DeclaredSchemas& declaredSchemas() { return declared_; }
  // Row-time maintenance of maintained tables from the change log.
  MaterializedViewMaintainer& materializedViews() { return *materializedViews_; }

  // The schemas unqualified names search, in order.
  std::vector<std::string> searchPath() const;

  // Statement boundaries (called by the api layer around every statement).
  void beginStatement();
  void endStatement(bool ok);
  bool inExplicitTransaction() const { return explicit_; }

  // Transaction control statements.
  void begin();
  void commit();
  void rollback();
  void savepoint(const std::string& name);
  void release(const std::string& name);
  void rollbackTo(const std::string& name);

  void addDeferred(DeferredCheck check) { deferred_.push_back(std::move(check)); }
  void setFailureScope(FailureScope s) { failureScope_ = s; }

  // A persistent database's store module: every commit's write batch goes through it
  // (engine_store.cpp); null for a memory database.
  void setStoreModule(std::shared_ptr<StoreModule> m) { store_ = std::move(m); }
  StoreModule* storeModule() const { return store_.get(); }

  // Under a sink that stores later (persistence.h): commits are numbered by the batch they sent
  // (1, 2, …) and keep their undo until acknowledged. acknowledgeStored(n): batches up to n
  // are stored. revertUnstored(): the later ones are lost; memory goes back to what storage
  // holds (an open transaction is rolled back first) and the database stays usable.
  uint64_t lastBatch() const { return batches_; }
  void acknowledgeStored(uint64_t through);
  void revertUnstored();

  // A batch another connection to the same storage stored (the IndexedDB bridge's cross-tab
  // path): applied to memory as a commit of its own that sends nothing to the sink (storage has
  // it already); the commit observer sees it with remote = true, and tables it re-declared come
  // with remote schema changes (StoreModule::applyRemoteBatch). Only when idle(); throws kMisuse
  // otherwise. Returns the catalog entries that did not load (as hydration reports them).
  std::vector<std::string> applyRemoteBatch(const WriteBatch& batch, uint64_t seq = 0);
  // No explicit transaction and no statement running: a remote batch may be applied.
  bool idle() const { return !explicit_ && openStatements_ == 0; }

  void setCommitObserver(CommitObserver* o) { observer_ = o; }
  // A DDL statement's announcement (§7): delivered at commit, undone with the statement.
  void noteSchemaChange(SchemaChangeEvent e);

  uint64_t* randomState() { return &random_; }
  uint64_t nextRunId() { return ++runId_; }
  std::string nextName(const std::string& base);

 private:
  void runDeferredChecks();
  void commitWork();
  bool persistCommit();  // engine_store.cpp: true when the sent batch awaits acknowledgement
  void deliverCommit(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote);

  Catalog catalog_;
  DeclaredSchemas declared_;
  FunctionRegistry functions_;
  Settings settings_;
  Transaction txn_;
  bool explicit_ = false;
  int openStatements_ = 0;  // between beginStatement and endStatement (nested ones count too)
  TransactionMark statementMark_;
  size_t statementDeferred_ = 0;
  std::vector<Savepoint> savepoints_;
  std::vector<DeferredCheck> deferred_;
  FailureScope failureScope_ = FailureScope::kStatement;
  uint64_t random_ = 0x9E3779B97F4A7C15ull;
  uint64_t runId_ = 0;
  std::shared_ptr<StoreModule> store_;
  struct UnstoredCommit {
    uint64_t batch;
    Transaction::UndoLog undo;
  };
  std::vector<UnstoredCommit> unstored_;  // oldest first
  uint64_t batches_ = 0;
  std::unique_ptr<MaterializedViewMaintainer> materializedViews_;
  CommitObserver* observer_ = nullptr;
  std::vector<SchemaChangeEvent> pendingSchema_;
};

}  // namespace optic
