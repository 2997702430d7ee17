// Rename propagation into stored query bodies: see rename_propagation.h.
#include "core/ddl/rename_propagation.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/catalog/assertion.h"
#include "core/catalog/canonical_ddl.h"
#include "core/catalog/materialized_view.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/parser/rename_walk.h"

namespace optic {
namespace {

bool same(const std::string& a, const std::string& b) { return lowerName(a) == lowerName(b); }

// The renamed object: a table or view `oldName` of `schema` now called `newName`, or (from
// non-empty) its column `from` now called `to`.
struct Rename {
  std::string schema;
  std::string oldName;
  std::string newName;
  std::string from;
  std::string to;
  bool column() const { return !from.empty(); }
};

// One FROM source of a SELECT core, as name resolution sees it.
struct Source {
  std::string qualifier;  // the alias, else the table name as written
  bool target = false;    // the renamed object
  bool aliased = false;
  std::vector<std::string> columns;  // the names it exposes (other sources; best known)
};

struct Scope {
  std::vector<Source> sources;
  std::vector<const ast::CommonTableExpr*> ctes;
  std::vector<std::string> qualifiers;  // every FROM source's qualifier, taken before the walk
  const Scope* outer = nullptr;
};

// The qualifiers a FROM clause exposes: each source's alias, else a table's name.
void fromQualifiers(const ast::FromItem& f, std::vector<std::string>& out) {
  if (f.kind == ast::FromItem::Kind::kJoin) {
    if (f.left) fromQualifiers(*f.left, out);
    if (f.right) fromQualifiers(*f.right, out);
    return;
  }
  if (!f.alias.empty()) out.push_back(f.alias);
  else if (f.kind == ast::FromItem::Kind::kTable || f.kind == ast::FromItem::Kind::kFunction) out.push_back(f.table.name);
}

// The output names of a query as far as they are syntactically known.
std::vector<std::string> outputNames(const ast::Select& s) {
  if (s.setOp != ast::SetOp::kNone && s.left) return outputNames(*s.left);
  std::vector<std::string> out;
  for (const ast::ResultColumn& rc : s.columns) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) continue;
    if (!rc.alias.empty()) out.push_back(rc.alias);
    else if (rc.expr && rc.expr->kind == ast::ExprKind::kColumn) out.push_back(rc.expr->name);
  }
  return out;
}

class BodyRenamer {
 public:
  BodyRenamer(Catalog& catalog, std::string home, const Rename& rename)
      : catalog_(catalog), home_(std::move(home)), r_(rename) {}

  // Rewrites `s` in place; true when anything changed.
  bool rewrite(ast::Select& s) {
    query(s, nullptr, true);
    return changed_;
  }
  // A top-level output column named `from` now publishes `to` (bare passthrough or star).
  bool shifted() const { return shifted_; }
  // The top-level query reads the renamed object directly.
  bool sawTarget() const { return sawTarget_; }

  void expr(ast::Expr& e, const Scope* scope) {
    if (e.kind == ast::ExprKind::kColumn) column(e, scope);
    for (auto& a : e.args) if (a) expr(*a, scope);
    for (ast::CaseWhen& w : e.whens) {
      expr(*w.when, scope);
      expr(*w.then, scope);
    }
    if (e.elseExpr) expr(*e.elseExpr, scope);
    if (e.filter) expr(*e.filter, scope);
    for (ast::OrderingTerm& o : e.orderBy) expr(*o.expr, scope);
    if (e.window) window(*e.window, scope);
    if (e.select) query(*e.select, scope, false);
  }

 private:
  void window(ast::WindowSpec& w, const Scope* scope) {
    for (auto& p : w.partitionBy) expr(*p, scope);
    for (ast::OrderingTerm& o : w.orderBy) expr(*o.expr, scope);
  }

