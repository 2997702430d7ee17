// View-column substitution (view_substitution.h).
#include "core/planner/views/view_substitution.h"

#include <set>

#include "core/catalog/catalog.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/mutation_diagnostic.h"

namespace optic {
namespace {

using ast::ExprKind;

// The names the FROM sources of one subquery level provide.
struct LocalScope {
  std::set<std::string> qualifiers;  // lower-case
  std::set<std::string> columns;     // lower-case
  bool unsized = false;              // some source's columns are not statically known
  const LocalScope* parent = nullptr;

  bool hasColumn(const std::string& key) const {
    for (const LocalScope* s = this; s; s = s->parent) if (s->columns.count(key)) return true;
    return false;
  }
  bool hasQualifier(const std::string& key) const {
    for (const LocalScope* s = this; s; s = s->parent) if (s->qualifiers.count(key)) return true;
    return false;
  }
  bool anyUnsized() const {
    for (const LocalScope* s = this; s; s = s->parent) if (s->unsized) return true;
    return false;
  }
};

bool selectHasStar(const ast::Select& s) {
  if (s.setOp != ast::SetOp::kNone) return s.left && selectHasStar(*s.left);
  for (const ast::ResultColumn& rc : s.columns) if (rc.kind != ast::ResultColumn::Kind::kExpr) return true;
  return false;
}

void addSubqueryColumns(const ast::Select& s, LocalScope& scope) {
  const ast::Select* core = &s;
  while (core->setOp != ast::SetOp::kNone && core->left) core = core->left.get();
  for (const ast::ResultColumn& rc : core->columns) {
    if (!rc.alias.empty()) scope.columns.insert(lowerName(rc.alias));
    else if (rc.expr && rc.expr->kind == ExprKind::kColumn) scope.columns.insert(lowerName(rc.expr->name));
  }
  for (const auto& row : core->values) {
    for (size_t i = 0; i < row.size(); ++i) scope.columns.insert("column" + std::to_string(i + 1));
  }
}

void addTableColumns(const ViewRewrite& r, const ast::FromItem& f, LocalScope& scope) {
  const ast::WithClause* with = r.target.with;
  if (f.table.schema.empty() && with) {
    for (const ast::CommonTableExpr& cte : with->ctes) {
      if (lowerName(cte.name) != lowerName(f.table.name)) continue;
      if (&cte == r.target.cte && isJoinBody(*r.target.body)) {
        scope.unsized = true;  // a multi-source lowering keeps no snapshot of its target to read
        return;
      }
      for (const std::string& c : cte.columns) scope.columns.insert(lowerName(c));
      if (cte.columns.empty() && cte.select) {
        if (selectHasStar(*cte.select)) scope.unsized = true;
        else addSubqueryColumns(*cte.select, scope);
      }
      return;
    }
  }
  Catalog& cat = r.binder.ctx().catalog();
  std::string schema;
  try {
    schema = r.binder.resolveTableSchema(f.table);
  } catch (const Error&) {
    return;  // the binder reports the unknown table
  }
  if (auto t = cat.findTable(schema, f.table.name)) {
    for (const ColumnSchema& c : t->schema().columns) scope.columns.insert(lowerName(c.name));
  } else if (auto v = cat.findView(schema, f.table.name)) {
    for (const std::string& c : v->columnNames) scope.columns.insert(lowerName(c));
    if (v->columnNames.empty() && v->select) {
      if (selectHasStar(*v->select)) scope.unsized = true;
      else addSubqueryColumns(*v->select, scope);
    }
  }
}

void collectFrom(const ViewRewrite& r, const ast::FromItem& f, LocalScope& scope) {
  switch (f.kind) {
    case ast::FromItem::Kind::kJoin:
      collectFrom(r, *f.left, scope);
      collectFrom(r, *f.right, scope);
      for (const std::string& u : f.usingColumns) scope.columns.insert(lowerName(u));
      return;
    case ast::FromItem::Kind::kTable:
      scope.qualifiers.insert(lowerName(f.alias.empty() ? f.table.name : f.alias));
      addTableColumns(r, f, scope);
      return;
    case ast::FromItem::Kind::kSubquery:
      scope.qualifiers.insert(lowerName(f.alias));
      for (const std::string& c : f.columnAliases) scope.columns.insert(lowerName(c));
      if (f.columnAliases.empty() && f.select) {
        if (selectHasStar(*f.select)) scope.unsized = true;
        else addSubqueryColumns(*f.select, scope);
      }
      return;
    case ast::FromItem::Kind::kFunction:
    case ast::FromItem::Kind::kDml:
      scope.qualifiers.insert(lowerName(f.alias.empty() ? f.table.name : f.alias));
      scope.unsized = true;
      return;
  }
}

// True when a forward expression holds a subquery whose sources cannot be sized statically
// and that reads a bare name none of its known sources provides (a correlation to the body
// that cannot be proven).
bool unprovableCorrelation(const ViewRewrite& r, const ast::Expr& e, const LocalScope* locals);

bool unprovableInSelect(const ViewRewrite& r, const ast::Select& s, const LocalScope* parent) {
  if (s.setOp != ast::SetOp::kNone) {
    return (s.left && unprovableInSelect(r, *s.left, parent)) || (s.right && unprovableInSelect(r, *s.right, parent));
  }
  LocalScope scope;
  scope.parent = parent;
  if (s.from) collectFrom(r, *s.from, scope);
  for (const ast::ResultColumn& rc : s.columns) if (rc.expr && unprovableCorrelation(r, *rc.expr, &scope)) return true;
  return s.where && unprovableCorrelation(r, *s.where, &scope);
}

bool unprovableCorrelation(const ViewRewrite& r, const ast::Expr& e, const LocalScope* locals) {
  if (e.kind == ExprKind::kColumn) {
    return locals && e.table.empty() && locals->anyUnsized() && !locals->hasColumn(lowerName(e.name));
  }
  for (const ast::ExprPtr& a : e.args) if (a && unprovableCorrelation(r, *a, locals)) return true;
  return e.select && unprovableInSelect(r, *e.select, locals);
}

// Walks an expression tree keeping track of the FROM sources each nested subquery level
// introduces, so a column reference is judged against the scope it actually binds in.
// Compound legs are siblings: each sees the enclosing scope, never the other leg's FROM.
class ScopedWalk {
 public:
  explicit ScopedWalk(const ViewRewrite& r) : r_(r) {}
  virtual ~ScopedWalk() = default;

