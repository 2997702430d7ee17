// RowEval: binds and evaluates expressions over stored rows of one table outside any DML
// statement (ALTER TABLE re-validation, CREATE UNIQUE INDEX over existing rows).
#pragma once

#include "core/catalog/catalog.h"
#include "core/execution/context.h"
#include "core/execution/dml.h"
#include "core/execution/expression.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"
#include "core/planner/row_scope.h"

namespace optic {

// Binds and evaluates expressions over rows of one table shape: the row scope of row_scope.h
// (bare or table-qualified columns and `new.*` read the row, `old.*` is NULL); an empty-scope
// evaluator rejects column references. A DEFAULT or CHECK binds with bindRule: the table's
// mutation-context variables are in scope and read NULL (no statement supplies them here).
class RowEval {
 public:
  RowEval(Context& ctx, const TableSchema* t) : binder_(ctx) {
    if (t) scope_ = rowScope(*t, "");
    if (t) ruleScope_ = contextRuleScope(*t);
    width_ = t ? t->columns.size() : 0;
    contextWidth_ = t ? t->contextVariables.size() : 0;
    exec_.ctx = &ctx;
    exec_.fn.ctx = &ctx;
    exec_.fn.randomState = ctx.randomState();
    exec_.runId = ctx.nextRunId();
  }
  BoundExprPtr bind(const ast::Expr& e) { return ExprBinder(binder_, scope_).bind(e); }
  BoundExprPtr bindRule(const ast::Expr& e) { return ExprBinder(binder_, ruleScope_).bind(e); }
  Value eval(const BoundExpr& b, const Row& row) {
    exec_.runId = binder_.ctx().nextRunId();
    Row context = width_ ? rowContext(row, nullptr) : row;
    if (width_) context.resize(context.size() + contextWidth_);
    EvalContext ctx{&context, nullptr, &exec_};
    return b.eval(ctx);
  }

 private:
  Binder binder_;
  Scope scope_;
  Scope ruleScope_;
  ExecState exec_;
  size_t width_ = 0;
  size_t contextWidth_ = 0;
};

}  // namespace optic