  void query(ast::Select& s, const Scope* outer, bool top) {
    Scope scope;
    scope.outer = outer;
    if (s.with) {
      for (ast::CommonTableExpr& cte : s.with->ctes) {
        // A member sees the members before it.
        if (cte.select && republishes(*cte.select, &scope) && cte.columns.empty()) reexposing_.insert(&cte);
        scope.ctes.push_back(&cte);
      }
    }
    if (s.setOp != ast::SetOp::kNone) {
      if (s.left) query(*s.left, &scope, top);
      if (s.right) query(*s.right, &scope, false);
      return;
    }
    for (auto& row : s.values) for (auto& v : row) expr(*v, &scope);
    if (s.from) fromQualifiers(*s.from, scope.qualifiers);
    if (s.from) from(*s.from, scope);
    if (s.from) joinConditions(*s.from, scope);
    if (top) for (const Source& src : scope.sources) sawTarget_ |= src.target;
    for (ast::ResultColumn& rc : s.columns) {
      if (rc.kind == ast::ResultColumn::Kind::kExpr) {
        bool bare = rc.alias.empty() && rc.expr->kind == ast::ExprKind::kColumn;
        std::string before = bare ? rc.expr->name : "";
        expr(*rc.expr, &scope);
        if (top && bare && r_.column() && same(before, r_.from) && same(rc.expr->name, r_.to)) shifted_ = true;
      } else if (top && r_.column()) {
        for (const Source& src : scope.sources) {
          if (src.target && (rc.kind == ast::ResultColumn::Kind::kStar || same(rc.table, src.qualifier))) shifted_ = true;
        }
      }
      if (rc.kind == ast::ResultColumn::Kind::kTableStar) tableStar(rc, scope);
    }
    if (s.where) expr(*s.where, &scope);
    for (auto& g : s.groupBy) expr(*g, &scope);
    if (s.having) expr(*s.having, &scope);
    for (auto& [name, w] : s.windows) window(w, &scope);
    for (ast::OrderingTerm& o : s.orderBy) expr(*o.expr, &scope);
  }

  // Rewrites a CTE body; true when it publishes the renamed column under its new name (a bare
  // passthrough or a star over the renamed table): without a column list of its own the CTE
  // then re-exposes the column, and its readers follow the rename too (sql-alter.md).
  bool republishes(ast::Select& body, const Scope* outer) {
    bool shifted = shifted_, saw = sawTarget_;
    shifted_ = false;
    query(body, outer, true);
    bool out = shifted_ && r_.column();
    shifted_ = shifted;
    sawTarget_ = saw;
    return out;
  }

  void tableStar(ast::ResultColumn& rc, const Scope& scope) {
    if (r_.column()) return;
    for (const Source& src : scope.sources) {
      if (src.target && !src.aliased && same(rc.table, src.qualifier)) {
        rc.table = r_.newName;
        changed_ = true;
      }
    }
  }

  void from(ast::FromItem& f, Scope& scope) {
    switch (f.kind) {
      case ast::FromItem::Kind::kTable: tableSource(f, scope); break;
      case ast::FromItem::Kind::kSubquery: {
        query(*f.select, scope.outer, false);
        Source src;
        src.qualifier = f.alias;
        src.aliased = true;
        src.columns = f.columnAliases.empty() ? outputNames(*f.select) : f.columnAliases;
        scope.sources.push_back(std::move(src));
        break;
      }
      case ast::FromItem::Kind::kFunction: {
        for (auto& a : f.args) expr(*a, &scope);
        Source src;
        src.qualifier = f.alias.empty() ? f.table.name : f.alias;
        scope.sources.push_back(std::move(src));
        break;
      }
      case ast::FromItem::Kind::kJoin:
        if (f.left) from(*f.left, scope);
        if (f.right) from(*f.right, scope);
        break;
      case ast::FromItem::Kind::kDml: break;
    }
  }

  // ON and USING see every source of the core (the binder checks the finer visibility).
  void joinConditions(ast::FromItem& f, Scope& scope) {
    if (f.kind != ast::FromItem::Kind::kJoin) return;
    if (f.left) joinConditions(*f.left, scope);
    if (f.right) joinConditions(*f.right, scope);
    if (f.on) expr(*f.on, &scope);
    if (!r_.column()) return;
    bool reachesTarget = false;
    for (const Source& s : scope.sources) reachesTarget |= s.target;
    for (std::string& u : f.usingColumns) {
      if (reachesTarget && same(u, r_.from)) {
        u = r_.to;
        changed_ = true;
      }
    }
  }

