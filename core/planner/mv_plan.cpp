// Materialized-view eligibility, shape and strategy (mv_plan.h).
//
// Key inference works on the AST: every relation (table, view, CTE, subquery, join) is described
// as a list of columns, each traced to a base-table column when it is a passthrough, plus the
// column sets that are provably unique in it. The binder gives the output names and types; this
// file adds keys, nullability and the strategy.
#include "core/planner/mv_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/common/error.h"
#include "core/common/key_codec.h"
#include "core/execution/context.h"
#include "core/execution/determinism.h"
#include "core/execution/operator.h"
#include "core/parser/ast_clone.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"
#include "core/planner/predicates.h"

namespace optic {
namespace {

struct RelColumn {
  std::string qualifier;  // lower-case
  std::string name;       // lower-case
  std::string table;      // "schema.table" of a base-table passthrough, "" otherwise
  int column = -1;
  bool notNull = false;
  bool coarsened = false;  // a key passthrough under a weaker collation (`handle collate nocase`)
};

struct Relation {
  std::vector<RelColumn> columns;
  std::vector<std::vector<int>> keys;  // each a set of column indices
  bool known = true;                   // false: the column list could not be traced
};

using CteMap = std::map<std::string, const ast::CommonTableExpr*>;

class KeyAnalyser {
 public:
  KeyAnalyser(Context& ctx, std::string home) : ctx_(ctx), binder_(ctx) {
    binder_.setHomeSchema(std::move(home));
  }

  Relation select(const ast::Select& s, CteMap ctes, int depth = 0) {
    if (depth > 32) return unknown();
    if (s.with) {
      for (const ast::CommonTableExpr& cte : s.with->ctes) {
        if (s.with->recursive) recursiveCtes_.insert(lowerName(cte.name));
        ctes[lowerName(cte.name)] = &cte;
      }
    }
    if (s.setOp != ast::SetOp::kNone) {
      Relation l = select(*s.left, ctes, depth + 1);
      Relation r = select(*s.right, ctes, depth + 1);
      Relation out;
      out.known = l.known;
      for (RelColumn c : l.columns) {
        c.table.clear();
        c.notNull = false;
        out.columns.push_back(c);
      }
      if (s.setOp == ast::SetOp::kUnionAll) return out;  // a bag
      std::vector<int> all;
      for (size_t i = 0; i < out.columns.size(); ++i) all.push_back(static_cast<int>(i));
      out.keys.push_back(all);
      return out;
    }
    if (!s.values.empty()) return unknown();
    Relation from = s.from ? fromItem(*s.from, ctes, depth) : Relation{};
    Relation out;
    std::vector<int> passthrough;  // per output: index into from.columns, -1 when computed
    bool hasAggregate = false;
    for (const ast::ResultColumn& rc : s.columns) {
      if (rc.kind != ast::ResultColumn::Kind::kExpr) {
        std::string q = lowerName(rc.table);
        if (!from.known) return unknown();
        for (size_t i = 0; i < from.columns.size(); ++i) {
          if (rc.kind == ast::ResultColumn::Kind::kTableStar && from.columns[i].qualifier != q) continue;
          out.columns.push_back(from.columns[i]);
          passthrough.push_back(static_cast<int>(i));
        }
        continue;
      }
      if (containsAggregate(*rc.expr)) hasAggregate = true;
      int src = columnRef(*rc.expr, from);
      RelColumn c;
      c.name = lowerName(rc.alias);
      if (src >= 0) {
        c = from.columns[src];
        if (!rc.alias.empty()) c.name = lowerName(rc.alias);
        c.qualifier.clear();
        if (rc.expr->kind == ast::ExprKind::kCollate && lowerName(rc.expr->name) != "binary") c.coarsened = true;
      } else {
        c.notNull = provablyNotNull(*rc.expr, from);
      }
      out.columns.push_back(c);
      passthrough.push_back(src);
    }
    out.known = from.known || s.from == nullptr;
    auto outputOf = [&](int fromCol) {
      for (size_t i = 0; i < passthrough.size(); ++i) if (passthrough[i] == fromCol) return static_cast<int>(i);
      return -1;
    };
    if (!s.groupBy.empty()) {
      std::vector<int> key;
      for (const auto& g : s.groupBy) {
        int col = columnRef(*g, from);
        int o = col >= 0 ? outputOf(col) : -1;
        if (o < 0) {
          std::string text = printExpr(*g);
          for (size_t i = 0; i < s.columns.size() && o < 0; ++i) {
            const ast::ResultColumn& rc = s.columns[i];
            if (rc.kind == ast::ResultColumn::Kind::kExpr && printExpr(*rc.expr) == text) o = static_cast<int>(i);
          }
        }
        if (o < 0) return out;  // a group column not projected: no provable key
        if (std::find(key.begin(), key.end(), o) == key.end()) key.push_back(o);
      }
      out.keys.push_back(key);
      return out;
    }
    if (hasAggregate) {
      out.keys.push_back({});
      return out;
    }
    if (s.distinct) {
      std::vector<int> all;
      for (size_t i = 0; i < out.columns.size(); ++i) all.push_back(static_cast<int>(i));
      out.keys.push_back(all);
      return out;
    }
    for (const std::vector<int>& k : from.keys) {
      std::vector<int> mapped;
      for (int c : k) {
        int o = outputOf(c);
        if (o < 0) break;
        mapped.push_back(o);
      }
      if (mapped.size() == k.size()) out.keys.push_back(mapped);
    }
    return out;
  }

