// Shared building blocks of the view write-through lowerings (view_lowering.h).
#include "core/planner/views/view_lowering.h"

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/mutation_diagnostic.h"

namespace optic::lowering {

using ast::ExprKind;
using ast::ExprPtr;

// ---- small AST builders ----------------------------------------------------------------------

ExprPtr makeBinary(const std::string& op, ExprPtr l, ExprPtr r) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kBinary;
  e->op = op;
  e->args.push_back(std::move(l));
  e->args.push_back(std::move(r));
  return e;
}

ExprPtr makeNull() { return std::make_unique<ast::Expr>(); }

ExprPtr makeColumn(const std::string& table, const std::string& name) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kColumn;
  e->table = table;
  e->name = name;
  return e;
}

ExprPtr literalExpr(Value v) {
  auto e = std::make_unique<ast::Expr>();
  e->value = std::move(v);
  return e;
}

ast::ResultColumn aliased(ExprPtr e, std::string alias) {
  ast::ResultColumn rc;
  rc.expr = std::move(e);
  rc.alias = std::move(alias);
  return rc;
}

ExprPtr isNullExpr(ExprPtr x) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kIsNull;
  e->args.push_back(std::move(x));
  return e;
}

std::unique_ptr<ast::Select> selectFrom(const std::string& relation, ExprPtr where, std::vector<ast::ResultColumn> columns) {
  auto sel = std::make_unique<ast::Select>();
  sel->columns = std::move(columns);
  auto from = std::make_unique<ast::FromItem>();
  from->table.name = relation;
  sel->from = std::move(from);
  sel->where = std::move(where);
  return sel;
}

ExprPtr isNotTrue(ExprPtr x) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kIsBool;
  e->boolValue = true;
  e->negated = true;
  e->args.push_back(std::move(x));
  return e;
}

ExprPtr conjoin(ExprPtr a, ExprPtr b) {
  if (!a) return b;
  if (!b) return a;
  return makeBinary("and", std::move(a), std::move(b));
}

// ---- the lowered statement's frame -----------------------------------------------------------

std::unique_ptr<ast::WithClause> loweredWith(const ast::WithClause* with, const WriteTarget& t, bool selfRead) {
  if (!with) return nullptr;
  auto out = std::make_unique<ast::WithClause>();
  out->recursive = with->recursive;
  out->maxRecursion = with->maxRecursion;
  out->pos = with->pos;
  for (const ast::CommonTableExpr& cte : with->ctes) {
    if (&cte == t.cte) {  // a member sees its earlier siblings only (and a self-read, the target)
      if (selfRead) out->ctes.push_back(ast::clone(cte));
      break;
    }
    out->ctes.push_back(ast::clone(cte));
  }
  if (t.kind == WriteTarget::Kind::kView && t.body->with) {
    for (const ast::CommonTableExpr& cte : t.body->with->ctes) out->ctes.push_back(ast::clone(cte));
  }
  if (out->ctes.empty()) return nullptr;
  return out;
}

namespace {

bool isBodyCte(const WriteTarget& t, const std::string& name) {
  if (!t.body->with) return false;
  for (const ast::CommonTableExpr& cte : t.body->with->ctes) {
    if (lowerName(cte.name) == lowerName(name)) return true;
  }
  return false;
}

}  // namespace

// The base relation a stored view's body names: resolved from the view's home schema, so the
// reader's path and CTEs never change what the view writes.
ast::QualifiedName sourceName(Binder& binder, const WriteTarget& t, const ast::FromItem& src) {
  ast::QualifiedName name = src.table;
  if (t.kind != WriteTarget::Kind::kView || !name.schema.empty() || isBodyCte(t, name.name)) return name;
  Binder home(binder.ctx());
  home.setHomeSchema(t.homeSchema);
  name.schema = home.resolveTableSchema(name);
  return name;
}

// ---- column classes ----------------------------------------------------------------------------

