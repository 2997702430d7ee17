// DML: INSERT, UPDATE and DELETE, bound once and executed per step.
//
// Every row goes through the same write path (RowWriter in dml.cpp): supplied values, DEFAULTs,
// conversion to the declared types, generated columns, NOT NULL, CHECK, primary-key and UNIQUE
// conflicts with their conflict actions, foreign keys (child existence deferred to COMMIT,
// parent-side actions immediate), then the TableStore write that logs the change. RETURNING
// rows are the stored (converted) rows.
#pragma once

#include <memory>
#include <vector>

#include "core/execution/expression.h"
#include "core/parser/ast.h"
#include "core/planner/binder.h"

namespace optic {

class DmlPlan {
 public:
  virtual ~DmlPlan() = default;
  // Runs the statement; returns the RETURNING rows (empty without RETURNING).
  virtual std::vector<Row> execute(ExecState& state) = 0;
  const std::vector<OutputColumn>& returningColumns() const { return returning_; }
  bool hasReturning() const { return hasReturning_; }

 protected:
  std::vector<OutputColumn> returning_;
  bool hasReturning_ = false;
};

// When an INSERT's DEFAULTs (and generated columns) are evaluated: per row, each seeing the rows
// the statement already wrote (a plain insert), or all before any write, against the
// pre-statement state (the key-minting anchor of a join-view insert: `max(rid) + ordinal`
// allocators then agree across rows, views.md §2.5).
enum class DefaultTiming : uint8_t { kPerRow, kBeforeAnyWrite };

std::unique_ptr<DmlPlan> bindInsert(Binder& binder, const ast::Insert& insert,
                                    DefaultTiming timing = DefaultTiming::kPerRow);
std::unique_ptr<DmlPlan> bindUpdate(Binder& binder, const ast::Update& update);
std::unique_ptr<DmlPlan> bindDelete(Binder& binder, const ast::Delete& del);

// Deferred foreign-key child check for one row (run at COMMIT): throws when the parent is missing.
void checkForeignKeyParent(Context& ctx, const TableSchema& child, const ForeignKey& fk, const Row& row);

// Deferred CHECK (one with a subquery) for one written row, run at COMMIT: throws when false.
// `mutationContext`: the writing statement's context values (mutation_context.h), captured then.
void checkDeferredCheck(const TableSchema& table, const CheckConstraint& ck, const Row& row, const Row* oldRow,
                        const Row& mutationContext, ExecState& state);

}  // namespace optic
