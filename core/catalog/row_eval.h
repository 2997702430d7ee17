// RowEval: binds and evaluates expressions over stored rows of one table outside any DML
// statement (ALTER TABLE re-validation, CREATE UNIQUE INDEX over existing rows).
#pragma once

#include "core/api/engine.h"
#include "core/catalog/catalog.h"
#include "core/execution/expression.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"
#include "core/planner/row_scope.h"

namespace optic {

// Binds and evaluates expressions over rows of one table shape: the row scope of row_scope.h
// (bare or table-qualified columns and `new.*` read the row, `old.*` is NULL); an empty-scope
// evaluator rejects column references.
class RowEval {
 public:
  RowEval(Engine& engine, const TableSchema* t) : binder_(engine) {
    if (t) scope_ = rowScope(*t, "");
    width_ = t ? t->columns.size() : 0;
    exec_.engine = &engine;
    exec_.fn.engine = &engine;
    exec_.fn.randomState = engine.randomState();
    exec_.runId = engine.nextRunId();
  }
  BoundExprPtr bind(const ast::Expr& e) { return ExprBinder(binder_, scope_).bind(e); }
  Value eval(const BoundExpr& b, const Row& row) {
    exec_.runId = binder_.engine().nextRunId();
    Row context = width_ ? rowContext(row, nullptr) : row;
    EvalContext ctx{&context, nullptr, &exec_};
    return b.eval(ctx);
  }

 private:
  Binder binder_;
  Scope scope_;
  ExecState exec_;
  size_t width_ = 0;
};

}  // namespace optic
