// Drop guard (drop_guard.h).
#include "core/catalog/drop_guard.h"

#include <vector>

#include "core/api/engine.h"
#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/catalog/table_builder.h"
#include "core/common/error.h"
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

// Extends `chain` (outermost first) from relation `at` down to one whose body reads the object.
bool reachesThrough(const std::vector<Derived>& all, size_t at, const std::string& schema, const std::string& name,
                    std::vector<size_t>& chain, std::vector<bool>& seen) {
  seen[at] = true;
  chain.push_back(at);
  if (bodyReads(all[at], schema, name)) return true;
  for (size_t next = 0; next < all.size(); ++next) {
    if (!seen[next] && bodyReads(all[at], all[next].schema, all[next].name) &&
        reachesThrough(all, next, schema, name, chain, seen)) {
      return true;
    }
  }
  chain.pop_back();
  return false;
}

class Guard {
 public:
  Guard(Engine& engine, const std::string& kind, const std::string& schema, const std::string& name)
      : all_(derivedRelations(engine.catalog())), kind_(kind), schema_(schema), name_(name) {}

  // Refuses when `expr` (stored on `table`, described as `what`) reaches the object.
  void check(const TableSchema& table, const ast::Expr& expr, const std::string& what) const {
    auto& e = const_cast<ast::Expr&>(expr);
    if (readsTableInExpr(e, schema_, table.schemaName, name_)) {
      refuse("it is referenced by " + what);
    }
    for (size_t d = 0; d < all_.size(); ++d) {
      if (sameObject(all_[d]) || !readsTableInExpr(e, all_[d].schema, table.schemaName, all_[d].name)) continue;
      std::vector<size_t> chain;
      std::vector<bool> seen(all_.size(), false);
      for (size_t i = 0; i < all_.size(); ++i) seen[i] = sameObject(all_[i]);
      if (!reachesThrough(all_, d, schema_, name_, chain, seen)) continue;
      std::string path;
      for (size_t i : chain) path += (path.empty() ? "" : " -> ") + std::string(all_[i].kind) + " '" + all_[i].name + "'";
      refuse(what + " reaches it through " + path + " — drop or redefine it first");
    }
  }

 private:
  bool sameObject(const Derived& d) const { return d.schema == schema_ && lowerName(d.name) == lowerName(name_); }

  [[noreturn]] void refuse(const std::string& why) const {
    fail("cannot drop " + kind_ + " '" + schema_ + "." + name_ + "': " + why);
  }

  std::vector<Derived> all_;
  std::string kind_;
  std::string schema_;
  std::string name_;
};

std::string tableLabel(const TableSchema& t) {
  return t.schemaName == "main" ? t.name : t.schemaName + "." + t.name;
}

}  // namespace

void rejectExpressionDependents(Engine& engine, const std::string& kind, const std::string& schema,
                                const std::string& name) {
  Guard guard(engine, kind, schema, name);
  for (const auto& [schemaName, s] : engine.catalog().schemas()) {
    for (const auto& [key, table] : s.tables) {
      const TableSchema& t = table->schema();
      if (t.schemaName == schema && lowerName(t.name) == lowerName(name)) continue;  // goes with it
      std::string on = " on table '" + tableLabel(t) + "'";
      for (const CheckConstraint& ck : t.checks) {
        if (!ck.expr) continue;
        guard.check(t, *ck.expr, hasMintedName(ck) ? "the CHECK constraint (" + ck.exprText + ")" + on
                                                   : "CHECK constraint '" + ck.name + "'" + on);
      }
      for (const ColumnSchema& c : t.columns) {
        if (c.defaultExpr) guard.check(t, *c.defaultExpr, "the DEFAULT of column '" + c.name + "'" + on);
        if (c.generated) guard.check(t, *c.generated, "the GENERATED expression of column '" + c.name + "'" + on);
      }
    }
  }
}

}  // namespace optic
