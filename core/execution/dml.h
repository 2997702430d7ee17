// DML execution: the write path of INSERT, UPDATE and DELETE and the three executors driving it.
//
// Every row goes through the same write path (RowWriter in dml.cpp): supplied values, DEFAULTs,
// conversion to the declared types, generated columns, NOT NULL, CHECK, primary-key and UNIQUE
// conflicts with their conflict actions, foreign keys (child existence deferred to COMMIT,
// parent-side actions immediate), then the TableStore write that logs the change. RETURNING
// rows are the stored (converted) rows.
//
// Invariant: execution never binds. The planner (core/planner/dml_binder.h) binds a statement
// into one of the Bound* structs below, once, before its plan exists; the executors only evaluate
// what they are given. Nothing of another table needs binding while a statement runs: parent-side
// FK actions write the child rows as they are (no DEFAULT, generated column or CHECK of the child
// runs; SET DEFAULT takes a literal DEFAULT only), and a deferred CHECK, which runs at COMMIT, is
// bound by its caller then (checkDeferredCheck).
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/expression.h"
#include "core/execution/mutation_context.h"
#include "core/execution/operator.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

class DmlPlan {
 public:
  virtual ~DmlPlan() = default;
  // Runs the statement; returns the RETURNING rows (empty without RETURNING).
  virtual std::vector<Row> execute(ExecState& state) = 0;
  const std::vector<OutputColumn>& returningColumns() const { return returning_; }
  bool hasReturning() const { return hasReturning_; }
  // The rows the last execute() inserted, updated (an upsert's DO UPDATE included) or deleted in
  // the statement's target; rows skipped (OR IGNORE, DO NOTHING, a failed WHERE) and the writes
  // they cause elsewhere (foreign-key actions, materialized-view maintenance) do not count. A
  // write through a view counts the view's rows (view_mutation.h).
  size_t changes() const { return changes_; }
  // Introspection: the plan that yields the rows the statement writes (an INSERT's source, an
  // UPDATE's or DELETE's target rows); null when there is none to show.
  virtual const Operator* readPlan() const { return nullptr; }

 protected:
  std::vector<OutputColumn> returning_;
  bool hasReturning_ = false;
  size_t changes_ = 0;
};

// When an INSERT's DEFAULTs (and generated columns) are evaluated: per row, each seeing the rows
// the statement already wrote (a plain insert), or all before any write, against the
// pre-statement state (the key-minting anchor of a join-view insert: `max(rid) + ordinal`
// allocators then agree across rows, views.md §2.5).
enum class DefaultTiming : uint8_t { kPerRow, kBeforeAnyWrite };

// The evaluation row of an expression over one row of a table: new ‖ new ‖ old, old all NULL
// when there is none (the layout of rowScope, core/planner/row_scope.h). A DEFAULT or CHECK
// reads the statement's mutation-context values after it (contextRuleScope).
// assignRowContext fills `out` in place (a loop over many rows reuses one buffer).
inline void assignRowContext(Row& out, const Row& newRow, const Row* oldRow) {
  size_t n = newRow.size();
  out.resize(n * 3);
  for (size_t i = 0; i < n; ++i) {
    out[i] = newRow[i];
    out[n + i] = newRow[i];
    out[2 * n + i] = oldRow ? (*oldRow)[i] : Value();
  }
}
inline Row rowContext(const Row& newRow, const Row* oldRow) {
  Row r;
  assignRowContext(r, newRow, oldRow);
  return r;
}

// Constraint expressions of a table, bound once per statement over its row scope.
struct BoundTableRules {
  std::vector<BoundExprPtr> defaults;    // per column (null when none, or not run by the statement)
  std::vector<BoundExprPtr> generated;   // per column (null when not generated)
  std::vector<BoundExprPtr> checks;      // per CheckConstraint
  std::vector<BoundExprPtr> partial;     // per index: its WHERE predicate (null when total)
  // Row-local rules of a lens boundary the write passes through (views.md §4.3): each over the
  // written row (a delete: the deleted one), false fails the write with its message.
  struct BoundaryRule {
    BoundExprPtr expr;
    std::string message;
    bool onInsert = true, onUpdate = true, onDelete = false;
  };
  std::vector<BoundaryRule> boundary;
};

// Where a cell of a row being written comes from, which decides whether it is converted to the
// column's declared type. Conversion happens exactly once: a value already of the column's type
// (the old row's untouched cells, a JSON column copied into a JSON column) is never converted
// again, because converting is not idempotent for JSON (the stored text scalar "9" would be
// re-read as JSON source and become the number 9).
enum class CellSource : uint8_t {
  kDefault,    // not supplied: the DEFAULT (or NULL) fills it
  kSupplied,   // a value from the statement: converted to the column's type
  kConverted,  // already of the column's type: stored as it is
};