  const ast::CommonTableExpr* cte(const std::string& name, const Scope* scope) const {
    for (const Scope* s = scope; s; s = s->outer) {
      for (const ast::CommonTableExpr* c : s->ctes) if (same(c->name, name)) return c;
    }
    return nullptr;
  }

  // The schema an unqualified stored-body name resolves in: its own schema first, then the
  // default path (sql-core.md §7).
  std::vector<std::string> candidateSchemas() const {
    std::vector<std::string> out{home_};
    for (const char* s : {"main", "temp"}) if (home_ != s) out.push_back(s);
    return out;
  }

  bool isTarget(const ast::QualifiedName& n, const Scope& scope) const {
    if (!same(n.name, r_.oldName)) return false;
    if (!n.schema.empty()) return lowerName(n.schema) == r_.schema;
    if (cte(n.name, &scope)) return false;
    for (const std::string& s : candidateSchemas()) {
      if (s == r_.schema) return true;
      if (catalog_.findTable(s, n.name) || catalog_.findView(s, n.name)) return false;
    }
    return false;
  }

  std::vector<std::string> columnsOf(const ast::QualifiedName& n, const Scope& scope) const {
    if (const ast::CommonTableExpr* c = cte(n.name, &scope)) {
      if (!c->columns.empty()) return c->columns;
      return c->select ? outputNames(*c->select) : std::vector<std::string>{};
    }
    std::vector<std::string> schemas = n.schema.empty() ? candidateSchemas() : std::vector<std::string>{lowerName(n.schema)};
    for (const std::string& s : schemas) {
      if (std::shared_ptr<Table> t = catalog_.findTable(s, n.name)) {
        std::vector<std::string> out;
        for (const ColumnSchema& c : t->schema().columns) out.push_back(c.name);
        return out;
      }
      if (auto v = catalog_.findView(s, n.name)) {
        if (!v->columnNames.empty()) return v->columnNames;
        return v->select ? outputNames(*v->select) : std::vector<std::string>{};
      }
    }
    return {};
  }

  // A table renamed onto a name a bare reference of this body already reads elsewhere (the view
  // in schema s reads `k` from main; s.o becomes s.k): the reference is pinned to the schema it
  // read, so the rename does not silently re-bind it.
  void pinShadowed(ast::FromItem& f, const Scope& scope) {
    if (r_.column() || !f.table.schema.empty() || !same(f.table.name, r_.newName) || cte(f.table.name, &scope)) return;
    bool shadows = false;
    for (const std::string& s : candidateSchemas()) {
      if (s == r_.schema) {
        shadows = true;
        continue;
      }
      if (!catalog_.findTable(s, f.table.name) && !catalog_.findView(s, f.table.name)) continue;
      if (shadows) {
        f.table.schema = s;
        changed_ = true;
      }
      return;
    }
  }

  void tableSource(ast::FromItem& f, Scope& scope) {
    pinShadowed(f, scope);
    Source src;
    src.qualifier = f.alias.empty() ? f.table.name : f.alias;
    src.aliased = !f.alias.empty();
    src.target = isTarget(f.table, scope);
    if (f.table.schema.empty()) {
      const ast::CommonTableExpr* c = cte(f.table.name, &scope);
      if (c && reexposing_.count(c)) src.target = true;  // reads the column through the CTE
    }
    if (src.target && !r_.column() && !src.aliased && newNameTaken(scope)) {
      // The new name is a qualifier already (another source, a CTE, an enclosing query's
      // source): the source keeps its old name as an alias, so `t.x` goes on reading it, and a
      // CTE of the new name makes the table name schema-qualified too (sql-alter.md).
      if (cte(r_.newName, &scope)) f.table.schema = r_.schema;
      f.alias = f.table.name;
      src.aliased = true;
      changed_ = true;
    }
    if (src.target && !r_.column()) {
      f.table.name = r_.newName;
      changed_ = true;
    }
    if (!src.target) src.columns = columnsOf(f.table, scope);
    scope.sources.push_back(std::move(src));
  }