  bool containsAggregate(const ast::Expr& e) const {
    if (e.kind == ast::ExprKind::kFunction && !e.window && isAggregateCall(e, ctx_)) return true;
    for (const auto& a : e.args) if (a && containsAggregate(*a)) return true;
    for (const auto& w : e.whens) if (containsAggregate(*w.when) || containsAggregate(*w.then)) return true;
    return e.elseExpr && containsAggregate(*e.elseExpr);
  }

  // The from column a (possibly COLLATE-wrapped) column reference names, -1 otherwise.
  static int columnRef(const ast::Expr& e0, const Relation& from) {
    const ast::Expr* e = &e0;
    while (e->kind == ast::ExprKind::kCollate) e = e->args[0].get();
    if (e->kind != ast::ExprKind::kColumn) return -1;
    std::string q = lowerName(e->table), n = lowerName(e->name);
    int found = -1;
    for (size_t i = 0; i < from.columns.size(); ++i) {
      if (from.columns[i].name != n || (!q.empty() && from.columns[i].qualifier != q)) continue;
      if (found >= 0) return -1;  // ambiguous
      found = static_cast<int>(i);
    }
    return found;
  }

  bool provablyNotNull(const ast::Expr& e, const Relation& from) const {
    if (e.kind == ast::ExprKind::kLiteral) return !e.value.isNull();
    if (e.kind == ast::ExprKind::kFunction && !e.window) {
      std::string n = lowerName(e.name);
      if (n == "count" || n == "total") return true;
      // A scalar the reference declares not nullable (abs, length, upper, …; notNullResult).
      const ScalarFunction* fn = ctx_.functions().findScalar(n, e.star ? 0 : static_cast<int>(e.args.size()));
      if (fn && fn->notNullResult) return true;
    }
    if (e.kind == ast::ExprKind::kCollate) {
      int c = columnRef(e, from);
      return c >= 0 && from.columns[c].notNull;
    }
    return false;
  }