  void expr(ast::ExprPtr& e, const LocalScope* locals) {
    if (!e) return;
    if (e->kind == ExprKind::kColumn) {
      column(e, locals);
      return;
    }
    for (ast::ExprPtr& a : e->args) expr(a, locals);
    for (ast::CaseWhen& w : e->whens) {
      expr(w.when, locals);
      expr(w.then, locals);
    }
    expr(e->elseExpr, locals);
    expr(e->filter, locals);
    for (ast::OrderingTerm& t : e->orderBy) expr(t.expr, locals);
    if (e->select) select(*e->select, locals);
  }

 protected:
  virtual void column(ast::ExprPtr& e, const LocalScope* locals) = 0;

  const ViewRewrite& r_;

 private:
  void select(ast::Select& s, const LocalScope* parent) {
    if (s.setOp != ast::SetOp::kNone) {
      if (s.left) select(*s.left, parent);
      if (s.right) select(*s.right, parent);
      return;
    }
    LocalScope scope;
    scope.parent = parent;
    if (s.from) collectFrom(r_, *s.from, scope);
    for (ast::ResultColumn& rc : s.columns) expr(rc.expr, &scope);
    expr(s.where, &scope);
    for (ast::ExprPtr& g : s.groupBy) expr(g, &scope);
    expr(s.having, &scope);
    for (ast::OrderingTerm& t : s.orderBy) expr(t.expr, &scope);
    if (s.from) fromItem(*s.from, &scope);
  }

  void fromItem(ast::FromItem& f, const LocalScope* scope) {
    if (f.kind != ast::FromItem::Kind::kJoin) return;
    fromItem(*f.left, scope);
    fromItem(*f.right, scope);
    expr(f.on, scope);
  }
};

// Re-points a cloned lineage term (a forward expression or the body's WHERE) at the row the
// lowered statement names `target`. The term was written in the body's scope, where the source
// is named by its qualifier and bare names fall through to it; once copied under the user's
// subqueries (or under a renamed target) both would re-bind elsewhere. So, at any depth, a
// reference by the source qualifier — or a bare source column — that none of the term's own
// subquery sources provide is qualified by `target`. Names the term's own subqueries provide
// stay local; under a source whose columns are unknown a bare name is left as written.
class Retarget final : public ScopedWalk {
 public:
  Retarget(const ViewRewrite& r, std::string target) : ScopedWalk(r), target_(std::move(target)) {}