  // Whether the renamed table's new name is a qualifier where its source sits.
  bool newNameTaken(const Scope& scope) const {
    if (cte(r_.newName, &scope)) return true;
    for (const Scope* s = &scope; s; s = s->outer) {
      for (const std::string& q : s->qualifiers) if (same(q, r_.newName)) return true;
    }
    return false;
  }

  void column(ast::Expr& e, const Scope* scope) {
    if (!e.table.empty()) {
      for (const Scope* s = scope; s; s = s->outer) {
        for (const Source& src : s->sources) {
          if (!same(src.qualifier, e.table)) continue;
          if (src.target) qualifiedTarget(e, src);
          return;
        }
      }
      return;
    }
    if (!r_.column() || !same(e.name, r_.from)) return;
    for (const Scope* s = scope; s; s = s->outer) {
      for (const Source& src : s->sources) {
        if (src.target) {
          e.name = r_.to;
          changed_ = true;
          return;
        }
      }
      for (const Source& src : s->sources) {
        for (const std::string& c : src.columns) if (same(c, e.name)) return;  // binds there
      }
    }
  }

  void qualifiedTarget(ast::Expr& e, const Source& src) {
    if (r_.column()) {
      if (same(e.name, r_.from)) {
        e.name = r_.to;
        changed_ = true;
      }
    } else if (!src.aliased) {
      e.table = r_.newName;
      if (!e.schema.empty()) e.schema = r_.schema;
      changed_ = true;
    }
  }

  Catalog& catalog_;
  std::string home_;
  const Rename& r_;
  bool changed_ = false;
  bool shifted_ = false;
  bool sawTarget_ = false;
  std::set<const ast::CommonTableExpr*> reexposing_;  // CTEs republishing the renamed column
};

// One dependent body, rewritten on a private copy.
struct Rewritten {
  ast::SelectPtr body;
  std::vector<ast::ViewColumnDefault> defaults;
  bool changed = false;
  bool shifted = false;
  bool defaultsInBody = false;  // the defaults are the body's own trailing clause (table form)
};

Rewritten rewriteBody(Catalog& catalog, const std::string& home, const Rename& r, const ast::Select& body,
                      const std::vector<ast::ViewColumnDefault>* defaults) {
  Rewritten out;
  out.body = ast::clone(body);
  BodyRenamer renamer(catalog, home, r);
  out.changed = renamer.rewrite(*out.body);
  out.shifted = renamer.shifted();
  out.defaultsInBody = defaults == &body.defaults;
  if (defaults) {
    // `with defaults (col = …)` names a column of the body's source: it follows a column
    // rename when the body reads the renamed table.
    bool reads = renamer.sawTarget();
    for (const ast::ViewColumnDefault& d : *defaults) {
      ast::ViewColumnDefault copy;
      copy.column = d.column;
      if (d.expr) copy.expr = ast::clone(*d.expr);
      if (r.column() && reads && same(copy.column, r.from)) {
        copy.column = r.to;
        out.changed = true;
      }
      if (copy.expr) {
        BodyRenamer exprRenamer(catalog, home, r);
        ast::Select holder;
        ast::ResultColumn rc;
        rc.expr = std::move(copy.expr);
        holder.columns.push_back(std::move(rc));
        out.changed |= exprRenamer.rewrite(holder);
        copy.expr = std::move(holder.columns[0].expr);
      }
      out.defaults.push_back(std::move(copy));
    }
  }
  return out;
}

// The AST a rewritten body lives in (kept alive by the view or derivation that points into it).
std::shared_ptr<ast::Statement> holderOf(Rewritten& rw) {
  auto stmt = std::make_shared<ast::Statement>();
  stmt->kind = ast::StatementKind::kCreateView;
  stmt->createView = std::make_unique<ast::CreateView>();
  if (rw.defaultsInBody) rw.body->defaults = std::move(rw.defaults);
  else stmt->createView->defaults = std::move(rw.defaults);
  stmt->createView->select = std::move(rw.body);
  return stmt;
}