  Relation fromItem(const ast::FromItem& item, const CteMap& ctes, int depth) {
    using K = ast::FromItem::Kind;
    switch (item.kind) {
      case K::kTable: {
        std::string q = lowerName(item.alias.empty() ? item.table.name : item.alias);
        std::string lname = lowerName(item.table.name);
        if (item.table.schema.empty()) {
          auto it = ctes.find(lname);
          if (it != ctes.end()) {
            if (!it->second->select) return unknown();
            if (recursiveCtes_.count(lname)) {
              // A recursive CTE is a set only as a distinct UNION: then its whole row is a key.
              const ast::Select& body = *it->second->select;
              if (body.setOp != ast::SetOp::kUnion || !body.left || inRecursion_.count(lname)) return unknown();
              inRecursion_.insert(lname);
              Relation anchor = select(*body.left, ctes, depth + 1);
              inRecursion_.erase(lname);
              Relation r;
              r.known = anchor.known;
              for (RelColumn c : anchor.columns) {
                c.table.clear();
                c.notNull = false;
                r.columns.push_back(c);
              }
              std::vector<int> all;
              for (size_t i = 0; i < r.columns.size(); ++i) all.push_back(static_cast<int>(i));
              r.keys.push_back(all);
              return requalify(std::move(r), q, it->second->columns);
            }
            Relation r = select(*it->second->select, ctes, depth + 1);
            return requalify(std::move(r), q, it->second->columns);
          }
        }
        Catalog& cat = ctx_.catalog();
        std::string schema = binder_.resolveTableSchema(item.table);
        if (auto view = cat.findView(schema, item.table.name)) {
          Relation r = select(*view->select, {}, depth + 1);
          return requalify(std::move(r), q, view->columnNames);
        }
        std::shared_ptr<Table> t = cat.findTable(schema, item.table.name);
        if (!t) return unknown();
        const TableSchema& ts = t->schema();
        Relation r;
        for (size_t i = 0; i < ts.columns.size(); ++i) {
          r.columns.push_back({q, lowerName(ts.columns[i].name), schema + "." + lowerName(ts.name), static_cast<int>(i),
                               ts.columns[i].notNull});
        }
        std::vector<int> pk;
        for (const KeyColumn& k : ts.primaryKey) pk.push_back(k.column);
        r.keys.push_back(pk);
        for (const IndexSchema& ix : ts.indexes) {
          if (!ix.unique || ix.where || !keyRules().sourceUniqueIndexes) continue;
          std::vector<int> k;
          bool notNull = true;
          for (const KeyColumn& c : ix.columns) {
            k.push_back(c.column);
            notNull = notNull && ts.columns[c.column].notNull;
          }
          if (notNull) r.keys.push_back(k);
        }
        return r;
      }
      case K::kSubquery: {
        Relation r = select(*item.select, ctes, depth + 1);
        return requalify(std::move(r), lowerName(item.alias), item.columnAliases);
      }
      case K::kJoin:
        return join(item, ctes, depth);
      case K::kFunction:
        return tableFunction(item);
      default:
        return unknown();
    }
  }

  // A table-valued function's rows per call are keyed by its ordinal-like column: the values
  // of generate_series, the node id of json_each / json_tree. Laterally joined, the key is
  // (the driving row's key, that column).
  Relation tableFunction(const ast::FromItem& item) const {
    const TableFunction* fn = ctx_.functions().findTable(item.table.name);
    if (!fn) return unknown();
    Relation r;
    std::string q = lowerName(item.alias.empty() ? item.table.name : item.alias);
    for (size_t i = 0; i < fn->columns.size(); ++i) {
      std::string name = i < item.columnAliases.size() ? item.columnAliases[i] : fn->columns[i];
      r.columns.push_back({q, lowerName(name), "", -1, false});
    }
    std::string n = lowerName(fn->name);
    const char* keyColumn = n == "generate_series" ? "value" : (n == "json_each" || n == "json_tree") ? "id" : nullptr;
    for (size_t i = 0; keyColumn && i < fn->columns.size(); ++i) {
      if (fn->columns[i] == keyColumn) {
        r.columns[i].notNull = true;
        r.keys.push_back({static_cast<int>(i)});
      }
    }
    return r;
  }

