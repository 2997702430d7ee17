// Drop guard (drop_guard.h).
#include "core/ddl/drop_guard.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "core/catalog/assertion.h"
#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/ddl/rename_propagation.h"
#include "core/ddl/table_builder.h"
#include "core/execution/context.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/parser/rename_walk.h"

namespace optic {
namespace {

// A view or materialized view: a body other bodies and expressions may read through.
struct Derived {
  std::string schema;
  std::string name;
  const char* kind;  // "view" | "materialized view"
  const ast::Select* body;
};

std::vector<Derived> derivedRelations(const Catalog& cat) {
  std::vector<Derived> out;
  for (const auto& [schemaName, schema] : cat.schemas()) {
    for (const auto& [key, v] : schema.views) {
      if (v->select) out.push_back({schemaName, v->name, "view", v->select});
    }
    for (const auto& [key, t] : schema.tables) {
      const auto& d = t->schema().derivation;
      if (d && d->body) out.push_back({schemaName, t->schema().name, "materialized view", d->body});
    }
  }
  return out;
}

bool bodyReads(const Derived& d, const std::string& schema, const std::string& name) {
  return readsTable(const_cast<ast::Select&>(*d.body), schema, d.schema, name);
}

bool exprReads(const ast::Expr& e, const std::string& home, const std::string& schema, const std::string& name) {
  return readsTableInExpr(const_cast<ast::Expr&>(e), schema, home, name);
}

std::string tableLabel(const TableSchema& t) {
  return t.schemaName == "main" ? t.name : t.schemaName + "." + t.name;
}

// How a stored expression reaches one object (a table, view or materialized view): directly,
// or through a chain of view bodies.
class Reach {
 public:
  Reach(Context& ctx, const std::string& schema, const std::string& name)
      : all_(derivedRelations(ctx.catalog())), schema_(schema), name_(name) {}

  // "" when `expr` (binding in `home`) names the object in one of its subqueries; else the
  // views it reaches it through ("view 'v2' -> view 'v1'", outermost first), or nullopt.
  std::optional<std::string> path(const ast::Expr& expr, const std::string& home) const {
    if (exprReads(expr, home, schema_, name_)) return std::string();
    for (size_t d = 0; d < all_.size(); ++d) {
      if (isObject(all_[d]) || !exprReads(expr, home, all_[d].schema, all_[d].name)) continue;
      std::vector<size_t> chain;
      std::vector<bool> seen(all_.size(), false);
      for (size_t i = 0; i < all_.size(); ++i) seen[i] = isObject(all_[i]);
      if (!through(d, chain, seen)) continue;
      std::string out;
      for (size_t i : chain) out += (out.empty() ? "" : " -> ") + std::string(all_[i].kind) + " '" + all_[i].name + "'";
      return out;
    }
    return std::nullopt;
  }

 private:
  bool isObject(const Derived& d) const { return d.schema == schema_ && lowerName(d.name) == lowerName(name_); }

  // Extends `chain` from relation `at` down to one whose body reads the object.
  bool through(size_t at, std::vector<size_t>& chain, std::vector<bool>& seen) const {
    seen[at] = true;
    chain.push_back(at);
    if (bodyReads(all_[at], schema_, name_)) return true;
    for (size_t next = 0; next < all_.size(); ++next) {
      if (!seen[next] && bodyReads(all_[at], all_[next].schema, all_[next].name) && through(next, chain, seen)) {
        return true;
      }
    }
    chain.pop_back();
    return false;
  }

