// The lens boundary at write time (lens_boundary.h).
#include "core/planner/views/lens_boundary.h"

#include "core/catalog/lens.h"
#include "core/common/names.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"
#include "core/planner/mutation_diagnostic.h"

namespace optic {
namespace {

const LensSlot* lensSlotOf(Binder& binder, const WriteTarget& t) {
  if (t.kind != WriteTarget::Kind::kView) return nullptr;
  const Schema* s = binder.ctx().catalog().findSchema(t.homeSchema);
  return s && s->lens ? s->lens->find(t.name) : nullptr;
}

std::string logicalName(const LensSlot& slot) { return slot.schema + "." + slot.table; }

void requireWritable(const LensSlot& slot, const char* op, ast::ConflictAction orAction, bool upsert) {
  if (slot.readOnly) {
    failMutation(MutationDiagnostic{"lens-read-only", slot.table, "", op},
                 "cannot write through logical table '" + logicalName(slot) +
                     "': its primary key is not reconstructible at the lens boundary, so it is read-only (deploy "
                     "advisory lens.pk-not-reconstructible)");
  }
  bool resolves = upsert || orAction == ast::ConflictAction::kReplace || orAction == ast::ConflictAction::kIgnore;
  if (!resolves || slot.keyScans.empty()) return;
  const LensKeyScan& k = slot.keyScans.front();
  failMutation(MutationDiagnostic{"lens-set-level-conflict-resolution", slot.table, "", op},
               "cannot write through logical table '" + logicalName(slot) + "': its " + k.label +
                   " is enforced by a commit-time scan, which cannot resolve conflicts (or replace / or ignore / "
                   "upsert); add a basis covering materialized view for it");
}

// A write that changed rows owes the slot's scanned keys at COMMIT: it records the debt in the
// transaction, so a savepoint or statement rollback that undoes the write drops the debt with it.
// A failing write records it too: what an OR FAIL statement keeps of its rows still owes it (a
// statement rolled back drops it with everything else it recorded).
class LensKeyDebtPlan final : public DmlPlan {
 public:
  LensKeyDebtPlan(std::unique_ptr<DmlPlan> inner, const LensSlot& slot)
      : inner_(std::move(inner)), schema_(slot.schema), table_(slot.table) {
    returning_ = inner_->returningColumns();
    hasReturning_ = inner_->hasReturning();
  }
  std::vector<Row> execute(ExecState& state) override {
    std::vector<Row> rows;
    try {
      rows = inner_->execute(state);
    } catch (...) {
      owe(state);
      throw;
    }
    changes_ = inner_->changes();
    if (changes_ > 0) owe(state);
    return rows;
  }

 private:
  void owe(ExecState& state) const {
    DeferredCheck debt{schema_, table_, "", {}};
    debt.lensKeys = true;
    state.ctx->txn().recordDeferred(std::move(debt));
  }

  std::unique_ptr<DmlPlan> inner_;
  std::string schema_, table_;
};

// The delete actions run before the parent delete: `delete from L.C where exists (select 1 from
// L.P as q where q.pc = C.fc and … and (<the DELETE's where>))` (SET NULL: `update … set fc =
// null`), `q` the DELETE's own name for the parent so its WHERE reads as written.
std::string deleteActionSql(const LensSlot& slot, const LensDeleteAction& a, const WriteTarget& t,
                            const ast::Expr* where) {
  std::string q = printIdent(t.qualifier());
  std::string child = printIdent(slot.schema) + "." + printIdent(a.child);
  std::string match;
  for (size_t i = 0; i < a.childColumns.size(); ++i) {
    match += std::string(i ? " and " : "") + q + "." + printIdent(a.parentColumns[i]) + " = " + printIdent(a.child) +
             "." + printIdent(a.childColumns[i]);
  }
  if (where) match += " and (" + printExpr(*where) + ")";
  std::string selects = "exists (select 1 from " + printIdent(slot.schema) + "." + printIdent(slot.table) + " as " + q +
                        " where " + match + ")";
  if (!a.setNull) return "delete from " + child + " where " + selects;
  std::string sets;
  for (const std::string& c : a.childColumns) sets += (sets.empty() ? "" : ", ") + printIdent(c) + " = null";
  return "update " + child + " set " + sets + " where " + selects;
}

class LensDeleteActionsPlan final : public DmlPlan {
 public:
  LensDeleteActionsPlan(std::vector<std::shared_ptr<const ast::Statement>> stmts,
                        std::vector<std::unique_ptr<DmlPlan>> actions, std::unique_ptr<DmlPlan> inner)
      : stmts_(std::move(stmts)), actions_(std::move(actions)), inner_(std::move(inner)) {
    returning_ = inner_->returningColumns();
    hasReturning_ = inner_->hasReturning();
  }
  std::vector<Row> execute(ExecState& state) override {
    for (auto& a : actions_) a->execute(state);
    std::vector<Row> rows = inner_->execute(state);
    changes_ = inner_->changes();
    return rows;
  }

 private:
  std::vector<std::shared_ptr<const ast::Statement>> stmts_;  // the ASTs the actions were bound from
  std::vector<std::unique_ptr<DmlPlan>> actions_;
  std::unique_ptr<DmlPlan> inner_;
};

std::unique_ptr<DmlPlan> withDeleteActions(Binder& binder, const LensSlot& slot, const WriteTarget& t,
                                           const ast::Expr* where, std::unique_ptr<DmlPlan> inner) {
  if (slot.deleteActions.empty() || !binder.ctx().settings().foreignKeys) return inner;
  std::vector<std::shared_ptr<const ast::Statement>> stmts;
  std::vector<std::unique_ptr<DmlPlan>> actions;
  for (const LensDeleteAction& a : slot.deleteActions) {
    if (lowerName(a.child) == lowerName(t.qualifier())) continue;  // a self-reference: not supported
    std::vector<ast::StatementPtr> parsed = parseSql(deleteActionSql(slot, a, t, where));
    stmts.push_back(std::shared_ptr<const ast::Statement>(std::move(parsed.at(0))));
    Binder actionBinder(binder.ctx());
    const ast::Statement& st = *stmts.back();
    actions.push_back(st.del ? bindDelete(actionBinder, *st.del) : bindUpdate(actionBinder, *st.update));
  }
  return std::make_unique<LensDeleteActionsPlan>(std::move(stmts), std::move(actions), std::move(inner));
}

}  // namespace

std::unique_ptr<DmlPlan> bindAtLensBoundary(Binder& binder, const WriteTarget& t, const char* op,
                                            ast::ConflictAction orAction, bool upsert,
                                            const std::function<std::unique_ptr<DmlPlan>()>& bind,
                                            const ast::Expr* deleteWhere) {
  const LensSlot* slot = lensSlotOf(binder, t);
  if (!slot) return bind();
  requireWritable(*slot, op, orAction, upsert);
  std::optional<Binder::BoundaryRules> saved;
  bool ruled = !slot->rowRules.empty();
  if (ruled) saved = binder.swapBoundaryRules(Binder::BoundaryRules{slot->basisSchema, &slot->rowRules});
  std::unique_ptr<DmlPlan> plan;
  try {
    plan = bind();
  } catch (...) {
    if (ruled) binder.swapBoundaryRules(saved);
    throw;
  }
  if (ruled) binder.swapBoundaryRules(saved);
  if (std::string(op) == "delete") return withDeleteActions(binder, *slot, t, deleteWhere, std::move(plan));
  if (slot->keyScans.empty()) return plan;
  return std::make_unique<LensKeyDebtPlan>(std::move(plan), *slot);
}

}  // namespace optic