  Relation join(const ast::FromItem& item, const CteMap& ctes, int depth) {
    Relation l = fromItem(*item.left, ctes, depth);
    Relation r = fromItem(*item.right, ctes, depth);
    Relation out;
    out.known = l.known && r.known;
    bool leftNullable = item.joinType == ast::JoinType::kRight || item.joinType == ast::JoinType::kFull;
    bool rightNullable = item.joinType == ast::JoinType::kLeft || item.joinType == ast::JoinType::kFull;
    for (RelColumn c : l.columns) {
      if (leftNullable) c.notNull = false;
      out.columns.push_back(c);
    }
    for (RelColumn c : r.columns) {
      if (rightNullable) c.notNull = false;
      out.columns.push_back(c);
    }
    int lw = static_cast<int>(l.columns.size());
    // Equalities of the ON clause / USING list: pairs (left column, right column).
    std::vector<std::pair<int, int>> eq;
    if (!item.usingColumns.empty()) {
      for (const std::string& u : item.usingColumns) {
        int a = -1, b = -1;
        for (int i = 0; i < lw; ++i) if (l.columns[i].name == lowerName(u)) a = i;
        for (size_t i = 0; i < r.columns.size(); ++i) if (r.columns[i].name == lowerName(u)) b = static_cast<int>(i);
        if (a >= 0 && b >= 0) eq.emplace_back(a, b);
      }
    } else if (item.on) {
      for (const ast::Expr* c : conjunctsOf(item.on.get())) {
        if (!isEquality(*c)) continue;
        int a = columnRef(*c->args[0], l), b = columnRef(*c->args[1], r);
        if (a < 0 || b < 0) {
          a = columnRef(*c->args[1], l);
          b = columnRef(*c->args[0], r);
        }
        if (a >= 0 && b >= 0) eq.emplace_back(a, b);
      }
    }
    auto covered = [&](const std::vector<int>& key, bool rightSide) {
      for (int k : key) {
        bool hit = std::any_of(eq.begin(), eq.end(), [&](auto& p) { return (rightSide ? p.second : p.first) == k; });
        if (!hit) return false;
      }
      return true;
    };
    bool rightDetermined = std::any_of(r.keys.begin(), r.keys.end(), [&](auto& k) { return covered(k, true); });
    bool leftDetermined = std::any_of(l.keys.begin(), l.keys.end(), [&](auto& k) { return covered(k, false); });
    if (rightDetermined && !leftNullable) out.keys.insert(out.keys.end(), l.keys.begin(), l.keys.end());
    if (leftDetermined && !rightNullable) {
      for (auto k : r.keys) {
        for (int& c : k) c += lw;
        out.keys.push_back(k);
      }
    }
    if (!l.keys.empty() && !r.keys.empty()) {
      std::vector<int> k = l.keys[0];
      for (int c : r.keys[0]) k.push_back(c + lw);
      out.keys.push_back(k);
    }
    return out;
  }


  static Relation requalify(Relation r, const std::string& q, const std::vector<std::string>& names) {
    for (size_t i = 0; i < r.columns.size(); ++i) {
      r.columns[i].qualifier = q;
      if (i < names.size()) r.columns[i].name = lowerName(names[i]);
    }
    return r;
  }

  static Relation unknown() {
    Relation r;
    r.known = false;
    return r;
  }

 private:
  Context& ctx_;
  Binder binder_;
  std::set<std::string> recursiveCtes_;
  std::set<std::string> inRecursion_;
};

// Every base table the body reads (views expanded), with the qualifier of each FROM reference.
class SourceCollector {
 public:
  SourceCollector(Context& ctx, std::string home) : ctx_(ctx), binder_(ctx) {
    binder_.setHomeSchema(std::move(home));
  }
  void select(const ast::Select& s, std::set<std::string> ctes, int depth = 0) {
    if (depth > 32) return;
    if (s.with) {
      for (const auto& cte : s.with->ctes) ctes.insert(lowerName(cte.name));
      for (const auto& cte : s.with->ctes) if (cte.select) select(*cte.select, ctes, depth + 1);
    }
    if (s.left) select(*s.left, ctes, depth + 1);
    if (s.right) select(*s.right, ctes, depth + 1);
    if (s.from) from(*s.from, ctes, depth);
    for (const auto& rc : s.columns) {
      if (rc.expr) expr(*rc.expr, ctes, depth);
      else star = true;
    }
    if (s.where) expr(*s.where, ctes, depth);
    if (s.having) expr(*s.having, ctes, depth);
    for (const auto& g : s.groupBy) expr(*g, ctes, depth);
    for (const auto& o : s.orderBy) expr(*o.expr, ctes, depth);
    for (const auto& row : s.values) for (const auto& e : row) expr(*e, ctes, depth);
  }
  std::vector<std::string> sources;
  std::vector<std::string> materialized;
  std::map<std::string, int> references;  // per source: how many FROM items read it
  bool hasSubquery = false;
  std::set<std::string> columnNames;  // every column name the body mentions (lower-case)
  bool star = false;                  // the body expands `*` somewhere

