// Engine: statement and transaction boundaries, deferred checks (engine.h).
#include "core/api/engine.h"

#include <set>
#include <utility>

#include "core/catalog/assertion.h"
#include "core/common/error.h"
#include "core/ddl/assertion_statements.h"
#include "core/ddl/introspection.h"
#include "core/ddl/query_plan.h"
#include "core/execution/dml.h"
#include "core/maintenance/commit_checks.h"
#include "core/maintenance/mv_maintenance.h"

namespace optic {

Engine::Engine() : materializedViews_(std::make_unique<MaterializedViewMaintainer>(*this)) {
  maintenance_ = materializedViews_.get();
  registerBuiltinFunctions(functions_);
  registerCatalogFunctions(functions_);
  registerQueryPlanFunction(functions_);
  registerAssertionFunctions(functions_);
}

Engine::~Engine() = default;

void Engine::beginStatement() {
  if (openStatements_ == 0) interrupt_.clearRequest();
  ++openStatements_;
  statementMark_ = txn_.mark();
  failureScope_ = FailureScope::kStatement;
  // Maintained tables restored without trust are refilled before anything reads them.
  if (openStatements_ == 1 && store_) materializedViews_->refillPending();
  materializedViews_->beginStatement();
}

void Engine::endStatement(bool ok) {
  --openStatements_;
  if (ok) {
    if (!explicit_) {
      try {
        runDeferredChecks();
      } catch (...) {
        abandonTransaction(Undo::kRollback);
        throw;
      }
      commitWork();
    }
    return;
  }
  switch (failureScope_) {
    case FailureScope::kStatement:
      txn_.rollbackTo(statementMark_);
      break;
    case FailureScope::kKeepEarlierRows:
      // The rows the statement kept are the source's now: maintained tables follow them.
      materializedViews_->maintain();
      break;
    case FailureScope::kTransaction:
      abandonTransaction(Undo::kRollback);
      return;
  }
  if (!explicit_) {
    // Autocommit: what the failing statement kept (OR FAIL) commits, after its checks.
    try {
      runDeferredChecks();
    } catch (...) {
      abandonTransaction(Undo::kRollback);
      return;
    }
    commitWork();
  }
}

void Engine::commitWork() {
  bool awaitsStorage = persistCommit();
  std::vector<RowChange> changes;
  std::vector<SchemaChangeEvent> schema;
  bool observed = observer_ && observer_->observing();
  if (observed) {
    changes = txn_.takeChanges();
    schema.swap(pendingSchema_);
  }
  pendingSchema_.clear();
  if (awaitsStorage) unstored_.push_back(UnstoredCommit{++batches_, txn_.takeUndo()});
  else txn_.clear();
  savepoints_.clear();
  if (observed) deliverCommit(std::move(changes), std::move(schema), false);
  // No catalog version bump here: prepared plans re-bind only when DDL (or its undo) changed it.
}

void Engine::deliverCommit(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote) {
  if (observer_ && (!changes.empty() || !schema.empty())) observer_->committed(std::move(changes), std::move(schema), remote);
}

void Engine::noteSchemaChange(SchemaChangeEvent e) {
  pendingSchema_.push_back(std::move(e));
  txn_.recordUndo([this] {
    if (!pendingSchema_.empty()) pendingSchema_.pop_back();
  });
}

void Engine::runDeferredChecks() {
  std::set<std::pair<std::string, std::string>> lensKeysChecked;  // once per logical table
  for (const DeferredCheck& d : txn_.deferred()) {
    if (d.lensKeys) {
      if (lensKeysChecked.insert({d.schema, lowerName(d.table)}).second) checkLensKeys(*this, d.schema, d.table);
      continue;
    }
    std::shared_ptr<Table> t = catalog_.findTable(d.schema, d.table);
    if (!t) continue;
    const TableSchema& ts = t->schema();
    if (d.isCheck) {
      for (const CheckConstraint& ck : ts.checks) {
        if (ck.name == d.constraint) runDeferredRowCheck(*this, d, ts, ck);
      }
      continue;
    }
    if (!settings_.foreignKeys) continue;
    // The row must still exist as written; a later update or delete supersedes the check.
    for (const ForeignKey& fk : ts.foreignKeys) {
      if (fk.name != d.constraint) continue;
      checkForeignKeyParent(*this, ts, fk, d.row);
    }
  }
  if (!txn_.changes().empty()) checkAssertions(*this);
}

void Engine::begin() {
  if (explicit_) fail("Cannot begin transaction: already in a transaction");
  explicit_ = true;
}

void Engine::commit() {
  if (!explicit_) return;  // COMMIT outside a transaction is a no-op, as in the reference
  try {
    runDeferredChecks();
  } catch (...) {
    abandonTransaction(Undo::kRollback);
    throw;
  }
  explicit_ = false;
  commitWork();
}

void Engine::rollback() { abandonTransaction(Undo::kRollback); }

void Engine::abandonTransaction(Undo how) {
  if (how == Undo::kRollback) txn_.rollbackAll();
  else txn_.abandon();
  savepoints_.clear();
  pendingSchema_.clear();
  explicit_ = false;
}

void Engine::savepoint(const std::string& name) {
  if (!explicit_) explicit_ = true;  // a savepoint outside BEGIN opens a transaction
  savepoints_.push_back(Savepoint{name, txn_.mark()});
}

void Engine::release(const std::string& name) {
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (lowerName(savepoints_[i].name) == lowerName(name)) {
      savepoints_.resize(i);
      return;
    }
  }
  fail("No such savepoint: " + name);
}

void Engine::rollbackTo(const std::string& name) {
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (lowerName(savepoints_[i].name) == lowerName(name)) {
      txn_.rollbackTo(savepoints_[i].mark);
      savepoints_.resize(i + 1);
      return;
    }
  }
  fail("No such savepoint: " + name);
}

}  // namespace optic