const std::vector<ast::ViewColumnDefault>* defaultsIn(const ast::Statement& holder, bool inBody) {
  return inBody ? &holder.createView->select->defaults : &holder.createView->defaults;
}

class Propagation {
 public:
  Propagation(Context& ctx, std::shared_ptr<bool> done) : ctx_(ctx), done_(std::move(done)) {}

  // Rewrites every body `r` reaches; returns the objects whose published names shifted.
  std::vector<Rename> round(const Rename& r, bool dryRun) {
    std::vector<Rename> next;
    Catalog& cat = ctx_.catalog();
    for (const auto& [sname, schema] : cat.schemas()) {
      for (const auto& [key, view] : schema.views) {
        if (!view->select) continue;
        Rewritten rw = rewriteBody(cat, sname, r, *view->select, view->defaults);
        if (!rw.changed && !rw.shifted) continue;
        bool publishes = view->columnNames.empty() && rw.shifted;
        if (publishes) refuseCollision("view", *view, outputNames(*view->select), r);
        if (publishes) next.push_back(Rename{sname, view->name, view->name, r.from, r.to});
        if (dryRun) continue;
        if (rw.changed) replaceView(sname, key, view, rw);
      }
      for (const auto& [key, table] : schema.tables) {
        const TableSchema& ts = table->schema();
        if (!ts.derivation || !ts.derivation->body) continue;
        const MaterializedView& d = *ts.derivation;
        Rewritten rw = rewriteBody(cat, sname, r, *d.body, d.defaults);
        if (!rw.changed && !rw.shifted) continue;
        bool publishes = d.columnNames.empty() && rw.shifted && ts.findColumn(r.from) >= 0;
        if (publishes) {
          std::vector<std::string> names;
          for (const ColumnSchema& c : ts.columns) names.push_back(c.name);
          refuseCollision("materialized view", ts, names, r);
        }
        if (publishes) next.push_back(Rename{sname, ts.name, ts.name, r.from, r.to});
        if (dryRun) continue;
        replaceDerivation(table, rw, publishes ? r : Rename{});
      }
      if (dryRun) continue;
      for (const auto& [key, a] : schema.assertions) {
        if (ast::ExprPtr check = renamedCheck(*a, r)) replaceAssertion(sname, key, a, std::move(check));
      }
    }
    return next;
  }

 private:
  template <typename Object>
  static void refuseCollision(const char* kind, const Object& o, const std::vector<std::string>& names, const Rename& r) {
    for (const std::string& n : names) {
      if (same(n, r.to) && !same(n, r.from)) {
        fail("Cannot rename column '" + r.from + "' to '" + r.to + "': " + kind + " '" + o.name +
             "' republishes it and already publishes a column named '" + r.to + "'");
      }
    }
  }

  void replaceView(const std::string& schema, const std::string& key, std::shared_ptr<const ViewSchema> old,
                   Rewritten& rw) {
    auto next = std::make_shared<ViewSchema>(*old);
    std::shared_ptr<ast::Statement> holder = holderOf(rw);
    next->select = holder->createView->select.get();
    if (old->defaults) next->defaults = defaultsIn(*holder, rw.defaultsInBody);
    next->keepAlive.push_back(holder);
    next->sql = viewDdl(*next);
    install(schema, key, &Schema::views, std::move(old), std::shared_ptr<const ViewSchema>(next));
  }

  // An assertion's body following the rename (resolved under the assertion's own schema), or
  // null when it does not read the renamed object.
  static ast::ExprPtr renamedCheck(const AssertionSchema& a, const Rename& r) {
    if (!a.check) return nullptr;
    ast::ExprPtr copy = parseExpression(printExpr(*a.check));
    bool changed = r.column() ? renameColumnInExpr(*copy, r.schema, a.schemaName, r.oldName, r.from, r.to)
                              : renameTableInExpr(*copy, r.schema, a.schemaName, r.oldName, r.newName);
    return changed ? std::move(copy) : nullptr;
  }