 private:
  void from(const ast::FromItem& f, const std::set<std::string>& ctes, int depth) {
    using K = ast::FromItem::Kind;
    if (f.kind == K::kJoin) {
      from(*f.left, ctes, depth);
      from(*f.right, ctes, depth);
      if (f.on) expr(*f.on, ctes, depth);
      for (const std::string& u : f.usingColumns) columnNames.insert(lowerName(u));
      return;
    }
    if (f.kind == K::kSubquery) {
      select(*f.select, ctes, depth + 1);
      return;
    }
    for (const auto& a : f.args) expr(*a, ctes, depth);
    if (f.kind != K::kTable) return;
    if (f.table.schema.empty() && ctes.count(lowerName(f.table.name))) return;
    Catalog& cat = ctx_.catalog();
    std::string schema = binder_.resolveTableSchema(f.table);
    if (auto view = cat.findView(schema, f.table.name)) {
      select(*view->select, {}, depth + 1);
      return;
    }
    std::shared_ptr<Table> t = cat.findTable(schema, f.table.name);
    if (!t) return;
    std::string key = schema + "." + lowerName(t->schema().name);
    if (++references[key] == 1) sources.push_back(key);
    if (t->schema().derivation && std::find(materialized.begin(), materialized.end(), key) == materialized.end()) {
      materialized.push_back(key);
    }
  }
  void expr(const ast::Expr& e, const std::set<std::string>& ctes, int depth) {
    if (e.kind == ast::ExprKind::kColumn) columnNames.insert(lowerName(e.name));
    if (e.select) {
      hasSubquery = true;
      select(*e.select, ctes, depth + 1);
    }
    for (const auto& a : e.args) if (a) expr(*a, ctes, depth);
    for (const auto& w : e.whens) {
      expr(*w.when, ctes, depth);
      expr(*w.then, ctes, depth);
    }
    if (e.elseExpr) expr(*e.elseExpr, ctes, depth);
  }

  Context& ctx_;
  Binder binder_;
};

bool hasWindow(const ast::Expr& e) {
  if (e.window || !e.windowName.empty()) return true;
  for (const auto& a : e.args) if (a && hasWindow(*a)) return true;
  for (const auto& w : e.whens) if (hasWindow(*w.when) || hasWindow(*w.then)) return true;
  return e.elseExpr && hasWindow(*e.elseExpr);
}

// The aggregate delta description of `s`, when every output is a group column or one of the
// functions whose value a row's arrival or departure updates without reading the group again.
void planAggregateDelta(Context& ctx, const ast::Select& s, const KeyAnalyser& ka, MvAnalysis& a) {
  if (s.having || s.distinct) return;
  for (size_t i = 0; i < s.columns.size(); ++i) {
    const ast::ResultColumn& rc = s.columns[i];
    if (rc.kind != ast::ResultColumn::Kind::kExpr) return;
    if (std::find(a.key.begin(), a.key.end(), static_cast<int>(i)) != a.key.end()) continue;
    const ast::Expr& e = *rc.expr;
    if (e.kind != ast::ExprKind::kFunction || e.window || e.distinct || e.filter || !e.orderBy.empty()) return;
    if (!isAggregateCall(e, ctx)) return;
    std::string n = lowerName(e.name);
    MvAggregate g;
    g.output = static_cast<int>(i);
    if (n == "count" && e.star) g.kind = MvAggregate::Kind::kCountStar;
    else if (e.args.size() != 1 || ka.containsAggregate(*e.args[0])) return;
    else if (n == "count") g.kind = MvAggregate::Kind::kCount;
    else if (n == "sum") g.kind = MvAggregate::Kind::kSum;
    else if (n == "total") g.kind = MvAggregate::Kind::kTotal;
    else if (n == "avg") g.kind = MvAggregate::Kind::kAvg;
    else if (n == "min") g.kind = MvAggregate::Kind::kMin;
    else if (n == "max") g.kind = MvAggregate::Kind::kMax;
    else return;
    if (!e.star && !e.args.empty()) g.arg = e.args[0].get();
    a.aggregates.push_back(g);
  }
  a.aggregateDelta = true;
  a.filter = s.where.get();
}

ast::ExprPtr binary(const char* op, ast::ExprPtr l, ast::ExprPtr r) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kBinary;
  e->op = op;
  e->args.push_back(std::move(l));
  e->args.push_back(std::move(r));
  return e;
}

ast::ExprPtr isNull(ast::ExprPtr x) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kIsNull;
  e->args.push_back(std::move(x));
  return e;
}