  std::vector<Derived> all_;
  std::string schema_;
  std::string name_;
};

// Calls `fn(table, expr, what)` for every stored expression of every table: each CHECK, column
// DEFAULT and GENERATED body, `what` naming it ("CHECK constraint 'ck' on table 't'"; the table
// is left out of the name when `fn` says it is the altered one).
void forEachStoredExpression(Context& ctx, const std::function<bool(const TableSchema&)>& isAltered,
                             const std::function<void(const TableSchema&, const ast::Expr&, const std::string&)>& fn) {
  for (const auto& [schemaName, s] : ctx.catalog().schemas()) {
    for (const auto& [key, table] : s.tables) {
      const TableSchema& t = table->schema();
      std::string on = isAltered(t) ? "" : " on table '" + tableLabel(t) + "'";
      for (const CheckConstraint& ck : t.checks) {
        if (!ck.expr) continue;
        fn(t, *ck.expr, hasMintedName(ck) ? "the CHECK constraint (" + ck.exprText + ")" + on
                                          : "CHECK constraint '" + ck.name + "'" + on);
      }
      for (const ColumnSchema& c : t.columns) {
        if (c.defaultExpr) fn(t, *c.defaultExpr, "the DEFAULT of column '" + c.name + "'" + on);
        if (c.generated) fn(t, *c.generated, "the GENERATED expression of column '" + c.name + "'" + on);
      }
    }
  }
}

// Calls `fn(assertion)` for every assertion of every schema.
void forEachAssertion(Context& ctx, const std::function<void(const AssertionSchema&)>& fn) {
  for (const auto& [schemaName, schema] : ctx.catalog().schemas()) {
    for (const auto& [key, a] : schema.assertions) {
      if (a->check) fn(*a);
    }
  }
}

// "it is referenced by <what>" or "<what> reaches it through <path> — drop or redefine it first".
std::string reason(const std::string& what, const std::string& path) {
  if (path.empty()) return "it is referenced by " + what;
  return what + " reaches it through " + path + " — drop or redefine it first";
}

}  // namespace

void rejectExpressionDependents(Context& ctx, const std::string& kind, const std::string& schema,
                                const std::string& name) {
  Reach reach(ctx, schema, name);
  auto isDropped = [&](const TableSchema& t) { return t.schemaName == schema && lowerName(t.name) == lowerName(name); };
  forEachStoredExpression(ctx, isDropped, [&](const TableSchema& t, const ast::Expr& e, const std::string& what) {
    if (isDropped(t)) return;  // its expressions go with it
    if (auto path = reach.path(e, t.schemaName)) {
      fail("cannot drop " + kind + " '" + schema + "." + name + "': " + reason(what, *path));
    }
  });
  forEachAssertion(ctx, [&](const AssertionSchema& a) {
    if (auto path = reach.path(*a.check, a.schemaName)) {
      fail("cannot drop " + kind + " '" + schema + "." + name + "': " +
           reason("assertion '" + assertionDisplayName(a) + "'", *path));
    }
  });
}

namespace {

// Whether a query's own select list stars over `table` (`*`, or `t.*`, with t read).
bool starsOver(const ast::Select& s, const std::string& home, const TableSchema& table) {
  if (s.setOp != ast::SetOp::kNone) {
    return (s.left && starsOver(*s.left, home, table)) || (s.right && starsOver(*s.right, home, table));
  }
  bool star = std::any_of(s.columns.begin(), s.columns.end(), [](const ast::ResultColumn& rc) {
    return rc.kind != ast::ResultColumn::Kind::kExpr;
  });
  return star && readsTable(const_cast<ast::Select&>(s), table.schemaName, home, table.name);
}

// A view whose column list pins its names over a star of the table (`create view v(a, b) as
// select * from t`) is positional: dropping any starred-over column changes the body's arity
// and breaks the view outright, so a rule reaching the view at all refuses.
void rejectPositionalDependents(Context& ctx, const TableSchema& altered, const std::string& why) {
  for (const auto& [schemaName, schema] : ctx.catalog().schemas()) {
    for (const auto& [key, v] : schema.views) {
      if (v->columnNames.empty() || !v->select || !starsOver(*v->select, schemaName, altered)) continue;
      Reach reach(ctx, schemaName, v->name);
      std::string breaks = " reads view '" + v->name + "', whose column list is positional over a star of the table — "
                           "dropping the column breaks it outright";
      forEachStoredExpression(ctx, [&](const TableSchema& t) { return &t == &altered; },
                              [&](const TableSchema& t, const ast::Expr& e, const std::string& what) {
                                if (reach.path(e, t.schemaName)) fail(why + what + breaks);
                              });
      forEachAssertion(ctx, [&](const AssertionSchema& a) {
        if (reach.path(*a.check, a.schemaName)) fail(why + "assertion '" + assertionDisplayName(a) + "'" + breaks);
      });
    }
  }
}

}  // namespace

void rejectColumnDependents(Context& ctx, const Table& table, int column, const std::string& why) {
  const TableSchema& altered = table.schema();
  rejectPositionalDependents(ctx, altered, why);
  Reach reach(ctx, altered.schemaName, altered.name);
  auto isAltered = [&](const TableSchema& t) { return &t == &altered; };
  // Only a subquery that names the column counts (a `select *` names none); the path says how
  // it gets to the table. Expressions of the altered table reading its own row were checked by
  // name already; here they count only through a subquery.
  // A view or materialized view republishing the column (a passthrough or a star) carries it
  // too: a subquery naming the column of one of them reads it (the reference's republication
  // targets: exactly the references a RENAME COLUMN would rewrite).
  std::vector<Republisher> carriers = republishersOf(ctx, altered, altered.columns[column].name);
  auto readsCarrier = [&](const std::string& home, const ast::Expr& e) {
    for (const Republisher& r : carriers) {
      ast::ExprPtr copy = parseExpression(printExpr(e));
      if (renameColumnInExpr(*copy, r.schema, home, r.name, altered.columns[column].name, "\x01")) return true;
    }
    return false;
  };
  auto reads = [&](const TableSchema& owner, const ast::Expr& e) {
    return subqueryReadsColumn(ctx, owner, e, table, column, /*starReads=*/false) || readsCarrier(owner.schemaName, e);
  };
  forEachStoredExpression(ctx, isAltered, [&](const TableSchema& t, const ast::Expr& e, const std::string& what) {
    if (!reads(t, e)) return;
    std::optional<std::string> path = reach.path(e, t.schemaName);
    fail(why + reason(what, path.value_or("")));
  });
  TableSchema noRow;  // an assertion body has no row of its own
  forEachAssertion(ctx, [&](const AssertionSchema& a) {
    noRow.schemaName = a.schemaName;
    if (!reads(noRow, *a.check)) return;
    std::optional<std::string> path = reach.path(*a.check, a.schemaName);
    std::string through = path && !path->empty() ? " through " + *path : "";
    fail(why + "it is referenced by assertion '" + assertionDisplayName(a) + "'" + through);
  });
}

void rejectReferencingRows(Context& ctx, const Table& parent) {
  if (!ctx.settings().foreignKeys) return;
  const TableSchema& p = parent.schema();
  for (const auto& [schemaName, s] : ctx.catalog().schemas()) {
    for (const auto& [key, child] : s.tables) {
      if (child.get() == &parent) continue;
      for (const ForeignKey& fk : child->schema().foreignKeys) {
        if (fk.parentSchema != p.schemaName || lowerName(fk.parentTable) != lowerName(p.name)) continue;
        auto referencing = [&](const Row& r) {
          return std::none_of(fk.columns.begin(), fk.columns.end(), [&](int c) { return r[c].isNull(); });
        };
        std::vector<Row> rows = readRows(*child);
        if (std::any_of(rows.begin(), rows.end(), referencing)) {
          throw Error(ErrorCode::kConstraint, "FOREIGN KEY constraint failed: cannot drop table '" + p.name +
                                                  "' because table '" + child->schema().name +
                                                  "' still has rows referencing it");
        }
      }
    }
  }
}

}  // namespace optic
