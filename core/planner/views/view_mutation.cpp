// View write-through lowering (view_mutation.h).
#include "core/planner/views/view_mutation.h"

#include <algorithm>
#include <map>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/views/join_mutation.h"
#include "core/planner/views/lens_boundary.h"
#include "core/planner/views/setop_mutation.h"
#include "core/planner/views/view_body.h"
#include "core/planner/views/view_lowering.h"
#include "core/planner/views/view_substitution.h"
#include "core/planner/write_target.h"

namespace optic {
namespace {

using ast::ExprKind;
using ast::ExprPtr;
using namespace lowering;

// ---- UPDATE ----------------------------------------------------------------------------------

struct BaseSet {
  std::string baseColumn;
  std::string viewColumn;
  ExprPtr value;
};

void addBaseSet(std::vector<BaseSet>& sets, const ViewRewrite& r, BaseSet s) {
  for (const BaseSet& other : sets) {
    if (lowerName(other.baseColumn) != lowerName(s.baseColumn)) continue;
    if (lowerName(other.viewColumn) == lowerName(s.viewColumn)) break;  // the base binder reports it
    failMutation(MutationDiagnostic{"conflicting-assignment", r.target.name, s.viewColumn, r.op},
                 "cannot write through view '" + r.target.name + "': columns '" + other.viewColumn + "' and '" +
                     s.viewColumn + "' both target base column '" + s.baseColumn +
                     "'; an UPDATE cannot assign one column twice");
  }
  sets.push_back(std::move(s));
}

std::vector<BaseSet> lowerAssignments(const std::vector<ast::Assignment>& set, const ViewRewrite& r) {
  std::map<std::string, const ast::Expr*> assigned;  // view column -> user value
  for (const ast::Assignment& a : set) assigned[lowerName(requireViewColumn(r, a.column).name)] = a.value.get();
  std::vector<BaseSet> out;
  for (const ast::Assignment& a : set) {
    const BodyColumn& c = requireViewColumn(r, a.column);
    switch (c.kind) {
      case ColumnClass::kPassthrough:
        addBaseSet(out, r, BaseSet{c.baseColumn, c.name, toBase(*a.value, r)});
        break;
      case ColumnClass::kInvertible:
        addBaseSet(out, r, BaseSet{c.baseColumn, c.name, invert(c, toBase(*a.value, r))});
        break;
      case ColumnClass::kAuthored:
        for (const ast::InversePut& p : c.authored->inverse) {
          ExprPtr v = authoredPut(r, p, [&](const std::string& x) {
            auto it = assigned.find(lowerName(x));
            if (it != assigned.end()) return toBase(*it->second, r);
            return forwardOf(*findBodyColumn(r.body, x), r, rowQualifier(r));
          });
          addBaseSet(out, r, BaseSet{p.column, c.name, std::move(v)});
        }
        break;
      case ColumnClass::kComputed:
        readOnly(r, c);
    }
  }
  return out;
}

// The correlation name of the lowered UPDATE/DELETE target. It is synthesised rather than the
// body's own qualifier so that a user subquery reading the same base table (or a source of the
// same name) cannot capture a correlation meant for the target row.
const char* const kSelfAlias = "__vm_self";

// A CTE target stays readable by the statement's own clauses: `with t as (…) update t … where id
// in (select id from t)` reads the CTE body as it was before the write (the base statement finds
// its rows before changing any).
bool selfReadable(const WriteTarget& t) { return t.kind == WriteTarget::Kind::kCte; }

// A CTE target's body sees the siblings declared before it only; any other name it reads is a
// real relation.
bool isEarlierSibling(const WriteTarget& t, const std::string& name) {
  for (const ast::CommonTableExpr& cte : t.with->ctes) {
    if (&cte == t.cte) return false;
    if (lowerName(cte.name) == lowerName(name)) return true;
  }
  return false;
}

// A join one level down: the join lowering addresses the rows of its own body, not this level's
// projection and filter of them, so a join below another view level is refused (the insert
// path's nested-view rule).
void rejectJoinBelow(Binder& binder, const WriteTarget& t, const SingleSource& s, const ast::WithClause* with,
                     const char* op) {
  const ast::Select* below = nullptr;
  std::optional<WriteTarget> next;
  if (s.source->kind == ast::FromItem::Kind::kSubquery) {
    below = s.source->select.get();
  } else if (s.source->kind == ast::FromItem::Kind::kTable) {
    next = resolveWriteTarget(binder, sourceName(binder, t, *s.source), s.qualifier, with, nullptr, {});
    if (next) below = next->body;
  }
  if (!below || !isJoinBody(*below)) return;
  failMutation(MutationDiagnostic{"nested-view", t.name, "", op},
               cannotWrite(t) + "its body reads a join view; a join below another view level is not updateable "
                                "in phase 1 (nested-view mutation is not yet supported)");
}

// The body's FROM source as the lowered UPDATE/DELETE target.
template <class Stmt>
void setSourceTarget(Binder& binder, const WriteTarget& t, const SingleSource& s, Stmt& out) {
  if (s.source->kind == ast::FromItem::Kind::kSubquery) {
    out.targetSelect = ast::clone(*s.source->select);
    out.targetColumns = s.source->columnAliases;
  } else {
    out.table = sourceName(binder, t, *s.source);
    // `with base as (select … from base) update base …`: the body's `base` is the real table,
    // which the kept target CTE (or a later sibling) would otherwise shadow.
    if (selfReadable(t) && out.table.schema.empty() && !isEarlierSibling(t, out.table.name)) {
      out.table.schema = binder.resolveTableSchema(out.table);
    }
  }
  out.alias = kSelfAlias;
}

ExprPtr loweredWhere(const ast::Expr* userWhere, const SingleSource& s, const ViewRewrite& r) {
  return conjoin(userWhere ? toBase(*userWhere, r) : nullptr, s.where ? retarget(*s.where, r, kSelfAlias) : nullptr);
}

std::unique_ptr<ast::Statement> lowerUpdateStep(Binder& binder, const ast::Update& up, const WriteTarget& t) {
  SingleSource s = analyseSingleSource(binder, t, "update");
  ViewRewrite r{binder, t, s, "update", false, kSelfAlias};
  auto out = std::make_unique<ast::Update>();
  out->with = loweredWith(up.with.get(), t, selfReadable(t));
  // The level below is judged in the scope the target's body binds in (its earlier siblings).
  rejectJoinBelow(binder, t, s, loweredWith(up.with.get(), t).get(), "update");
  out->orAction = up.orAction;
  setSourceTarget(binder, t, s, *out);
  for (BaseSet& b : lowerAssignments(up.set, r)) out->set.push_back(ast::Assignment{b.baseColumn, std::move(b.value), {}});
  out->where = loweredWhere(up.where.get(), s, r);
  out->context = cloneContext(up.context);
  out->withSchema = up.withSchema;
  out->hasReturning = up.hasReturning;
  if (up.hasReturning) out->returning = lowerReturning(up.returning, r);
  out->tags = up.tags;
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kUpdate;
  stmt->update = std::move(out);
  return stmt;
}

std::unique_ptr<ast::Statement> lowerDeleteStep(Binder& binder, const ast::Delete& del, const WriteTarget& t) {
  SingleSource s = analyseSingleSource(binder, t, "delete");
  ViewRewrite r{binder, t, s, "delete", false, kSelfAlias};
  auto out = std::make_unique<ast::Delete>();
  out->with = loweredWith(del.with.get(), t, selfReadable(t));
  // The level below is judged in the scope the target's body binds in (its earlier siblings).
  rejectJoinBelow(binder, t, s, loweredWith(del.with.get(), t).get(), "delete");
  out->orAction = del.orAction;
  setSourceTarget(binder, t, s, *out);
  out->where = loweredWhere(del.where.get(), s, r);
  out->context = cloneContext(del.context);
  out->withSchema = del.withSchema;
  out->hasReturning = del.hasReturning;
  if (del.hasReturning) out->returning = lowerReturning(del.returning, r);
  out->tags = del.tags;
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kDelete;
  stmt->del = std::move(out);
  return stmt;
}

// ---- the plan of a lowered write -------------------------------------------------------------

class LoweredPlan final : public DmlPlan {
 public:
  LoweredPlan(std::unique_ptr<ast::Statement> stmt, std::unique_ptr<DmlPlan> inner)
      : stmt_(std::move(stmt)), inner_(std::move(inner)) {
    returning_ = inner_->returningColumns();
    hasReturning_ = inner_->hasReturning();
  }
  std::vector<Row> execute(ExecState& state) override {
    std::vector<Row> rows = inner_->execute(state);
    changes_ = inner_->changes();
    return rows;
  }