std::vector<int> smallestKey(const std::vector<std::vector<int>>& keys) {
  return *std::min_element(keys.begin(), keys.end(), [](const auto& x, const auto& y) { return x.size() < y.size(); });
}

// True when the body's current rows repeat (under each column's collation): the bag is not only
// unprovable but actual, which the create reports as such.
bool producesDuplicateRows(Context& ctx, QueryPlan& plan) {
  ExecState st = engineExecState(ctx, nullptr);
  std::set<std::string> seen;
  for (const Row& row : drain(*plan.root, st, nullptr)) {
    std::string key;
    for (size_t i = 0; i < row.size() && i < plan.columns.size(); ++i) {
      encodeColumnKey(row[i], plan.columns[i].type, plan.columns[i].collation, false, key);
    }
    if (!seen.insert(std::move(key)).second) return true;
  }
  return false;
}

}  // namespace

std::optional<std::vector<int>> provableKey(Context& ctx, const ast::Select& query, const std::string& homeSchema,
                                            size_t outputColumns) {
  KeyAnalyser ka(ctx, homeSchema);
  Relation rel = ka.select(query, {});
  if (!rel.known || rel.columns.size() != outputColumns || rel.keys.empty()) return std::nullopt;
  return smallestKey(rel.keys);
}

KeyRules& keyRules() {
  static KeyRules rules;
  return rules;
}

bool provesKey(const MvAnalysis& a, const std::vector<int>& columns) {
  if (a.keyUnproven) return false;
  return std::any_of(a.keys.begin(), a.keys.end(), [&](const std::vector<int>& k) {
    return std::all_of(k.begin(), k.end(), [&](int c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); });
  });
}