  // The assertion keeps enforcing the same rule against the renamed object (sql-alter.md).
  void replaceAssertion(const std::string& schema, const std::string& key, std::shared_ptr<const AssertionSchema> old,
                        ast::ExprPtr check) {
    auto next = std::make_shared<AssertionSchema>(*old);
    std::shared_ptr<ast::Expr> owner(std::move(check));
    next->check = owner.get();
    next->checkText = printExpr(*owner);
    next->keepAlive.push_back(std::shared_ptr<const ast::Statement>(owner, nullptr));
    install(schema, key, &Schema::assertions, std::move(old), std::shared_ptr<const AssertionSchema>(next));
  }

  // Puts `renamed` in place of `old` under `key` of one of a schema's object maps, undone with
  // the statement. Like the ALTER itself (alter.cpp): a succeeded rename re-applies after a
  // plain rollback.
  template <typename Object>
  void install(const std::string& schema, const std::string& key,
               std::map<std::string, std::shared_ptr<const Object>> Schema::*objects,
               std::shared_ptr<const Object> old, std::shared_ptr<const Object> renamed) {
    Catalog& cat = ctx_.catalog();
    (cat.schema(schema).*objects)[key] = renamed;
    cat.bumpVersion();
    Context* eng = &ctx_;
    std::shared_ptr<bool> done = done_;
    ctx_.txn().recordUndo([eng, schema, key, objects, old, renamed, done] {
      if (Schema* s = eng->catalog().findSchema(schema)) (s->*objects)[key] = old;
      eng->catalog().bumpVersion();
      if (!*done || eng->settings().strictDdlTransactions) return;
      eng->txn().afterRollback([eng, schema, key, objects, renamed] {
        if (Schema* s = eng->catalog().findSchema(schema)) (s->*objects)[key] = renamed;
        eng->catalog().bumpVersion();
      });
    });
  }

  // The derivation gets the rewritten body; a shifted passthrough renames the backing column.
  void replaceDerivation(const std::shared_ptr<Table>& table, Rewritten& rw, const Rename& shift) {
    std::shared_ptr<const TableSchema> old = table->schemaPtr();
    auto next = std::make_shared<TableSchema>(*old);
    auto d = std::make_shared<MaterializedView>(*old->derivation);
    std::shared_ptr<ast::Statement> holder = holderOf(rw);
    d->body = holder->createView->select.get();
    d->bodyText = printSelect(*d->body);
    if (old->derivation->defaults) d->defaults = defaultsIn(*holder, rw.defaultsInBody);
    d->keepAlive.push_back(holder);
    d->sourceSignature.clear();  // re-derived on the next compile of the renamed sources
    next->derivation = d;
    if (shift.column()) {
      int i = next->findColumn(shift.from);
      if (i >= 0) next->columns[i].name = shift.to;
    }
    table->setSchema(next);
    ctx_.catalog().bumpVersion();
    Context* eng = &ctx_;
    std::shared_ptr<bool> done = done_;
    std::shared_ptr<const TableSchema> renamed = next;
    ctx_.txn().recordUndo([eng, table, old, renamed, done] {
      table->setSchema(old);
      eng->catalog().bumpVersion();
      if (!*done || eng->settings().strictDdlTransactions) return;
      eng->txn().afterRollback([eng, table, renamed] {
        table->setSchema(renamed);
        eng->catalog().bumpVersion();
      });
    });
  }

  Context& ctx_;
  std::shared_ptr<bool> done_;
};

std::optional<Rename> renameOf(const TableSchema& oldS, const TableSchema& newS) {
  Rename r{lowerName(oldS.schemaName), oldS.name, newS.name, "", ""};
  if (oldS.name != newS.name) return r;
  for (size_t i = 0; i < oldS.columns.size() && i < newS.columns.size(); ++i) {
    if (oldS.columns[i].name == newS.columns[i].name) continue;
    r.from = oldS.columns[i].name;
    r.to = newS.columns[i].name;
    return r;
  }
  return std::nullopt;
}