 private:
  std::unique_ptr<ast::Statement> stmt_;  // the lowered AST the inner plan was bound from
  std::unique_ptr<DmlPlan> inner_;
};

std::unique_ptr<DmlPlan> bindLowered(Binder& binder, std::unique_ptr<ast::Statement> stmt) {
  if (!stmt) return nullptr;
  std::unique_ptr<DmlPlan> inner;
  switch (stmt->kind) {
    case ast::StatementKind::kInsert: inner = bindInsert(binder, *stmt->insert); break;
    case ast::StatementKind::kUpdate: inner = bindUpdate(binder, *stmt->update); break;
    default: inner = bindDelete(binder, *stmt->del); break;
  }
  return std::make_unique<LoweredPlan>(std::move(stmt), std::move(inner));
}

// A write through a materialized view names it as one in its diagnostics (views.md §3.5).
template <typename Fn>
auto namedAsMaterialized(const WriteTarget& t, Fn&& fn) -> decltype(fn()) {
  if (!t.materialized) return fn();
  try {
    return fn();
  } catch (const MutationError& e) {
    std::string m = e.what();
    for (std::string prefix : {"cannot insert through view '", "cannot write through view '"}) {
      if (m.rfind(prefix, 0) == 0) {
        m = "cannot write through materialized view '" + m.substr(prefix.size());
        break;
      }
    }
    throw MutationError(e.diagnostic(), m);
  }
}

}  // namespace

// ---- entry points (INSERT is lowered in view_insert.cpp) --------------------------------------

std::unique_ptr<ast::Statement> lowerViewUpdate(Binder& binder, const ast::Update& up) {
  auto t = resolveWriteTarget(binder, up.table, up.alias, up.with.get(), up.targetSelect.get(), up.targetColumns);
  if (!t || isJoinBody(*t->body)) return nullptr;
  return lowerUpdateStep(binder, up, *t);
}

std::unique_ptr<ast::Statement> lowerViewDelete(Binder& binder, const ast::Delete& del) {
  auto t = resolveWriteTarget(binder, del.table, del.alias, del.with.get(), del.targetSelect.get(), del.targetColumns);
  if (!t || isJoinBody(*t->body)) return nullptr;
  return lowerDeleteStep(binder, del, *t);
}

std::unique_ptr<DmlPlan> bindViewInsert(Binder& binder, const ast::Insert& ins) {
  auto t = resolveWriteTarget(binder, ins.table, ins.alias, ins.with.get(), nullptr, {});
  if (!t) return nullptr;
  return bindAtLensBoundary(binder, *t, "insert", ins.orAction, !ins.upserts.empty(), [&] {
    return namedAsMaterialized(*t, [&] {
      if (isJoinBody(*t->body)) return bindJoinInsert(binder, ins, *t);
      if (t->body->setOp != ast::SetOp::kNone) return bindSetOpInsert(binder, ins, *t);
      return bindLowered(binder, lowerViewInsert(binder, ins));
    });
  });
}

std::unique_ptr<DmlPlan> bindViewUpdate(Binder& binder, const ast::Update& up) {
  auto t = resolveWriteTarget(binder, up.table, up.alias, up.with.get(), up.targetSelect.get(), up.targetColumns);
  if (!t) return nullptr;
  return bindAtLensBoundary(binder, *t, "update", up.orAction, false, [&] {
    return namedAsMaterialized(*t, [&] {
      if (isJoinBody(*t->body)) return bindJoinUpdate(binder, up, *t);
      if (t->body->setOp != ast::SetOp::kNone) return bindSetOpUpdate(binder, up, *t);
      return bindLowered(binder, lowerUpdateStep(binder, up, *t));
    });
  });
}

std::unique_ptr<DmlPlan> bindViewDelete(Binder& binder, const ast::Delete& del) {
  auto t = resolveWriteTarget(binder, del.table, del.alias, del.with.get(), del.targetSelect.get(), del.targetColumns);
  if (!t) return nullptr;
  return bindAtLensBoundary(binder, *t, "delete", del.orAction, false, [&] {
    return namedAsMaterialized(*t, [&] {
      if (isJoinBody(*t->body)) return bindJoinDelete(binder, del, *t);
      if (t->body->setOp != ast::SetOp::kNone) return bindSetOpDelete(binder, del, *t);
      return bindLowered(binder, lowerDeleteStep(binder, del, *t));
    });
  }, del.where.get());
}

}  // namespace optic
