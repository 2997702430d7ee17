// RowEval: binds and evaluates expressions over stored rows of one table outside any DML
// statement (ALTER TABLE re-validation, CREATE UNIQUE INDEX over existing rows).
#pragma once

#include "core/api/engine.h"
#include "core/catalog/catalog.h"
#include "core/execution/expression.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"

namespace optic {

// Binds and evaluates expressions over rows of one table shape (columns unqualified or
// qualified by the table name); an empty-scope evaluator rejects column references.
class RowEval {
 public:
  RowEval(Engine& engine, const TableSchema* t) : binder_(engine) {
    if (t) {
      for (const ColumnSchema& c : t->columns) {
        ScopeColumn sc;
        sc.table = t->name;
        sc.name = c.name;
        sc.type = c.type;
        sc.collation = c.collation;
        sc.collationRank = c.collationDeclared ? 2 : (c.collation != Collation::kBinary ? 1 : 0);
        scope_.columns.push_back(sc);
      }
    }
    exec_.engine = &engine;
    exec_.fn.engine = &engine;
    exec_.fn.randomState = engine.randomState();
    exec_.runId = engine.nextRunId();
  }
  BoundExprPtr bind(const ast::Expr& e) { return ExprBinder(binder_, scope_).bind(e); }
  Value eval(const BoundExpr& b, const Row& row) {
    exec_.runId = binder_.engine().nextRunId();
    EvalContext ctx{&row, nullptr, &exec_};
    return b.eval(ctx);
  }

 private:
  Binder binder_;
  Scope scope_;
  ExecState exec_;
};

}  // namespace optic