// A SET list (an UPDATE's, a DO UPDATE arm's): the assigned column and its value.
using BoundSet = std::vector<std::pair<int, BoundExprPtr>>;

// The source of an assigned cell whose producing expression has static type `produced`.
CellSource assignedCell(LogicalType produced, LogicalType column);
// The cells of an updated row: the old row's, already converted, except the assigned ones.
std::vector<CellSource> updatedCells(const TableSchema& t, const BoundSet& set);
// The columns whose DEFAULT a write can run: those it leaves to their default, and a NOT NULL
// one whose REPLACE action substitutes the DEFAULT for a NULL it is given. Only those are bound,
// so a DEFAULT reading a name only another writer provides (a join view's cross-side
// `new.<col>`, which that writer supplies explicitly) does not fail this one.
std::vector<bool> evaluatedDefaults(const TableSchema& t, const std::vector<CellSource>& cells,
                                    ast::ConflictAction orAction);

// The CHECK rules of every table a write can reach through foreign-key actions: a cascaded,
// nulled or defaulted child row is checked like any written row.
using CascadeRules = std::map<const Table*, BoundTableRules>;

// The table a statement writes, with what every statement binds against it.
struct BoundTarget {
  std::shared_ptr<Table> table;
  BoundTableRules rules;
  CascadeRules cascades;
  MutationContext context;
  bool hasReturning = false;
  std::vector<OutputColumn> returningColumns;
  std::vector<BoundExprPtr> returning;  // over rowContext(new, old)
};

// An ON CONFLICT clause; `set` and `where` read existing ‖ proposed (excluded.*) ‖ proposed (new.*).
struct BoundUpsert {
  std::vector<int> target;  // the conflict target's columns (empty: any conflict)
  bool doNothing = true;
  BoundSet set;
  std::vector<CellSource> cells;  // per column of the DO UPDATE row (updatedCells)
  BoundExprPtr where;
};

struct BoundInsert {
  BoundTarget target;
  std::vector<int> columns;        // the table column each source column fills
  std::vector<CellSource> cells;   // per column of the inserted row
  OperatorPtr source;              // null: DEFAULT VALUES, one row
  ast::ConflictAction orAction = ast::ConflictAction::kNone;
  std::vector<BoundUpsert> upserts;
  DefaultTiming timing = DefaultTiming::kPerRow;
};

// UPDATE and DELETE: `rows` yields the target rows the WHERE clause selects, drained before any
// write (so a statement never sees its own writes).
struct BoundUpdate {
  BoundTarget target;
  OperatorPtr rows;
  BoundSet set;                    // over rowContext(old, old)
  std::vector<CellSource> cells;   // per column of the updated row (updatedCells)
};

struct BoundDelete {
  BoundTarget target;
  OperatorPtr rows;
};

std::unique_ptr<DmlPlan> makeInsertPlan(Context& ctx, BoundInsert bound);
std::unique_ptr<DmlPlan> makeUpdatePlan(Context& ctx, BoundUpdate bound);
std::unique_ptr<DmlPlan> makeDeletePlan(Context& ctx, BoundDelete bound);

// The parent-side foreign-key actions of a row of `parent` that a write outside the DML
// executor deleted (newRow null) or updated (materialized-view maintenance, mv-constraints.md
// "Parent-side referential enforcement"): the same engine a DELETE / UPDATE runs, so a
// RESTRICT child fails the write and CASCADE / SET NULL / SET DEFAULT rewrite the children.
// Runs after the parent's row was written; a no-op with `pragma foreign_keys` off.
void applyInboundForeignKeyActions(Context& ctx, std::shared_ptr<Table> parent, const Row& oldRow, const Row* newRow);

// Whether a foreign key of any table names `parent` as its parent.
bool isForeignKeyParent(const Context& ctx, const TableSchema& parent);

// Deferred foreign-key child check for one row (run at COMMIT): throws when the parent is missing.
void checkForeignKeyParent(Context& ctx, const TableSchema& child, const ForeignKey& fk, const Row& row);

// Deferred CHECK (one with a subquery) for one written row, run at COMMIT: throws when false.
// `check`: `ck` bound as the write path binds it (bindCheck, core/planner/dml_binder.h), by the
// caller at COMMIT, against the catalog as it is then.
// `mutationContext`: the writing statement's context values (mutation_context.h), captured then.
void checkDeferredCheck(const TableSchema& table, const CheckConstraint& ck, const BoundExpr& check, const Row& row,
                        const Row* oldRow, const Row& mutationContext, ExecState& state);

}  // namespace optic
