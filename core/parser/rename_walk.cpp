// Rename walk (rename_walk.h): one mutable visitor over a query's expressions and FROM items.
#include "core/common/names.h"
#include "core/parser/rename_walk.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <vector>

namespace optic {

namespace {

using namespace ast;


struct Target {
  std::string schema;  // lower-case
  std::string home;    // lower-case
  std::string table;   // lower-case
  bool matches(const QualifiedName& n) const {
    return lowerName(n.name) == table && (n.schema.empty() ? home == schema : lowerName(n.schema) == schema);
  }
};

using ExprFn = std::function<bool(Expr&)>;  // applied to every expression node; true = changed

// The lower-cased CTE names visible where a walk stands (a scoped walk keeps it up to date): an
// unqualified FROM name among them is the CTE, not a table.
struct CteScope {
  std::vector<std::string> names;
  bool shadows(const QualifiedName& n) const {
    return n.schema.empty() && std::find(names.begin(), names.end(), lowerName(n.name)) != names.end();
  }
};

void walkSelect(Select& s, const std::function<bool(Select&)>& core, CteScope* scope = nullptr);

bool walkExpr(Expr& e, const ExprFn& fn, const std::function<bool(Select&)>& core, CteScope* scope = nullptr) {
  bool changed = fn(e);
  for (auto& a : e.args) if (a) changed |= walkExpr(*a, fn, core, scope);
  for (auto& w : e.whens) {
    if (w.when) changed |= walkExpr(*w.when, fn, core, scope);
    if (w.then) changed |= walkExpr(*w.then, fn, core, scope);
  }
  if (e.elseExpr) changed |= walkExpr(*e.elseExpr, fn, core, scope);
  if (e.filter) changed |= walkExpr(*e.filter, fn, core, scope);
  for (auto& o : e.orderBy) if (o.expr) changed |= walkExpr(*o.expr, fn, core, scope);
  if (e.window) {
    for (auto& p : e.window->partitionBy) if (p) changed |= walkExpr(*p, fn, core, scope);
    for (auto& o : e.window->orderBy) if (o.expr) changed |= walkExpr(*o.expr, fn, core, scope);
  }
  if (e.select) {
    bool sub = false;
    walkSelect(*e.select, [&](Select& s) {
      bool c = core(s);
      sub |= c;
      return c;
    }, scope);
    changed |= sub;
  }
  return changed;
}

// Every query level (core) of `s`, CTE bodies, compound legs and FROM subqueries included;
// `core` handles one level's own clauses and recurses into expression subqueries itself. With a
// scope, each level runs with the CTE names it sees in it: a CTE body sees the members before it
// (all of them, itself included, under WITH RECURSIVE); the rest of the query sees them all.
void walkSelect(Select& s, const std::function<bool(Select&)>& core, CteScope* scope) {
  size_t mark = scope ? scope->names.size() : 0;
  if (s.with) {
    if (scope && s.with->recursive) for (auto& c : s.with->ctes) scope->names.push_back(lowerName(c.name));
    for (auto& c : s.with->ctes) {
      if (c.select) walkSelect(*c.select, core, scope);
      if (scope && !s.with->recursive) scope->names.push_back(lowerName(c.name));
    }
  }
  if (s.left) walkSelect(*s.left, core, scope);
  if (s.right) walkSelect(*s.right, core, scope);
  std::function<void(FromItem&)> from = [&](FromItem& f) {
    if (f.select) walkSelect(*f.select, core, scope);
    if (f.left) from(*f.left);
    if (f.right) from(*f.right);
  };
  if (s.from) from(*s.from);
  core(s);
  if (scope) scope->names.resize(mark);
}

// The expressions of one query level (not its FROM subqueries, which are levels of their own).
bool eachLevelExpr(Select& s, const ExprFn& fn, const std::function<bool(Select&)>& core, CteScope* scope = nullptr) {
  bool changed = false;
  auto visit = [&](ExprPtr& e) {
    if (e) changed |= walkExpr(*e, fn, core, scope);
  };
  for (auto& rc : s.columns) visit(rc.expr);
  std::function<void(FromItem&)> from = [&](FromItem& f) {
    visit(f.on);
    for (auto& a : f.args) visit(a);
    if (f.left) from(*f.left);
    if (f.right) from(*f.right);
  };
  if (s.from) from(*s.from);
  visit(s.where);
  for (auto& g : s.groupBy) visit(g);
  visit(s.having);
  for (auto& row : s.values) for (auto& v : row) visit(v);
  for (auto& o : s.orderBy) visit(o.expr);
  visit(s.limit);
  visit(s.offset);
  for (auto& d : s.defaults) visit(d.expr);
  return changed;
}

// The qualifier the level's FROM gives the target table ("" when the level does not read it).
std::string qualifierOf(FromItem* f, const Target& t, const CteScope* scope = nullptr) {
  if (!f) return "";
  if (f->kind == FromItem::Kind::kTable && t.matches(f->table) && !(scope && scope->shadows(f->table))) {
    return lowerName(f->alias.empty() ? f->table.name : f->alias);
  }
  std::string q = qualifierOf(f->left.get(), t, scope);
  return q.empty() ? qualifierOf(f->right.get(), t, scope) : q;
}


// Table renames over whatever `root` visits (a query, or the subqueries of an expression).
bool renameTableIn(const std::function<void(const std::function<bool(Select&)>&, const ExprFn&)>& root,
                   const Target& t, const std::string& to) {
  bool changed = false;
  bool bare = false;  // read without an alias somewhere: its name qualifies columns, correlated ones too
  ExprFn none = [](Expr&) { return false; };
  std::function<bool(Select&)> rename = [&](Select& level) {
    std::function<void(FromItem&)> visit = [&](FromItem& f) {
      if (f.kind == FromItem::Kind::kTable && t.matches(f.table)) {
        f.table.name = to;
        bare |= f.alias.empty();
        changed = true;
      }
      if (f.left) visit(*f.left);
      if (f.right) visit(*f.right);
    };
    if (level.from) visit(*level.from);
    eachLevelExpr(level, none, rename);
    return false;
  };
  root(rename, none);
  if (!bare) return changed;
  ExprFn requalify = [&](Expr& e) {
    if (e.kind != ExprKind::kColumn || lowerName(e.table) != t.table) return false;
    e.table = to;
    return true;
  };
  std::function<bool(Select&)> qualifiers = [&](Select& level) {
    for (auto& rc : level.columns) {
      if (rc.kind == ResultColumn::Kind::kTableStar && lowerName(rc.table) == t.table) rc.table = to;
    }
    eachLevelExpr(level, requalify, qualifiers);
    return false;
  };
  root(qualifiers, none);
  return changed;
}

}  // namespace

bool renameTableInSelect(Select& s, const std::string& schema, const std::string& home, const std::string& from,
                         const std::string& to) {
  Target t{lowerName(schema), lowerName(home), lowerName(from)};
  return renameTableIn([&](const std::function<bool(Select&)>& core, const ExprFn&) { walkSelect(s, core); }, t, to);
}

bool renameTableInExpr(Expr& e, const std::string& schema, const std::string& home, const std::string& from,
                       const std::string& to) {
  Target t{lowerName(schema), lowerName(home), lowerName(from)};
  return renameTableIn([&](const std::function<bool(Select&)>& core, const ExprFn& fn) { walkExpr(e, fn, core); }, t, to);
}


namespace {

// Column renames over whatever `root` visits (a query, or the subqueries of an expression).
bool renameColumnIn(const std::function<void(const std::function<bool(Select&)>&)>& root, const Target& t,
                    const std::string& from, const std::string& to) {
  std::string col = lowerName(from);
  bool changed = false;
  std::function<bool(Select&)> core = [&](Select& level) {
    std::string q = qualifierOf(level.from.get(), t);
    if (q.empty()) {
      // The level does not read the table, but its subqueries may.
      return eachLevelExpr(level, [](Expr&) { return false; }, core);
    }
    ExprFn rename = [&](Expr& e) {
      if (e.kind != ExprKind::kColumn || lowerName(e.name) != col) return false;
      if (!e.table.empty() && lowerName(e.table) != q) return false;
      e.name = to;
      return true;
    };
    bool here = eachLevelExpr(level, rename, core);
    for (auto& d : level.defaults) {
      if (lowerName(d.column) == col) {
        d.column = to;
        here = true;
      }
    }
    changed |= here;
    return here;
  };
  root(core);
  return changed;
}

}  // namespace

bool renameColumnInSelect(Select& s, const std::string& schema, const std::string& home, const std::string& table,
                          const std::string& from, const std::string& to) {
  Target t{lowerName(schema), lowerName(home), lowerName(table)};
  return renameColumnIn([&](const std::function<bool(Select&)>& core) { walkSelect(s, core); }, t, from, to);
}

bool renameColumnInExpr(Expr& e, const std::string& schema, const std::string& home, const std::string& table,
                        const std::string& from, const std::string& to) {
  Target t{lowerName(schema), lowerName(home), lowerName(table)};
  ExprFn none = [](Expr&) { return false; };
  return renameColumnIn([&](const std::function<bool(Select&)>& core) { walkExpr(e, none, core); }, t, from, to);
}

namespace {

// Whether a level `root` visits (a query, or the subqueries of an expression) reads the table;
// a CTE that only shadows its name is not it.
bool readsTableIn(const std::function<void(const std::function<bool(Select&)>&, CteScope&)>& root, const Target& t) {
  bool found = false;
  CteScope scope;
  std::function<bool(Select&)> core = [&](Select& level) {
    found |= !qualifierOf(level.from.get(), t, &scope).empty();
    eachLevelExpr(level, [](Expr&) { return false; }, core, &scope);
    return false;
  };
  root(core, scope);
  return found;
}

}  // namespace

bool readsTable(Select& s, const std::string& schema, const std::string& home, const std::string& table) {
  Target t{lowerName(schema), lowerName(home), lowerName(table)};
  return readsTableIn([&](const std::function<bool(Select&)>& core, CteScope& scope) { walkSelect(s, core, &scope); }, t);
}

bool readsTableInExpr(Expr& e, const std::string& schema, const std::string& home, const std::string& table) {
  Target t{lowerName(schema), lowerName(home), lowerName(table)};
  ExprFn none = [](Expr&) { return false; };
  return readsTableIn([&](const std::function<bool(Select&)>& core, CteScope& scope) { walkExpr(e, none, core, &scope); }, t);
}

}  // namespace optic
