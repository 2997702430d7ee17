// Predicate pushdown into a derived source (binder.h: Binder::pushDown).
//
// A view, a CTE or a FROM subquery is bound as its own query, so the enclosing level's WHERE
// would only filter what the body yields, after a full scan. The conjuncts of that WHERE that
// read only the source's columns are rewritten over the body (each column replaced by the
// expression that computes it) and joined into the body's WHERE, where its access paths can use
// keys and indexes. The enclosing filter still tests them, so pushing down only narrows the
// body's rows to those the filter keeps.
//
// Rules, each keeping the rows and values the query returns unchanged:
// - the body is a plain SELECT core (no compound, VALUES, WITH, DISTINCT, GROUP BY, HAVING,
//   window clause, LIMIT/OFFSET or `with schema`) whose result columns hold no aggregate or
//   window call; a WHERE filters rows before projection there, so a conjunct over the output
//   may filter the input;
// - a conjunct goes in only if each column it reads is an output column of the source (by its
//   qualifier or unqualified) computed without subqueries, and it and those expressions call only
//   deterministic scalar functions and hold no subquery: evaluating it again, lower, gives the
//   same answer for the same row;
// - `*` in the body expands only over a single base table (its columns are known here).
#include <map>

#include "core/common/error.h"
#include "core/common/names.h"
#include "core/execution/context.h"
#include "core/execution/function_registry.h"
#include "core/parser/ast_clone.h"
#include "core/planner/access_path.h"
#include "core/planner/binder.h"
#include "core/planner/predicates.h"

namespace optic {

namespace {

bool plainCore(const ast::Select& s) {
  return s.setOp == ast::SetOp::kNone && s.values.empty() && !s.with && !s.distinct && s.groupBy.empty() &&
         !s.having && s.windows.empty() && !s.limit && !s.offset && s.withSchema.empty() && s.from;
}

// Whether `e` gives the same answer whenever and wherever it is evaluated over the same row.
bool movable(Context& ctx, const ast::Expr& e) {
  return !ast::anyExpr(
      e,
      [&](const ast::Expr& x) {
        switch (x.kind) {
          case ast::ExprKind::kSubquery:
          case ast::ExprKind::kExists:
          case ast::ExprKind::kInSelect:
            return true;
          case ast::ExprKind::kFunction: {
            if (x.star || x.distinct || x.window || !x.windowName.empty() || x.filter || !x.orderBy.empty()) return true;
            const ScalarFunction* f = ctx.functions().findScalar(x.name, static_cast<int>(x.args.size()));
            return !f || !f->deterministic;
          }
          default:
            return false;
        }
      },
      false);
}

void substitute(ast::ExprPtr& e, const std::map<std::string, const ast::Expr*>& columns) {
  if (e->kind == ast::ExprKind::kColumn) {
    e = ast::clone(*columns.at(lowerName(e->name)));
    return;
  }
  for (ast::ExprPtr& a : e->args) {
    if (a) substitute(a, columns);
  }
  for (ast::CaseWhen& w : e->whens) {
    substitute(w.when, columns);
    substitute(w.then, columns);
  }
  if (e->elseExpr) substitute(e->elseExpr, columns);
}

ast::ExprPtr conjunction(ast::ExprPtr a, ast::ExprPtr b) {
  if (!a) return b;
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kBinary;
  e->op = "and";
  e->pos = a->pos;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// Whether a result column aggregates or windows (the body's WHERE would change what it sees).
bool summarizes(Context& ctx, const ast::Expr& e) {
  return ast::anyExpr(
      e,
      [&](const ast::Expr& x) {
        return x.kind == ast::ExprKind::kFunction &&
               (x.window || !x.windowName.empty() || ctx.functions().findAggregate(x.name, static_cast<int>(x.args.size())));
      },
      false);
}

}  // namespace

std::unique_ptr<ast::Select> Binder::pushDown(const ast::Select& body, const std::vector<std::string>& names,
                                              const std::string& qualifier, const ast::Expr* where) {
  if (!where || !plainCore(body) || !indexesEnabled(ctx_)) return nullptr;
  for (const ast::ResultColumn& rc : body.columns) {
    if (rc.expr && summarizes(ctx_, *rc.expr)) return nullptr;
  }
  // The output columns as the enclosing level names them, each with its expression over the
  // body's row (null: never pushed through).
  std::vector<std::pair<std::string, const ast::Expr*>> outputs;
  std::vector<ast::ExprPtr> expanded;  // the columns a `*` stands for
  for (const ast::ResultColumn& rc : body.columns) {
    if (rc.kind == ast::ResultColumn::Kind::kExpr) {
      std::string name = !rc.alias.empty() ? rc.alias : rc.expr->kind == ast::ExprKind::kColumn ? rc.expr->name : "";
      outputs.emplace_back(name, movable(ctx_, *rc.expr) ? rc.expr.get() : nullptr);
      continue;
    }
    const ast::FromItem& from = *body.from;
    std::string fromName = from.alias.empty() ? from.table.name : from.alias;
    if (rc.kind == ast::ResultColumn::Kind::kTableStar && (!rc.schema.empty() || !sameName(rc.table, fromName))) {
      return nullptr;
    }
    std::shared_ptr<Table> table = joinableTable(from);
    if (!table) return nullptr;
    for (const ColumnSchema& c : table->schema().columns) {
      auto ref = std::make_unique<ast::Expr>();
      ref->kind = ast::ExprKind::kColumn;
      ref->table = fromName;
      ref->name = c.name;
      ref->pos = rc.pos;
      outputs.emplace_back(c.name, ref.get());
      expanded.push_back(std::move(ref));
    }
  }
  if (!names.empty()) {
    if (names.size() != outputs.size()) return nullptr;
    for (size_t i = 0; i < names.size(); ++i) outputs[i].first = names[i];
  }
  std::map<std::string, const ast::Expr*> columns;
  std::map<std::string, int> seen;
  for (const auto& [name, expr] : outputs) ++seen[lowerName(name)];
  for (const auto& [name, expr] : outputs) {
    if (!name.empty() && expr && seen[lowerName(name)] == 1) columns[lowerName(name)] = expr;
  }
  ast::ExprPtr pushed;
  for (const ast::Expr* p : conjunctsOf(where)) {
    bool ours = movable(ctx_, *p) && !ast::anyExpr(
                                         *p,
                                         [&](const ast::Expr& x) {
                                           if (x.kind != ast::ExprKind::kColumn) return false;
                                           bool named = x.schema.empty() && (x.table.empty() || sameName(x.table, qualifier));
                                           return !named || !columns.count(lowerName(x.name));
                                         },
                                         false);
    if (!ours) continue;
    ast::ExprPtr term = ast::clone(*p);
    substitute(term, columns);
    pushed = conjunction(std::move(pushed), std::move(term));
  }
  if (!pushed) return nullptr;
  std::unique_ptr<ast::Select> out = ast::clone(body);
  out->where = out->where ? conjunction(std::move(out->where), std::move(pushed)) : std::move(pushed);
  return out;
}

QueryPlan Binder::bindDerived(const ast::Select& body, const std::vector<std::string>& names,
                              const std::string& qualifier, const ast::Expr* where, const Scope* outer) {
  if (std::unique_ptr<ast::Select> pushed = pushDown(body, names, qualifier, where)) {
    try {
      QueryPlan q = bindQuery(*pushed, outer);
      pushedBodies_.push_back(std::move(pushed));
      return q;
    } catch (const Error&) {
    }
  }
  return bindQuery(body, outer);
}

}  // namespace optic
