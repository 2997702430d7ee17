#include "core/planner/recursive_cte.h"

#include <unordered_set>

#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/execution/operators.h"
#include "core/planner/expr_binder.h"

namespace optic {


namespace {

class RecursiveCteOp final : public Operator {
 public:
  RecursiveCteOp(OperatorPtr anchor, OperatorPtr step, std::shared_ptr<std::vector<Row>> working, bool unionAll,
                 int64_t maxIterations)
      : anchor_(std::move(anchor)), step_(std::move(step)), working_(std::move(working)), unionAll_(unionAll),
        maxIterations_(maxIterations) {}

  void open(ExecState& state, const EvalContext* outer) override {
    state_ = &state;
    outer_ = outer;
    seen_.clear();
    batch_ = admit(drain(*anchor_, state, outer));
    pos_ = 0;
    iterations_ = 0;
  }

  bool next(Row& out) override {
    while (pos_ >= batch_.size()) {
      if (batch_.empty()) return false;
      tickRow(*state_);  // an iteration whose rows are all filtered out yields nothing to count
      if (maxIterations_ > 0 && ++iterations_ > maxIterations_) {
        fail("recursive CTE exceeded maxrecursion limit of " + std::to_string(maxIterations_));
      }
      *working_ = std::move(batch_);
      batch_ = admit(drain(*step_, *state_, outer_));
      pos_ = 0;
    }
    out = batch_[pos_++];
    return true;
  }

  void close() override {
    batch_.clear();
    seen_.clear();
    working_->clear();
  }

  PlanDescription describe() const override {
    return {"RecursiveCte", unionAll_ ? "anchor, then steps until empty (union all)" : "anchor, then steps until empty (union)"};
  }
  std::vector<const Operator*> inputs() const override { return {anchor_.get(), step_.get()}; }

 private:
  // UNION keeps only rows not produced before; UNION ALL keeps everything.
  std::vector<Row> admit(std::vector<Row> rows) {
    if (unionAll_) return rows;
    std::vector<Row> fresh;
    for (Row& r : rows) {
      std::string key;
      for (const Value& v : r) key += toText(v) + '\x1f' + static_cast<char>(v.kind()) + '\x1e';
      if (seen_.insert(key).second) fresh.push_back(std::move(r));
    }
    return fresh;
  }

  OperatorPtr anchor_, step_;
  std::shared_ptr<std::vector<Row>> working_;
  bool unionAll_;
  int64_t maxIterations_;
  ExecState* state_ = nullptr;
  const EvalContext* outer_ = nullptr;
  std::unordered_set<std::string> seen_;
  std::vector<Row> batch_;
  size_t pos_ = 0;
  int64_t iterations_ = 0;
};

bool referencesName(const ast::Select& s, const std::string& name);

bool fromReferences(const ast::FromItem* f, const std::string& name) {
  if (!f) return false;
  if (f->kind == ast::FromItem::Kind::kTable) return f->table.schema.empty() && lowerName(f->table.name) == name;
  if (f->kind == ast::FromItem::Kind::kSubquery) return referencesName(*f->select, name);
  if (f->kind == ast::FromItem::Kind::kJoin) return fromReferences(f->left.get(), name) || fromReferences(f->right.get(), name);
  return false;
}

bool referencesName(const ast::Select& s, const std::string& name) {
  if (s.left && referencesName(*s.left, name)) return true;
  if (s.right && referencesName(*s.right, name)) return true;
  return fromReferences(s.from.get(), name);
}

}  // namespace

bool hasRecursiveStep(const ast::CommonTableExpr& cte) {
  const ast::Select& body = *cte.select;
  return (body.setOp == ast::SetOp::kUnion || body.setOp == ast::SetOp::kUnionAll) && body.right &&
         referencesName(*body.right, lowerName(cte.name));
}

QueryPlan bindRecursiveCte(Binder& binder, CteBinding& cte, const Scope* outer) {
  const ast::Select& body = *cte.cte->select;
  if (!hasRecursiveStep(*cte.cte)) return binder.bindQuery(body, outer);
  // The body's own WITH (`as (with base as (…) select … from base union all …)`) is visible to
  // both legs, which are bound here rather than through bindQuery(body).
  Binder::WithScope bodyWith(binder, body.with.get());
  QueryPlan anchor = binder.bindQuery(*body.left, outer);
  auto working = std::make_shared<std::vector<Row>>();
  cte.working = working;
  cte.workingColumns = anchor.columns;
  for (size_t i = 0; i < cte.cte->columns.size() && i < cte.workingColumns.size(); ++i) {
    cte.workingColumns[i].name = cte.cte->columns[i];
  }
  QueryPlan step;
  try {
    step = binder.bindQuery(*body.right, outer);
  } catch (...) {
    cte.working.reset();
    throw;
  }
  cte.working.reset();
  if (step.columns.size() != anchor.columns.size()) {
    fail("SELECTs to the left and right of UNION do not have the same number of result columns");
  }
  QueryPlan plan;
  plan.columns = anchor.columns;
  plan.root = std::make_unique<RecursiveCteOp>(std::move(anchor.root), std::move(step.root), working,
                                               body.setOp == ast::SetOp::kUnionAll, 0);
  // The body's own LIMIT/OFFSET bound the whole CTE; rows stream, so the limit ends the recursion.
  if (body.limit || body.offset) {
    Scope empty{{}, outer};
    BoundExprPtr limit = body.limit ? ExprBinder(binder, empty).bind(*body.limit) : nullptr;
    BoundExprPtr offset = body.offset ? ExprBinder(binder, empty).bind(*body.offset) : nullptr;
    plan.root = std::make_unique<LimitOp>(std::move(plan.root), std::move(limit), std::move(offset));
  }
  return plan;
}

}  // namespace optic
