// CommittedScanOp: a full scan of a table as it was when the current transaction began, the
// rows `committed.<table>` reads (sql-core.md §6; transition constraints and assertions compare
// the transaction's result with it).
//
// The snapshot is the table's current rows with the original value of every key the
// transaction wrote put back (Transaction::originals), built on open. Outside a transaction the
// undo log is empty and the scan equals a plain scan. Read-only by construction: DML refuses a
// `committed.` target before it gets here.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/operator.h"
#include "core/storage/transaction.h"

namespace optic {

// The schema qualifier that names the pre-transaction snapshot.
inline constexpr const char* kCommittedSchema = "committed";

// True when `name` is `committed.<t>` and no real schema is called `committed`.
inline bool isCommittedName(Catalog& catalog, const ast::QualifiedName& name) {
  return !name.schema.empty() && lowerName(name.schema) == kCommittedSchema && !catalog.findSchema(kCommittedSchema);
}

class CommittedScanOp final : public Operator {
 public:
  CommittedScanOp(std::shared_ptr<Table> table, const Transaction& txn) : table_(std::move(table)), txn_(txn) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { rows_.clear(); }
  PlanDescription describe() const override {
    return {"CommittedScan", "the rows as last committed",
            table_->schema().schemaName + "." + table_->schema().name};
  }

 private:
  std::shared_ptr<Table> table_;
  const Transaction& txn_;
  std::vector<std::string> rows_;  // encoded rows in primary-key order
  size_t pos_ = 0;
};

}  // namespace optic