// The stored expressions of tables (DEFAULT, CHECK, generated) whose subqueries name a renamed
// table or column follow the rename (a CHECK such as `code in (select code from lookup)` keeps
// checking, deferred checks parked before the rename included).
const ast::Expr* renamedExpr(TableSchema& t, const ast::Expr* e, const Rename& r) {
  if (!e) return nullptr;
  ast::ExprPtr copy = parseExpression(printExpr(*e));
  bool changed = r.column() ? renameColumnInExpr(*copy, r.schema, t.schemaName, r.oldName, r.from, r.to)
                            : renameTableInExpr(*copy, r.schema, t.schemaName, r.oldName, r.newName);
  if (!changed) return nullptr;
  std::shared_ptr<ast::Expr> owner(std::move(copy));
  t.keepAlive.push_back(std::shared_ptr<const ast::Statement>(owner, nullptr));
  return owner.get();
}

void renameInTableExpressions(Context& ctx, const Rename& r, const std::shared_ptr<bool>& done) {
  for (const auto& [schemaName, schema] : ctx.catalog().schemas()) {
    for (const auto& [key, table] : schema.tables) {
      auto next = std::make_shared<TableSchema>(table->schema());
      bool changed = false;
      auto follow = [&](const ast::Expr*& e) {
        if (const ast::Expr* renamed = renamedExpr(*next, e, r)) {
          e = renamed;
          changed = true;
        }
      };
      for (ColumnSchema& c : next->columns) {
        follow(c.defaultExpr);
        follow(c.generated);
      }
      for (CheckConstraint& ck : next->checks) {
        const ast::Expr* before = ck.expr;
        follow(ck.expr);
        if (ck.expr != before) ck.exprText = printExpr(*ck.expr);
      }
      if (!changed) continue;
      std::shared_ptr<const TableSchema> old = table->schemaPtr();
      std::shared_ptr<Table> t = table;
      t->setSchema(next);
      ctx.catalog().bumpVersion();
      Context* eng = &ctx;
      ctx.txn().recordUndo([eng, t, old, done] {
        if (*done && !eng->settings().strictDdlTransactions) return;
        t->setSchema(old);
        eng->catalog().bumpVersion();
      });
    }
  }
}

// Bounded: each round moves one level out along the dependency graph, which has no cycles.
constexpr int kMaxRounds = 64;

}  // namespace

std::vector<Republisher> republishersOf(Context& ctx, const TableSchema& table, const std::string& column) {
  // A dry run of renaming the column to a name no body can hold: the objects whose published
  // names would shift are the republishers, level by level.
  const std::string probe = std::string("\x01") + column;
  Propagation p(ctx, std::make_shared<bool>(false));
  std::vector<Republisher> out;
  std::vector<Rename> pending{Rename{lowerName(table.schemaName), table.name, table.name, column, probe}};
  for (int round = 0; !pending.empty() && round < kMaxRounds; ++round) {
    std::vector<Rename> next;
    for (const Rename& each : pending) {
      for (Rename& r : p.round(each, true)) {
        bool seen = std::any_of(out.begin(), out.end(), [&](const Republisher& o) {
          return o.schema == r.schema && same(o.name, r.oldName);
        });
        if (seen) continue;
        out.push_back(Republisher{r.schema, r.oldName});
        next.push_back(std::move(r));
      }
    }
    pending = std::move(next);
  }
  return out;
}

void checkRenamePropagation(Context& ctx, const TableSchema& oldS, const TableSchema& newS) {
  std::optional<Rename> r = renameOf(oldS, newS);
  if (!r || !r->column()) return;
  // Before the ALTER installs, the target still has its old column: resolution is the same.
  Propagation(ctx, std::make_shared<bool>(false)).round(*r, true);
}

void propagateRename(Context& ctx, const TableSchema& oldS, const TableSchema& newS,
                     const std::shared_ptr<bool>& done) {
  std::optional<Rename> r = renameOf(oldS, newS);
  if (!r) return;
  renameInTableExpressions(ctx, *r, done);
  Propagation p(ctx, done);
  std::vector<Rename> pending{*r};
  for (int round = 0; !pending.empty() && round < kMaxRounds; ++round) {
    std::vector<Rename> next;
    for (const Rename& each : pending) {
      std::vector<Rename> more = p.round(each, false);
      next.insert(next.end(), more.begin(), more.end());
    }
    pending = std::move(next);
  }
}

}  // namespace optic