bool flagLiteral(const ViewRewrite& r, const std::string& column, const ast::Expr* value) {
  if (value && value->kind == ast::ExprKind::kLiteral && value->value.kind() == ValueKind::kBoolean) return value->value.asBool();
  failMutation(MutationDiagnostic{"no-inverse", r.target.name, column, r.op},
               "cannot write through view '" + r.target.name + "': flag column '" + column +
                   "' takes a boolean literal (true or false)");
}

[[noreturn]] void readOnly(const ViewRewrite& r, const BodyColumn& c) {
  failMutation(MutationDiagnostic{"no-inverse", r.target.name, c.name, r.op},
               "cannot write through view '" + r.target.name + "': column '" + c.name +
                   "' is a computed (non-invertible) expression and is read-only");
}

void rejectContradiction(const WriteTarget& user, const std::string& column, const ast::Expr& cell,
                         const ast::Expr& pinned) {
  if (cell.kind != ExprKind::kLiteral || pinned.kind != ExprKind::kLiteral) return;  // known at run time only
  bool differ = cell.value.isNull() || pinned.value.isNull() ? cell.value.isNull() != pinned.value.isNull()
                                                             : compareValues(cell.value, pinned.value) != 0;
  if (!differ) return;
  failMutation(MutationDiagnostic{"predicate-contradiction", user.name, column, "insert"},
               "insert into view '" + user.name + "' contradicts its selection predicate on column '" + column + "'");
}

// `c ± k … = v` solved for c.
ExprPtr invert(const BodyColumn& c, ExprPtr v) {
  for (const InverseStep& s : c.steps) {
    ExprPtr k = ast::clone(*s.literal);
    if (s.plus) v = makeBinary("-", std::move(v), std::move(k));
    else if (s.literalFirst) v = makeBinary("-", std::move(k), std::move(v));
    else v = makeBinary("+", std::move(v), std::move(k));
  }
  return v;
}

using ValueOf = std::function<ExprPtr(const std::string&)>;

namespace {

// Replaces every `new.x` of an authored put by `valueOf(x)`.
// `new.x` inside a subquery of an inverse: replaced like a top-level one; the subquery's other
// names are its own sources' columns and stay as written.
void bindNewInSubquery(ExprPtr& e, const ViewRewrite& r, const ValueOf& valueOf) {
  if (!e) return;
  if (e->kind == ExprKind::kColumn) {
    if (lowerName(e->table) != "new") return;
    if (!findBodyColumn(r.body, e->name)) {
      fail("WITH INVERSE: 'new." + e->name + "' does not resolve to an output column of view '" + r.target.name + "'");
    }
    e = valueOf(e->name);
    return;
  }
  for (ExprPtr& a : e->args) bindNewInSubquery(a, r, valueOf);
  for (ast::CaseWhen& w : e->whens) {
    bindNewInSubquery(w.when, r, valueOf);
    bindNewInSubquery(w.then, r, valueOf);
  }
  bindNewInSubquery(e->elseExpr, r, valueOf);
  if (e->select) forEachExprIn(*e->select, [&](ExprPtr& x) { bindNewInSubquery(x, r, valueOf); });
}

void bindNew(ExprPtr& e, const ViewRewrite& r, const ValueOf& valueOf) {
  if (!e) return;
  if (e->select) forEachExprIn(*e->select, [&](ExprPtr& x) { bindNewInSubquery(x, r, valueOf); });
  if (e->kind == ExprKind::kColumn) {
    if (lowerName(e->table) == "new") {
      if (!findBodyColumn(r.body, e->name)) {
        fail("WITH INVERSE: 'new." + e->name + "' does not resolve to an output column of view '" + r.target.name + "'");
      }
      e = valueOf(e->name);
      return;
    }
    fail("WITH INVERSE: '" + e->name + "' is referenced without the NEW qualifier in view '" + r.target.name + "'");
  }
  for (ExprPtr& a : e->args) bindNew(a, r, valueOf);
  for (ast::CaseWhen& w : e->whens) {
    bindNew(w.when, r, valueOf);
    bindNew(w.then, r, valueOf);
  }
  bindNew(e->elseExpr, r, valueOf);
}

void requireInverseTarget(const ViewRewrite& r, const ast::InversePut& p) {
  for (const std::string& c : r.body.sourceColumns) if (lowerName(c) == lowerName(p.column)) return;
  fail("WITH INVERSE target '" + p.column + "' does not resolve to a column of the body's source in view '" +
       r.target.name + "'");
}

}  // namespace