MvAnalysis analyseMaterializedBody(Context& ctx, const ast::Select& body, const std::string& homeSchema,
                                   const std::string& mvName, const std::vector<std::string>& columnNames,
                                   const std::vector<int>* fallbackKey) {
  MvAnalysis a;
  Binder binder(ctx);
  binder.setHomeSchema(homeSchema);
  if (body.from && body.from->kind == ast::FromItem::Kind::kDml) {
    fail("materialized view '" + mvName + "': a DML statement cannot be used as a view body");
  }
  QueryPlan plan = binder.bindQuery(body, nullptr);
  if (binder.parameterCount() > 0) fail("materialized view '" + mvName + "' body cannot use parameters");

  SourceCollector sc(ctx, homeSchema);
  sc.select(body, {});
  a.sources = sc.sources;
  a.readsMaterialized = sc.materialized;
  for (const std::string& s : a.sources) {
    size_t dot = s.find('.');
    std::shared_ptr<Table> t = ctx.catalog().findTable(s.substr(0, dot), s.substr(dot + 1));
    a.sourceSignature += s + "(";
    // A generated column the body reads reads its inputs: the whole row is then observable.
    bool all = sc.star;
    for (const ColumnSchema& c : t->schema().columns) all = all || (c.generated && sc.columnNames.count(lowerName(c.name)));
    for (const ColumnSchema& c : t->schema().columns) {
      if (!all && !sc.columnNames.count(lowerName(c.name))) continue;
      a.sourceSignature += c.name + " " + std::string(logicalTypeName(c.type)) + (c.notNull ? " not null" : "") + " " +
                           std::string(collationName(c.collation)) + ",";
    }
    a.sourceSignature += ")";
  }
  std::string self = homeSchema + "." + lowerName(mvName);
  if (std::find(a.sources.begin(), a.sources.end(), self) != a.sources.end()) {
    fail("materialized view '" + mvName + "' references itself (derivation cycle)");
  }

  if (!columnNames.empty() && columnNames.size() != plan.columns.size()) {
    fail("materialized view '" + mvName + "' has " + std::to_string(columnNames.size()) +
         " declared columns but body produces " + std::to_string(plan.columns.size()));
  }
  const ast::Select* core = &body;
  if (!ctx.settings().nondeterministicSchema && core->setOp == ast::SetOp::kNone) {
    for (size_t i = 0; i < core->columns.size(); ++i) {
      const ast::ResultColumn& rc = core->columns[i];
      if (rc.expr && isNonDeterministic(*rc.expr, ctx)) {
        std::string name = i < plan.columns.size() ? plan.columns[i].name : printExpr(*rc.expr);
        fail("materialized view '" + mvName + "' cannot be materialized: non-deterministic expression column '" +
             name + "'");
      }
    }
    if (core->where && isNonDeterministic(*core->where, ctx)) {
      fail("materialized view '" + mvName + "' cannot be materialized: non-deterministic expression in its WHERE");
    }
  }

  KeyAnalyser ka(ctx, homeSchema);
  Relation rel = ka.select(body, {});
  bool traced = rel.known && rel.columns.size() == plan.columns.size();
  for (size_t i = 0; i < plan.columns.size(); ++i) {
    MvColumn c;
    c.name = i < columnNames.size() ? columnNames[i] : plan.columns[i].name;
    c.type = plan.columns[i].type == LogicalType::kNull ? LogicalType::kAny : plan.columns[i].type;
    c.collation = plan.columns[i].collation;
    c.notNull = traced && rel.columns[i].notNull;
    a.columns.push_back(c);
  }
  bool unproven = !traced || rel.keys.empty();
  if (unproven && fallbackKey) {
    rel.keys = {*fallbackKey};
    a.keyUnproven = true;
  } else if (unproven) {
    if (producesDuplicateRows(ctx, plan)) {
      fail("materialized view '" + homeSchema + "." + mvName +
           "' body produces duplicate rows, but a materialized view must be a set: its body needs a unique key; "
           "project the source primary key, group by, or use a plain view / create table … as");
    }
    fail("materialized view '" + mvName +
         "' cannot be materialized: its body has no provable unique key — it is a bag (rows may repeat); "
         "project the source primary key, group by, or use a plain view / create table … as");
  }
  if (a.sources.empty()) fail("materialized view '" + mvName + "' reads no source table");
  a.key = smallestKey(rel.keys);
  a.keys = rel.keys;

  // Physical key: the body's ORDER BY output columns first, then the rest of the logical key.
  std::vector<int> physical;
  // A coarsened key keys the backing alone: the ORDER BY prefix would let colliding rows in.
  bool coarsened = traced && std::any_of(a.key.begin(), a.key.end(), [&](int k) { return rel.columns[k].coarsened; });
  const std::vector<ast::OrderingTerm> unordered;
  for (const ast::OrderingTerm& ot : coarsened ? unordered : body.orderBy) {
    if (ot.expr->kind != ast::ExprKind::kColumn || !ot.expr->table.empty()) continue;
    for (size_t i = 0; i < plan.columns.size(); ++i) {
      if (lowerName(plan.columns[i].name) == lowerName(ot.expr->name) &&
          std::find(physical.begin(), physical.end(), static_cast<int>(i)) == physical.end()) {
        physical.push_back(static_cast<int>(i));
        a.physicalKey.push_back(KeyColumn{static_cast<int>(i), ot.desc, a.columns[i].collation});
        break;
      }
    }
  }
  for (int k : a.key) {
    if (std::find(physical.begin(), physical.end(), k) != physical.end()) continue;
    physical.push_back(k);
    a.physicalKey.push_back(KeyColumn{k, false, a.columns[k].collation});
  }

  // Keyed strategy: a plain single-level body whose key columns all trace to one base table.
  bool simple = body.setOp == ast::SetOp::kNone && !body.with && !body.limit && !body.offset &&
                body.orderBy.empty() && body.windows.empty() && !sc.hasSubquery && !body.distinct && body.from;
  for (const auto& rc : body.columns) if (rc.expr && hasWindow(*rc.expr)) simple = false;
  if (simple && !a.key.empty() && !a.keyUnproven) {
    std::string table;
    std::string qualifier;
    bool ok = true;
    for (int k : a.key) {
      const RelColumn& c = rel.columns[k];
      if (c.table.empty() || (!table.empty() && c.table != table)) ok = false;
      table = c.table;
      a.keySourceColumns.push_back(c.column);
    }
    // The qualifier the body uses for that table: the FROM item naming it (read once only).
    if (ok && sc.references[table] == 1) {
      std::vector<const ast::FromItem*> stack{body.from.get()};
      while (!stack.empty()) {
        const ast::FromItem* f = stack.back();
        stack.pop_back();
        if (f->kind == ast::FromItem::Kind::kJoin) {
          stack.push_back(f->left.get());
          stack.push_back(f->right.get());
        } else if (f->kind == ast::FromItem::Kind::kTable) {
          std::string schema = binder.resolveTableSchema(f->table);
          std::shared_ptr<Table> t = ctx.catalog().findTable(schema, f->table.name);
          if (t && !ctx.catalog().findView(schema, f->table.name) &&
              schema + "." + lowerName(t->schema().name) == table) {
            qualifier = f->alias.empty() ? f->table.name : f->alias;
            for (int col : a.keySourceColumns) a.keySourceNullable.push_back(!t->schema().columns[col].notNull);
          }
        }
      }
    }
    if (ok && !qualifier.empty()) {
      a.keyedSource = table;
      a.keyedQualifier = qualifier;
      a.keyedOnly = a.sources.size() == 1;
    } else {
      a.keySourceColumns.clear();
    }
  }
  if (!a.keyedSource.empty() && a.keyedOnly && body.from->kind == ast::FromItem::Kind::kTable) {
    bool aggregate = !body.groupBy.empty() || body.having ||
                     std::any_of(body.columns.begin(), body.columns.end(),
                                 [&](const ast::ResultColumn& rc) { return rc.expr && ka.containsAggregate(*rc.expr); });
    if (!body.groupBy.empty()) planAggregateDelta(ctx, body, ka, a);
    a.rowProjection = !aggregate;
  }
  return a;
}

