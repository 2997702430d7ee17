// Context: what the layers below core/api (execution, planner, maintenance, ddl, persistence)
// may use of an open database: its catalog, functions, settings, transaction, declared schemas,
// run ids and random state, and the materialized-view maintenance hooks.
//
// Engine (core/api/engine.h) is a Context that adds statement and transaction control (begin,
// commit, savepoints, the persistence of commits). Lower layers take a Context& and so never
// include core/api: the include graph of core/ points only downward. The one upward call they
// need, into materialized-view maintenance (which sits above the planner and execution), goes
// through MaintenanceHooks, declared here and implemented by core/maintenance.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/catalog/declared_schema.h"
#include "core/execution/expression.h"
#include "core/execution/function_registry.h"
#include "core/execution/interrupt.h"
#include "core/storage/transaction.h"

namespace optic {

// Session settings, changed by pragmas.
struct Settings {
  std::string defaultModule = "memory";
  bool defaultNullable = false;           // pragma default_column_nullability
  Collation defaultCollation = Collation::kBinary;
  std::string defaultCollationSpelling = "BINARY";  // echoed by `pragma default_collation` as set
  bool foreignKeys = true;
  bool nondeterministicSchema = false;
  std::vector<std::string> schemaPath;    // pragma schema_path; empty = main
  bool strictDdlTransactions = false;     // pragma ddl_transaction_policy = 'strict'
  // Opening a persistent database (core/persistence): maintained tables are declared from their
  // stored entries, not filled; they are adopted or marked for refill (Table::needsRefill).
  bool restoringCatalog = false;
  // Boolean planner switches, keyed by lower-case pragma name; read and set by the pragma
  // statement. The reference engine's diagnostics (runtime_stats, validate_plan,
  // trace_plan_stack, runtime_fuse_scalars) are accepted and echoed. use_indexes = off makes
  // statements bound afterwards take the naive plan (full scans, explicit sorts:
  // planner/access_path.h): results never depend on any of them, only speed does.
  std::map<std::string, bool> plannerFlags = {{"runtime_stats", false},
                                              {"validate_plan", false},
                                              {"trace_plan_stack", false},
                                              {"runtime_fuse_scalars", true},
                                              {"use_indexes", true}};
};

// How much a failing statement undoes: the statement (ABORT, the default), nothing of the rows
// it already wrote (OR FAIL), or the whole transaction (OR ROLLBACK).
enum class FailureScope : uint8_t { kStatement, kKeepEarlierRows, kTransaction };

// The calls the planner, the write path and DDL make into materialized-view maintenance
// (core/maintenance/mv_maintenance.h implements them).
class MaintenanceHooks {
 public:
  virtual ~MaintenanceHooks() = default;
  // Before a statement reads maintained table `table`: its rows are brought up to date.
  virtual void requireCurrent(const std::shared_ptr<Table>& table) = 0;
  // The backing store whose keys are the same bytes as `source`'s (paired lookups), or null.
  virtual const KVStore* follower(const Table& source) = 0;
  // Refills maintained table `table` from its body (create, refresh, re-declaration).
  virtual void rebuild(Table& table, bool strict) = 0;
};

class Context {
 public:
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Catalog& catalog() { return catalog_; }
  const Catalog& catalog() const { return catalog_; }
  FunctionRegistry& functions() { return functions_; }
  const FunctionRegistry& functions() const { return functions_; }
  Settings& settings() { return settings_; }
  const Settings& settings() const { return settings_; }
  Transaction& txn() { return txn_; }
  // `declare schema` declarations (core/ddl/schema_diff.h applies them).
  DeclaredSchemas& declaredSchemas() { return declared_; }
  MaintenanceHooks& maintenance() { return *maintenance_; }
  // Stops the running statement from outside it or at its deadline (execution/interrupt.h).
  Interrupt& interrupt() { return interrupt_; }

  // The schemas unqualified names search, in order.
  std::vector<std::string> searchPath() const;
  bool inExplicitTransaction() const { return explicit_; }
  // A persistent database: its tables of module `store`, views and maintained tables outside
  // `temp` are stored, so their DDL must be storable text (checked as each DDL statement ends).
  bool persistent() const { return persistent_; }
  // Set by a statement whose conflict clause widens or narrows what its failure undoes.
  void setFailureScope(FailureScope s) { failureScope_ = s; }

  uint64_t* randomState() { return &random_; }
  uint64_t nextRunId() { return ++runId_; }
  std::string nextName(const std::string& base);

 protected:
  ~Context() = default;

  Catalog catalog_;
  DeclaredSchemas declared_;
  FunctionRegistry functions_;
  Settings settings_;
  Transaction txn_;
  MaintenanceHooks* maintenance_ = nullptr;  // owned by the Engine
  Interrupt interrupt_;
  bool explicit_ = false;
  bool persistent_ = false;
  FailureScope failureScope_ = FailureScope::kStatement;
  uint64_t random_ = 0x9E3779B97F4A7C15ull;
  uint64_t runId_ = 0;
};

// One row of work in a loop of the statement `state` runs (Interrupt::tick).
inline void tickRow(ExecState& state) {
  if (state.ctx) state.ctx->interrupt().tick();
}

}  // namespace optic