namespace {

void forEachExprInFrom(ast::FromItem& f, const std::function<void(ExprPtr&)>& visit) {
  if (f.select) forEachExprIn(*f.select, visit);
  if (f.left) forEachExprInFrom(*f.left, visit);
  if (f.right) forEachExprInFrom(*f.right, visit);
  if (f.on) visit(f.on);
  for (ExprPtr& a : f.args) visit(a);
}

}  // namespace

void forEachExprIn(ast::Select& s, const std::function<void(ExprPtr&)>& visit) {
  for (ast::ResultColumn& rc : s.columns) {
    if (rc.expr) visit(rc.expr);
  }
  if (s.from) forEachExprInFrom(*s.from, visit);
  if (s.where) visit(s.where);
  for (ExprPtr& g : s.groupBy) visit(g);
  if (s.having) visit(s.having);
  for (auto& row : s.values) {
    for (ExprPtr& v : row) visit(v);
  }
  for (ast::OrderingTerm& o : s.orderBy) visit(o.expr);
  if (s.left) forEachExprIn(*s.left, visit);
  if (s.right) forEachExprIn(*s.right, visit);
}

ExprPtr authoredPut(const ViewRewrite& r, const ast::InversePut& p, const ValueOf& valueOf) {
  requireInverseTarget(r, p);
  ExprPtr v = ast::clone(*p.value);
  bindNew(v, r, valueOf);
  return v;
}

namespace {

// ---- RETURNING -------------------------------------------------------------------------------

std::string returningName(const ast::ResultColumn& rc, const std::string& printed) {
  if (!rc.alias.empty()) return rc.alias;
  if (rc.expr->kind == ExprKind::kColumn) {
    std::string q = lowerName(rc.expr->table);
    return (q == "new" || q == "old") ? rc.expr->table + "." + rc.expr->name : rc.expr->name;
  }
  return printed;
}

void addReturningStar(const ViewRewrite& r, const std::string& q, std::vector<ast::ResultColumn>& out) {
  for (const BodyColumn& c : r.body.columns) {
    ast::ResultColumn rc;
    rc.expr = forwardOf(c, r, q.empty() ? rowQualifier(r) : q);
    rc.alias = c.name;
    out.push_back(std::move(rc));
  }
}

}  // namespace

std::vector<ast::ResultColumn> lowerReturning(const std::vector<ast::ResultColumn>& in, const ViewRewrite& base) {
  ViewRewrite r = base;
  r.allowNewOld = true;
  std::vector<ast::ResultColumn> out;
  for (const ast::ResultColumn& rc : in) {
    if (rc.kind == ast::ResultColumn::Kind::kStar) {
      addReturningStar(r, "", out);
      continue;
    }
    if (rc.kind == ast::ResultColumn::Kind::kTableStar) {
      std::string q = lowerName(rc.table);
      if (q == "new" || q == "old") {
        addReturningStar(r, q, out);
        continue;
      }
      if (q != lowerName(r.target.name) && q != lowerName(r.target.alias)) {
        fail("'" + rc.table + "' not found in FROM clause for qualified RETURNING *");
      }
      addReturningStar(r, "", out);
      continue;
    }
    ast::ResultColumn lowered;
    lowered.expr = toBase(*rc.expr, r);
    lowered.alias = returningName(rc, printExpr(*rc.expr));
    out.push_back(std::move(lowered));
  }
  return out;
}

std::vector<ast::ContextAssignment> cloneContext(const std::vector<ast::ContextAssignment>& in) {
  std::vector<ast::ContextAssignment> out;
  for (const ast::ContextAssignment& c : in) out.push_back(ast::ContextAssignment{c.name, ast::clone(*c.value)});
  return out;
}


}  // namespace optic::lowering