ast::SelectPtr residualQuery(const ast::Select& body, const MvAnalysis& a, const TableSchema& keyed) {
  ast::SelectPtr s = ast::clone(body);
  ast::ExprPtr pred;
  for (size_t i = 0; i < a.keySourceColumns.size(); ++i) {
    auto col = std::make_unique<ast::Expr>();
    col->kind = ast::ExprKind::kColumn;
    col->table = a.keyedQualifier;
    col->name = keyed.columns[a.keySourceColumns[i]].name;
    auto param = std::make_unique<ast::Expr>();
    param->kind = ast::ExprKind::kParam;
    param->index = static_cast<int>(i) + 1;
    param->name = std::to_string(i + 1);
    ast::ExprPtr eq;
    if (a.keySourceNullable[i]) {
      // (c = ?i or (c is null and ?i is null)): a NULL group key matches its own group.
      auto bothNull = binary("and", isNull(ast::clone(*col)), isNull(ast::clone(*param)));
      eq = binary("or", binary("=", std::move(col), std::move(param)), std::move(bothNull));
    } else {
      eq = binary("=", std::move(col), std::move(param));
    }
    pred = pred ? binary("and", std::move(pred), std::move(eq)) : std::move(eq);
  }
  if (s->where) pred = binary("and", std::move(pred), std::move(s->where));
  s->where = std::move(pred);
  return s;
}

}  // namespace optic