 private:
  void column(ast::ExprPtr& e, const LocalScope* locals) override {
    if (!e->table.empty()) {
      std::string q = lowerName(e->table);
      if (q != lowerName(r_.body.qualifier)) return;
      if (locals && locals->hasQualifier(q)) return;  // the term's own subquery names its source
    } else if (locals) {
      std::string key = lowerName(e->name);
      if (locals->hasColumn(key) || locals->anyUnsized() || !isSourceColumn(key)) return;
    }
    e->table = target_;
    e->schema.clear();
  }

  bool isSourceColumn(const std::string& key) const {
    for (const std::string& c : r_.body.sourceColumns) if (lowerName(c) == key) return true;
    return false;
  }

  std::string target_;
};

// Replaces every view-column name of a user expression by its lineage over the lowered target.
class Rewriter final : public ScopedWalk {
 public:
  using ScopedWalk::ScopedWalk;

 private:
  bool refersToView(const std::string& q) const {
    return q.empty() || q == lowerName(r_.target.name) || (!r_.target.alias.empty() && q == lowerName(r_.target.alias));
  }

  void column(ast::ExprPtr& e, const LocalScope* locals) override {
    std::string q = lowerName(e->table);
    std::string key = lowerName(e->name);
    if (r_.allowNewOld && !locals && (q == "new" || q == "old")) {
      e = forwardOf(requireViewColumn(r_, e->name), r_, q);
      return;
    }
    if (!refersToView(q)) return;
    if (!q.empty() && locals && locals->hasQualifier(q)) return;  // a subquery source shadows the view name
    if (q.empty() && locals) {
      if (locals->hasColumn(key)) return;
      if (locals->anyUnsized() && findBodyColumn(r_.body, e->name)) {
        failMutation(MutationDiagnostic{"unsupported-subquery-correlation", r_.target.name, e->name, r_.op},
                     cannotWrite(r_.target) + "a nested reference to view column '" + e->name +
                         "' cannot be proven correlated: a subquery's source columns are not statically resolvable");
      }
    }
    if (q.empty() && locals && !findBodyColumn(r_.body, e->name)) {
      failMutation(MutationDiagnostic{"unknown-view-column", r_.target.name, e->name, r_.op},
                   cannotWrite(r_.target) + "Column not found: '" + e->name +
                       "' is neither a column of the subquery's sources nor of the view");
    }
    const BodyColumn& c = requireViewColumn(r_, e->name);
    if (c.expr && unprovableCorrelation(r_, *c.expr, nullptr)) {
      failMutation(MutationDiagnostic{"unsupported-subquery-correlation", r_.target.name, c.name, r_.op},
                   cannotWrite(r_.target) + "view column '" + c.name +
                       "' reads a subquery whose source columns are not statically resolvable, so its correlation "
                       "cannot be proven");
    }
    e = forwardOf(c, r_, rowQualifier(r_));
  }
};

std::string columnList(const SingleSource& s) {
  std::string out;
  for (const BodyColumn& c : s.columns) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

}  // namespace

const std::string& rowQualifier(const ViewRewrite& r) {
  return r.rowQualifier.empty() ? r.body.qualifier : r.rowQualifier;
}

ast::ExprPtr retarget(const ast::Expr& lineage, const ViewRewrite& r, const std::string& qualifier) {
  ast::ExprPtr e = ast::clone(lineage);
  Retarget(r, qualifier).expr(e, nullptr);
  return e;
}

ast::ExprPtr forwardOf(const BodyColumn& c, const ViewRewrite& r, const std::string& qualifier) {
  if (c.expr) return retarget(*c.expr, r, qualifier);
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kColumn;
  e->table = qualifier;
  e->name = c.baseColumn;
  return e;
}

const BodyColumn& requireViewColumn(const ViewRewrite& r, const std::string& name) {
  if (const BodyColumn* c = findBodyColumn(r.body, name)) return *c;
  failMutation(MutationDiagnostic{"unknown-view-column", r.target.name, name, r.op},
               cannotWrite(r.target) + "'" + name + "' is not a column of the view view '" + r.target.name +
                   "' exposes: " + columnList(r.body) + ".");
}

ast::ExprPtr toBase(const ast::Expr& e, const ViewRewrite& r) {
  ast::ExprPtr out = ast::clone(e);
  Rewriter(r).expr(out, nullptr);
  return out;
}

}  // namespace optic
