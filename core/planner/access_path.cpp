// Access paths over primary keys and secondary indexes (access_path.h).
#include "core/planner/access_path.h"

#include <algorithm>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/execution/expression_nodes.h"
#include "core/execution/function_registry.h"
#include "core/execution/operators.h"
#include "core/parser/ast_clone.h"
#include "core/planner/expr_binder.h"
#include "core/planner/predicates.h"

namespace optic {
namespace {

// ---- which comparisons a key can answer --------------------------------------------------------

bool numericColumn(LogicalType t) {
  return t == LogicalType::kInteger || t == LogicalType::kReal || t == LogicalType::kNumeric ||
         t == LogicalType::kBoolean;
}

// Column types whose stored keys order exactly as their values compare. JSON and TIMESPAN
// compare by a semantic comparand, and the temporal types are left to the filter.
bool keyOrdersLikeValues(LogicalType t) {
  return numericColumn(t) || t == LogicalType::kText || t == LogicalType::kBlob || t == LogicalType::kAny;
}

// Whether the column may hold text, which compares under a collation.
bool collationMatters(LogicalType t) { return !numericColumn(t); }

// Columns whose values may come in several categories (ANY, and BLOB, which stores what it is
// given): a coercing comparison converts their values one by one, so no key range answers it.
bool mixedCategories(LogicalType t) { return t == LogicalType::kAny || t == LogicalType::kBlob; }

// A value known before the scan, and the comparison it takes part in.
struct Probe {
  const BoundExpr* expr = nullptr;  // owned by the bound conjunct it came from
  Collation collation = Collation::kBinary;
  bool coerce = true;  // sqlCompare (categories reconciled) rather than compareValues
};

// A column of this table bounded by a conjunct: points (`=`, IN), one side of a range, or a
// text prefix (`LIKE 'abc%'`: LIKE matches code points exactly, so every match starts with the
// pattern's literal prefix).
struct Constraint {
  enum class Kind : uint8_t { kPoints, kLower, kUpper, kPrefix };
  int column = -1;
  Kind kind = Kind::kPoints;
  bool strict = false;  // `<` / `>`
  std::vector<Probe> probes;  // points: one per listed value; a bound: one
  bool readsEnclosing = false;  // a probe reads a column of an enclosing scope
  // The conjunct it comes from, when the scan may answer it in the caller's stead (the WHERE of
  // a scan over one table, the ON of an index join's inner side); null otherwise.
  const ast::Expr* conjunct = nullptr;
};

// A probe on key column `key` (of type `type`) bounds its keys as the comparison bounds its
// values: the key's collation is the comparison's, and a coercing comparison does not convert
// stored values one by one.
bool usableOn(const Probe& p, const KeyColumn& key, LogicalType type) {
  if (!keyOrdersLikeValues(type)) return false;
  if (p.coerce && mixedCategories(type)) return false;
  return !collationMatters(type) || p.collation == key.collation;
}

// A TEXT column compared (coercing) with a number converts the column side: no key range
// answers it. Known when the probe is a literal, else only at run time, when its value arrives.
bool mayDegrade(const Probe& p, LogicalType type) {
  if (!p.coerce || type != LogicalType::kText) return false;
  if (auto* literal = dynamic_cast<const LiteralExpr*>(p.expr)) {
    return isNumberLike(literal->value()) || literal->value().kind() == ValueKind::kJson;
  }
  return true;
}

bool usableConstraint(const Constraint& c, const KeyColumn& key, LogicalType type) {
  // The prefix of a TEXT value is the prefix of its key under collations that normalise code
  // point by code point.
  if (c.kind == Constraint::Kind::kPrefix) {
    return type == LogicalType::kText && (key.collation == Collation::kBinary || key.collation == Collation::kNoCase);
  }
  return std::all_of(c.probes.begin(), c.probes.end(), [&](const Probe& p) { return usableOn(p, key, type); });
}

// ---- reading the WHERE clause -------------------------------------------------------------------

// The table reference a conjunct is read for, and the scopes its probes may read.
struct ProbeRules {
  const Context& ctx;
  const std::string& qualifier;
  const TableSchema& schema;
  const Scope* outer;
};

// The table column `e` names (by this reference's qualifier or unqualified, optionally under
// COLLATE), or -1.
int localColumnOf(const ast::Expr& e, const std::string& qualifier, const TableSchema& schema) {
  if (e.kind == ast::ExprKind::kCollate) return localColumnOf(*e.args[0], qualifier, schema);
  if (e.kind != ast::ExprKind::kColumn || !e.schema.empty()) return -1;
  if (!e.table.empty() && lowerName(e.table) != lowerName(qualifier)) return -1;
  return schema.findColumn(e.name);
}

// Whether column reference `e` names exactly one visible column of the nearest enclosing scope
// that has the name (so binding it cannot fail or pick another column than the filter does).
bool resolvesOutside(const ast::Expr& e, const Scope* scope) {
  if (!e.schema.empty()) return false;
  for (; scope; scope = scope->parent) {
    int matches = 0;
    for (const ScopeColumn& c : scope->columns) {
      if (lowerName(c.name) != lowerName(e.name)) continue;
      if (e.table.empty() ? c.hidden : lowerName(c.table) != lowerName(e.table)) continue;
      ++matches;
    }
    if (matches) return matches == 1;
    for (const auto& [alias, column] : scope->aliases) {
      if (e.table.empty() && lowerName(alias) == lowerName(e.name)) return false;  // a select alias of that level
    }
  }
  return false;
}

// True when `e` reads no column of this table and calls only deterministic functions, so one
// evaluation when the scan opens equals the filter's evaluation on every row it reads.
// `readsColumns` is set when it reads an enclosing scope's column.
bool knownBeforeScan(const ast::Expr& e, const ProbeRules& rules, bool& readsColumns) {
  switch (e.kind) {
    case ast::ExprKind::kColumn:
      if (localColumnOf(e, rules.qualifier, rules.schema) >= 0 || !resolvesOutside(e, rules.outer)) return false;
      readsColumns = true;
      return true;
    case ast::ExprKind::kSubquery:
    case ast::ExprKind::kExists:
    case ast::ExprKind::kInSelect:
      return false;
    case ast::ExprKind::kFunction: {
      if (e.window || e.star) return false;
      const ScalarFunction* fn = rules.ctx.functions().findScalar(e.name, static_cast<int>(e.args.size()));
      if (!fn || !fn->deterministic) return false;
      break;
    }
    default:
      break;
  }
  for (const auto& a : e.args) if (a && !knownBeforeScan(*a, rules, readsColumns)) return false;
  for (const auto& w : e.whens) {
    if (!knownBeforeScan(*w.when, rules, readsColumns) || !knownBeforeScan(*w.then, rules, readsColumns)) return false;
  }
  return !e.elseExpr || knownBeforeScan(*e.elseExpr, rules, readsColumns);
}

bool sargable(const ast::Expr& p, const ProbeRules& rules, bool& readsColumns);

// The local column every disjunct of `p` pins to points (`col = v`, `col IN (…)`, ORs of them),
// or -1: such an OR bounds its column as one IN list does.
int orPointsColumn(const ast::Expr& p, const ProbeRules& rules, bool& readsColumns) {
  if (p.kind == ast::ExprKind::kBinary && lowerName(p.op) == "or" && p.args.size() == 2) {
    int l = orPointsColumn(*p.args[0], rules, readsColumns);
    return l >= 0 && l == orPointsColumn(*p.args[1], rules, readsColumns) ? l : -1;
  }
  bool equality = p.kind == ast::ExprKind::kInList || (p.kind == ast::ExprKind::kBinary && (p.op == "=" || p.op == "=="));
  if (!equality || !sargable(p, rules, readsColumns)) return -1;
  const ast::Expr& first = *p.args[0];
  int column = localColumnOf(first, rules.qualifier, rules.schema);
  return column >= 0 ? column : localColumnOf(*p.args[1], rules.qualifier, rules.schema);
}

// The shape a conjunct must have before it is worth binding: a local column against values
// known before the scan. `readsColumns` is set when those values read an enclosing scope.
bool sargable(const ast::Expr& p, const ProbeRules& rules, bool& readsColumns) {
  auto column = [&](const ast::Expr& e) { return localColumnOf(e, rules.qualifier, rules.schema) >= 0; };
  if (p.kind == ast::ExprKind::kBinary && lowerName(p.op) == "or") return orPointsColumn(p, rules, readsColumns) >= 0;
  auto known = [&](size_t from) {
    for (size_t i = from; i < p.args.size(); ++i) {
      if (!p.args[i] || !knownBeforeScan(*p.args[i], rules, readsColumns)) return false;
    }
    return true;
  };
  switch (p.kind) {
    case ast::ExprKind::kBinary: {
      static const char* const kOps[] = {"=", "==", "<", "<=", ">", ">="};
      if (p.args.size() != 2 || std::none_of(std::begin(kOps), std::end(kOps), [&](const char* o) { return p.op == o; }))
        return false;
      if (column(*p.args[0]) && knownBeforeScan(*p.args[1], rules, readsColumns)) return true;
      readsColumns = false;
      return column(*p.args[1]) && knownBeforeScan(*p.args[0], rules, readsColumns);
    }
    case ast::ExprKind::kBetween:
      return !p.negated && p.args.size() == 3 && column(*p.args[0]) && known(1);
    case ast::ExprKind::kInList:
      return !p.negated && p.args.size() >= 2 && column(*p.args[0]) && known(1);
    case ast::ExprKind::kLike:
      return p.op == "like" && !p.negated && p.args.size() == 2 && column(*p.args[0]) && known(1);
    default:
      return false;
  }
}

// The column index of a bound operand that is a plain column of this level, or -1.
int boundColumn(const BoundExpr& e) {
  auto* c = dynamic_cast<const ColumnExpr*>(&e);
  return c && c->depth() == 0 ? c->index() : -1;
}

Constraint::Kind kindOf(CompareOp op, bool columnOnLeft, bool& strict) {
  strict = op == CompareOp::kLt || op == CompareOp::kGt;
  if (op == CompareOp::kEq) return Constraint::Kind::kPoints;
  bool less = op == CompareOp::kLt || op == CompareOp::kLe;
  // `col < v` bounds col from above; `v < col` from below.
  return less == columnOnLeft ? Constraint::Kind::kUpper : Constraint::Kind::kLower;
}

// The constraints one bound conjunct places on this table's columns (none when its bound form
// is not a bare column against probes: a converted column side, a semantic comparand).
void constraintsOf(const BoundExpr& b, std::vector<Constraint>& out) {
  if (auto* cmp = dynamic_cast<const CompareExpr*>(&b)) {
    if (cmp->op() == CompareOp::kNe) return;
    int l = boundColumn(cmp->left()), r = boundColumn(cmp->right());
    if ((l < 0) == (r < 0)) return;
    Constraint c;
    c.column = l >= 0 ? l : r;
    c.kind = kindOf(cmp->op(), l >= 0, c.strict);
    c.probes.push_back({l >= 0 ? &cmp->right() : &cmp->left(), cmp->comparisonCollation(), cmp->coerces()});
    out.push_back(std::move(c));
  } else if (auto* between = dynamic_cast<const BetweenExpr*>(&b)) {
    int col = boundColumn(between->operand());
    if (col < 0 || between->negated()) return;
    out.push_back({col, Constraint::Kind::kLower, false, {{&between->low(), between->lowCollation(), true}}});
    out.push_back({col, Constraint::Kind::kUpper, false, {{&between->high(), between->highCollation(), true}}});
  } else if (auto* like = dynamic_cast<const PatternExpr*>(&b)) {
    int col = boundColumn(like->operand());
    if (col < 0 || like->kind() != PatternKind::kLike || like->negated() || like->hasEscape()) return;
    out.push_back({col, Constraint::Kind::kPrefix, false, {{&like->pattern(), Collation::kBinary, false}}});
  } else if (auto* logic = dynamic_cast<const LogicExpr*>(&b); logic && logic->op() == LogicOp::kOr) {
    // `col = 1 or col in (5, 7)`: the points of both sides, when both pin the same column.
    std::vector<Constraint> sides;
    constraintsOf(logic->left(), sides);
    constraintsOf(logic->right(), sides);
    if (sides.size() != 2 || sides[0].kind != Constraint::Kind::kPoints || sides[1].kind != Constraint::Kind::kPoints ||
        sides[0].column != sides[1].column) {
      return;
    }
    Constraint c = std::move(sides[0]);
    c.probes.insert(c.probes.end(), sides[1].probes.begin(), sides[1].probes.end());
    out.push_back(std::move(c));
  } else if (auto* in = dynamic_cast<const InListExpr*>(&b)) {
    int col = boundColumn(in->operand());
    if (col < 0 || in->negated()) return;
    Constraint c;
    c.column = col;
    for (const BoundExprPtr& item : in->items()) c.probes.push_back({item.get(), in->collation(), true});
    out.push_back(std::move(c));
  }
}

// ---- key shapes and paths -----------------------------------------------------------------------

// A key the table is stored under: the primary key (row store) or a secondary index.
struct KeyShape {
  std::vector<KeyColumn> columns;  // the searchable columns
  std::vector<KeyColumn> order;    // the order entries come in: columns, then (an index) the primary key
  std::optional<size_t> index;     // nullopt: the primary key
  bool unique = false;
};

std::vector<KeyShape> keyShapesOf(const TableSchema& schema) {
  std::vector<KeyShape> shapes;
  shapes.push_back({schema.primaryKey, schema.primaryKey, std::nullopt, true});
  for (size_t i = 0; i < schema.indexes.size(); ++i) {
    const IndexSchema& ix = schema.indexes[i];
    if (ix.where) continue;  // a partial index lacks the rows its predicate excludes
    KeyShape s{ix.columns, ix.columns, i, ix.unique};
    s.order.insert(s.order.end(), schema.primaryKey.begin(), schema.primaryKey.end());
    shapes.push_back(std::move(s));
  }
  return shapes;
}

// One way to read the table: a key, the constraints that bound it, the direction.
struct Path {
  const KeyShape* key = nullptr;
  std::vector<const Constraint*> points;  // one per leading key column
  const Constraint* lower = nullptr;      // on key column points.size()
  const Constraint* upper = nullptr;
  bool reverse = false;
  bool ordered = false;
  int score = 0;
};

bool singlePoint(const Constraint& c) { return c.probes.size() == 1; }

bool degradable(const Constraint& c, LogicalType type) {
  return std::any_of(c.probes.begin(), c.probes.end(), [&](const Probe& p) { return mayDegrade(p, type); });
}

// The first usable constraint of `kind` on key column `key`; a single point before a list.
const Constraint* findConstraint(const std::vector<Constraint>& all, Constraint::Kind kind, const KeyColumn& key,
                                 const TableSchema& schema) {
  const Constraint* found = nullptr;
  for (const Constraint& c : all) {
    if (c.kind != kind || c.column != key.column || !usableConstraint(c, key, schema.columns[key.column].type)) continue;
    if (!found || (singlePoint(c) && !singlePoint(*found))) found = &c;
  }
  return found;
}

Path boundPath(const KeyShape& key, const std::vector<Constraint>& all, const TableSchema& schema) {
  Path p;
  p.key = &key;
  size_t k = 0;
  for (; k < key.columns.size(); ++k) {
    const Constraint* c = findConstraint(all, Constraint::Kind::kPoints, key.columns[k], schema);
    if (!c) break;
    p.points.push_back(c);
  }
  if (k < key.columns.size()) {
    p.lower = findConstraint(all, Constraint::Kind::kLower, key.columns[k], schema);
    p.upper = findConstraint(all, Constraint::Kind::kUpper, key.columns[k], schema);
    if (!p.lower && !p.upper) p.lower = p.upper = findConstraint(all, Constraint::Kind::kPrefix, key.columns[k], schema);
  }
  bool allSingle = std::all_of(p.points.begin(), p.points.end(), [](const Constraint* c) { return singlePoint(*c); });
  p.score = 4 * static_cast<int>(p.points.size()) + (p.lower ? 2 : 0) + (p.upper ? 2 : 0);
  if (key.unique && !key.columns.empty() && p.points.size() == key.columns.size() && allSingle) p.score += 50;
  return p;
}

// One ORDER BY term over a column of this table.
struct OrderTerm {
  int column = -1;
  bool desc = false;
  bool nullsFirst = true;
  Collation collation = Collation::kBinary;
};

// The ORDER BY of `s` as terms over this table's columns, or nullopt when a term is anything
// else (an expression, a position, a select alias, which the sort resolves before columns).
std::optional<std::vector<OrderTerm>> orderTermsOf(const ast::Select& s, const std::string& qualifier,
                                                   const TableSchema& schema) {
  std::vector<OrderTerm> terms;
  for (const ast::OrderingTerm& t : s.orderBy) {
    const ast::Expr& e = *t.expr;
    int col = localColumnOf(e, qualifier, schema);
    if (col < 0) return std::nullopt;
    const ast::Expr& named = e.kind == ast::ExprKind::kCollate ? *e.args[0] : e;
    if (named.table.empty()) {
      for (const ast::ResultColumn& rc : s.columns) {
        if (!rc.alias.empty() && lowerName(rc.alias) == lowerName(named.name)) return std::nullopt;
      }
    }
    OrderTerm term;
    term.column = col;
    term.desc = t.desc;
    term.nullsFirst = t.nulls != ast::OrderingTerm::Nulls::kLast;
    term.collation = schema.columns[col].collation;
    if (e.kind == ast::ExprKind::kCollate) {
      std::optional<Collation> c = collationFromName(e.name);
      if (!c) return std::nullopt;
      term.collation = *c;
    }
    terms.push_back(term);
  }
  return terms;
}

// Whether the first row in `terms`' order holds min/max of its one column: a NOT NULL column
// (min and max skip NULLs) whose equal values cannot differ (numbers of one type, BINARY text).
bool firstRowAnswers(const std::vector<OrderTerm>& terms, const TableSchema& schema) {
  if (terms.size() != 1) return false;
  const ColumnSchema& col = schema.columns[terms[0].column];
  bool exact = col.type == LogicalType::kInteger || col.type == LogicalType::kReal ||
               col.type == LogicalType::kBoolean || (col.type == LogicalType::kText && terms[0].collation == Collation::kBinary);
  return col.notNull && exact;
}

// Key column `key` yields `term`'s order (in some direction): its keys order as the values
// sort, under the term's collation, and NULLs land where the term wants them (a forward ASC or
// reverse DESC scan puts NULLs first, matching an ascending term with NULLs first, and so on).
bool servesTerm(const KeyColumn& key, const OrderTerm& term, const TableSchema& schema) {
  const ColumnSchema& col = schema.columns[key.column];
  if (!keyOrdersLikeValues(col.type)) return false;
  if (collationMatters(col.type) && key.collation != term.collation) return false;
  return col.notNull || term.nullsFirst == !term.desc;
}

// Whether `path` yields rows in `terms`' order, and in which direction; sets path.ordered and
// path.reverse. Columns pinned to one value order nothing and are skipped; a list of points is
// read in ascending key order, so its column orders like a range's.
void claimOrder(Path& path, const std::vector<OrderTerm>& terms, const TableSchema& schema) {
  if (terms.empty()) return;
  for (size_t k = 0; k < path.points.size(); ++k) {
    const Constraint& c = *path.points[k];
    if (degradable(c, schema.columns[c.column].type)) return;  // the scan might widen past this column
  }
  auto isPinned = [&](size_t at) { return at < path.points.size() && singlePoint(*path.points[at]); };
  auto columnPinned = [&](int column) {
    for (size_t k = 0; k < path.points.size(); ++k) if (isPinned(k) && path.key->columns[k].column == column) return true;
    return false;
  };
  const std::vector<KeyColumn>& order = path.key->order;
  std::optional<bool> reverse;
  size_t t = 0;
  for (size_t i = 0; i < order.size() && t < terms.size();) {
    const OrderTerm& term = terms[t];
    if (isPinned(i)) {
      if (term.column == order[i].column) ++t;
      ++i;
    } else if (term.column == order[i].column) {
      if (!servesTerm(order[i], term, schema)) return;
      bool r = order[i].desc != term.desc;
      if (reverse && *reverse != r) return;
      reverse = r;
      ++t;
      ++i;
    } else if (columnPinned(term.column)) {
      ++t;
    } else {
      return;
    }
  }
  while (t < terms.size() && columnPinned(terms[t].column)) ++t;
  if (t < terms.size()) return;
  path.ordered = true;
  path.reverse = reverse.value_or(false);
}

// The better of two paths: more bounded, then ordered as asked, then the primary key (no row
// fetch through an index).
bool better(const Path& a, const Path& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.ordered != b.ordered) return a.ordered;
  return !a.key->index && b.key->index;
}

// ---- run time: from probe values to key ranges --------------------------------------------------

// What the scan needs at run time: the key columns it bounds and their probes. Keeps the bound
// conjuncts the probes point into alive.
struct KeyPlan {
  struct Column {
    KeyColumn key;
    LogicalType type = LogicalType::kAny;
  };
  std::vector<Column> columns;  // the pinned columns, then the ranged one (when bounded)
  std::vector<std::vector<Probe>> points;
  std::optional<Probe> lower, upper;
  bool lowerStrict = false, upperStrict = false;
  std::optional<Probe> prefix;  // a LIKE pattern bounding the ranged column instead
  std::vector<std::shared_ptr<const BoundExpr>> owners;
};

enum class ProbeKey : uint8_t { kKey, kNull, kUnusable };

// The probe's value as a key component of `column` into `out`: kNull when it is NULL (the
// comparison is never true), kUnusable when the comparison would convert the column side.
ProbeKey encodeProbe(const Probe& p, const KeyPlan::Column& column, const EvalContext& ctx, std::string& out) {
  Value v = p.expr->eval(ctx);
  if (v.isNull()) return ProbeKey::kNull;
  if (p.coerce) {
    if (numericColumn(column.type)) {
      v = comparisonOperand(v, Value::integer(0));
    } else if (column.type == LogicalType::kText && (isNumberLike(v) || v.kind() == ValueKind::kJson)) {
      return ProbeKey::kUnusable;
    }
  }
  encodeColumnKey(v, column.type, column.key.collation, column.key.desc, out);
  return ProbeKey::kKey;
}

// Past this many point seeks (a product of IN lists), the scan reads the common prefix instead.
constexpr size_t kMaxPoints = 4096;

// Extends each prefix by each distinct key of one pinned column. False (prefixes untouched)
// when the column cannot be keyed at run time or the product grows too large; `none` when no
// probe can match.
bool extendByPoints(const std::vector<Probe>& probes, const KeyPlan::Column& column, const EvalContext& ctx,
                    std::vector<std::string>& prefixes, bool& none) {
  std::vector<std::string> keys;
  for (const Probe& p : probes) {
    std::string key;
    ProbeKey r = encodeProbe(p, column, ctx, key);
    if (r == ProbeKey::kUnusable) return false;
    if (r == ProbeKey::kKey) keys.push_back(std::move(key));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (keys.empty()) {
    none = true;
    return true;
  }
  if (prefixes.size() * keys.size() > kMaxPoints) return false;
  std::vector<std::string> next;
  next.reserve(prefixes.size() * keys.size());
  for (const std::string& prefix : prefixes) {
    for (const std::string& key : keys) next.push_back(prefix + key);
  }
  prefixes = std::move(next);
  return true;
}

// The text before the first wildcard of a LIKE pattern (no ESCAPE clause).
std::string likeLiteralPrefix(const std::string& pattern) {
  return pattern.substr(0, std::min(pattern.find('%'), pattern.find('_')));
}

KeyRanges rangesOf(const KeyPlan& plan, const EvalContext& ctx) {
  std::vector<std::string> prefixes{std::string()};
  bool complete = true;
  for (size_t k = 0; k < plan.points.size() && complete; ++k) {
    bool none = false;
    complete = extendByPoints(plan.points[k], plan.columns[k], ctx, prefixes, none);
    if (none) return {};
  }
  std::optional<std::string> lo, hi;  // value bounds of the ranged column, as key components
  if (complete && plan.prefix) {
    Value pattern = plan.prefix->expr->eval(ctx);
    if (pattern.isNull()) return {};
    std::string literal = likeLiteralPrefix(toText(pattern));
    const KeyPlan::Column& column = plan.columns.back();
    if (!literal.empty()) {
      encodeTextPrefixKey(literal, column.key.collation, column.key.desc, lo.emplace());
      hi = lo;
    }
  } else if (complete && plan.columns.size() > plan.points.size()) {
    const KeyPlan::Column& column = plan.columns.back();
    for (auto [probe, out] : {std::pair{&plan.lower, &lo}, std::pair{&plan.upper, &hi}}) {
      if (!*probe) continue;
      std::string key;
      ProbeKey r = encodeProbe(**probe, column, ctx, key);
      if (r == ProbeKey::kNull) return {};
      if (r == ProbeKey::kKey) *out = std::move(key);
    }
  }
  bool desc = plan.columns.size() > plan.points.size() && plan.columns.back().key.desc;
  // A DESC column's keys run opposite to its values: the value's lower bound ends the keys.
  const std::optional<std::string>& keyLow = desc ? hi : lo;
  const std::optional<std::string>& keyHigh = desc ? lo : hi;
  bool lowStrict = desc ? plan.upperStrict : plan.lowerStrict;
  bool highStrict = desc ? plan.lowerStrict : plan.upperStrict;
  KeyRanges ranges;
  for (const std::string& prefix : prefixes) {
    KeyRange r;
    r.lower = keyLow ? prefix + *keyLow : prefix;
    r.lowerExclusive = keyLow && lowStrict;
    r.upper = keyHigh ? prefix + *keyHigh : prefix;
    r.upperExclusive = keyHigh && highStrict;
    ranges.push_back(std::move(r));
  }
  return ranges;
}

KeyPlan keyPlanOf(const Path& path, const TableSchema& schema, std::vector<std::shared_ptr<const BoundExpr>> owners) {
  KeyPlan plan;
  auto column = [&](size_t k) {
    const KeyColumn& key = path.key->columns[k];
    return KeyPlan::Column{key, schema.columns[key.column].type};
  };
  for (size_t k = 0; k < path.points.size(); ++k) {
    plan.columns.push_back(column(k));
    plan.points.push_back(path.points[k]->probes);
  }
  if (path.lower || path.upper) {
    plan.columns.push_back(column(path.points.size()));
    if (path.lower && path.lower->kind == Constraint::Kind::kPrefix) {
      plan.prefix = path.lower->probes[0];
    } else {
      if (path.lower) plan.lower = path.lower->probes[0], plan.lowerStrict = path.lower->strict;
      if (path.upper) plan.upper = path.upper->probes[0], plan.upperStrict = path.upper->strict;
    }
  }
  plan.owners = std::move(owners);
  return plan;
}

// How a constraint bounds its column, for introspection: `g = ?`, `g in (3 values)`, `g >= ?`.
std::string constraintText(const Constraint& c, const std::string& column, bool upperSide) {
  switch (c.kind) {
    case Constraint::Kind::kPoints:
      return singlePoint(c) ? column + " = ?" : column + " in (" + std::to_string(c.probes.size()) + " values)";
    case Constraint::Kind::kLower: return column + (c.strict ? " > ?" : " >= ?");
    case Constraint::Kind::kUpper: return column + (c.strict ? " < ?" : " <= ?");
    case Constraint::Kind::kPrefix: return upperSide ? "" : column + " like 'prefix%'";
  }
  return "";
}

// The path as query_plan() shows it: "<key> <kind> <bounds>", e.g. "index t_g range g >= ? and
// g < ?", "primary key point id = ?", "index t_g in-list g in (5 values), ordered".
std::string pathDetail(const Path& path, const TableSchema& schema) {
  std::string key = path.key->index ? "index " + schema.indexes[*path.key->index].name : "primary key";
  std::vector<std::string> bounds;
  bool list = false;
  for (size_t i = 0; i < path.points.size(); ++i) {
    list = list || !singlePoint(*path.points[i]);
    bounds.push_back(constraintText(*path.points[i], schema.columns[path.key->columns[i].column].name, false));
  }
  if (path.lower || path.upper) {
    const std::string& column = schema.columns[path.key->columns[path.points.size()].column].name;
    if (path.lower) bounds.push_back(constraintText(*path.lower, column, false));
    if (path.upper && path.upper != path.lower) bounds.push_back(constraintText(*path.upper, column, true));
  }
  std::string kind = path.lower || path.upper ? "range"
                     : list                   ? "in-list"
                     : path.score >= 50       ? "point"
                     : !path.points.empty()   ? "equality"
                                              : "full scan";
  std::string text = key + " " + kind;
  for (size_t i = 0; i < bounds.size(); ++i) text += (i == 0 ? " " : " and ") + bounds[i];
  if (path.ordered) text += ", ordered";
  return text;
}

OperatorPtr scanOf(const std::shared_ptr<Table>& table, const Path& path,
                   std::vector<std::shared_ptr<const BoundExpr>> owners, std::shared_ptr<ScanProjection> projection,
                   double estimatedRows) {
  const TableSchema& schema = table->schema();
  std::optional<IndexSource> via;
  if (path.key->index) {
    via = IndexSource{*path.key->index, {}};
    for (const KeyColumn& k : path.key->columns) via->columnDesc.push_back(k.desc);
  }
  TableScanOp::RangeFn range;
  if (!path.points.empty() || path.lower || path.upper) {
    auto plan = std::make_shared<KeyPlan>(keyPlanOf(path, schema, std::move(owners)));
    range = [plan](const EvalContext& ctx) { return rangesOf(*plan, ctx); };
  }
  auto scan = std::make_unique<TableScanOp>(table, std::move(range), path.reverse, std::move(via), std::move(projection));
  scan->notePath(pathDetail(path, schema), estimatedRows);
  return scan;
}


}  // namespace

std::unique_ptr<ast::Select> extremumOrder(const ast::Select& s) {
  if (!s.from || s.from->kind != ast::FromItem::Kind::kTable || s.columns.size() != 1 || !s.groupBy.empty() ||
      s.having || s.distinct || !s.orderBy.empty() || s.limit || s.offset) {
    return nullptr;
  }
  const ast::ResultColumn& rc = s.columns[0];
  if (rc.kind != ast::ResultColumn::Kind::kExpr) return nullptr;
  const ast::Expr& call = *rc.expr;
  std::string name = lowerName(call.name);
  if (call.kind != ast::ExprKind::kFunction || (name != "min" && name != "max") || call.args.size() != 1 ||
      call.distinct || call.star || call.filter || call.window || !call.orderBy.empty() ||
      call.args[0]->kind != ast::ExprKind::kColumn) {
    return nullptr;
  }
  auto order = std::make_unique<ast::Select>();
  ast::OrderingTerm term;
  term.expr = clone(*call.args[0]);
  term.desc = name == "max";
  order->orderBy.push_back(std::move(term));
  ast::Expr one;
  one.kind = ast::ExprKind::kLiteral;
  one.value = Value::integer(1);
  order->limit = clone(one);
  return order;
}

double tableRowCount(Table& table) {
  // A table not loaded yet, or a materialized view awaiting its refill, has no rows to count
  // (rows() refuses): plan with a guess; the plan re-binds when the catalog version moves.
  bool counted = table.loaded() && !table.needsRefill();
  return counted ? static_cast<double>(table.rows().size()) : 1000.0;
}

namespace {

// The rows `path` is expected to read out of `rows`: a fully pinned unique key one; each pinned
// column a tenth per listed value; each range side a quarter.
double estimateRows(const Path& path, double rows) {
  if (path.score >= 50) return 1;
  for (const Constraint* c : path.points) rows = rows * static_cast<double>(c->probes.size()) / 10;
  if (path.lower) rows /= 4;
  if (path.upper) rows /= 4;
  return std::max(rows, 1.0);
}

bool readsEnclosing(const Path& path) {
  auto reads = [](const Constraint* c) { return c && c->readsEnclosing; };
  return std::any_of(path.points.begin(), path.points.end(), reads) || reads(path.lower) || reads(path.upper);
}

// The constraints the conjuncts of `condition` place on the table, each bound over its row;
// the bound conjuncts go to `owners`.
// `answerable`: the constraints name their conjuncts (Constraint::conjunct).
void collectConstraints(Binder& binder, const ast::Expr* condition, bool readsNoColumn, bool answerable,
                        const ProbeRules& rules, const Scope& rowScope,
                        std::vector<std::shared_ptr<const BoundExpr>>& owners, std::vector<Constraint>& out) {
  for (const ast::Expr* p : conjunctsOf(condition)) {
    bool readsColumns = false;
    if (!sargable(*p, rules, readsColumns) || (readsColumns && readsNoColumn)) continue;
    owners.push_back(ExprBinder(binder, rowScope).bind(*p));
    size_t first = out.size();
    constraintsOf(*owners.back(), out);
    for (size_t i = first; i < out.size(); ++i) {
      out[i].readsEnclosing = readsColumns;
      if (answerable) out[i].conjunct = p;
    }
  }
}

// Whether every probe of the path always encodes, in few enough seeks: its ranges then apply
// every constraint it keys on, whatever the probes' values at run time (otherwise rangesOf may
// widen them, dropping the constraints after the one it could not key).
bool keysEverything(const Path& path, const TableSchema& schema) {
  auto encodes = [&](const Constraint* c) {
    return !c || c->kind == Constraint::Kind::kPrefix || !degradable(*c, schema.columns[c->column].type);
  };
  size_t seeks = 1;
  for (const Constraint* p : path.points) {
    if (!encodes(p)) return false;
    seeks *= p->probes.size();
  }
  return seeks <= kMaxPoints && encodes(path.lower) && encodes(path.upper);
}

// Whether the key ranges of a path that keys everything hold exactly the rows `c` admits (so
// the filter need not test it again): a point list the path keys on, or a bound that keeps
// NULLs out (the other bound is there too, or the column is NOT NULL). A LIKE prefix only
// narrows.
bool exactlyKeyed(const Constraint& c, const Path& path, const TableSchema& schema) {
  if (std::find(path.points.begin(), path.points.end(), &c) != path.points.end()) return true;
  if (c.kind != Constraint::Kind::kLower && c.kind != Constraint::Kind::kUpper) return false;
  if (&c != path.lower && &c != path.upper) return false;
  bool bothBounds = path.lower && path.upper && path.lower->kind != Constraint::Kind::kPrefix;
  return bothBounds || schema.columns[c.column].notNull;
}

// The conjuncts (of the WHERE, of an ON) whose every constraint the path keys on exactly.
std::vector<const ast::Expr*> enforcedConjuncts(const std::vector<Constraint>& all, const Path& path,
                                                const TableSchema& schema) {
  std::vector<const ast::Expr*> out;
  if (!keysEverything(path, schema)) return out;
  for (const Constraint& c : all) {
    if (!c.conjunct || std::find(out.begin(), out.end(), c.conjunct) != out.end()) continue;
    bool exact = std::all_of(all.begin(), all.end(), [&](const Constraint& d) {
      return d.conjunct != c.conjunct || exactlyKeyed(d, path, schema);
    });
    if (exact) out.push_back(c.conjunct);
  }
  return out;
}

}  // namespace

bool indexesEnabled(const Context& ctx) {
  auto flag = ctx.settings().plannerFlags.find("use_indexes");
  return flag == ctx.settings().plannerFlags.end() || flag->second;
}

OperatorPtr planTableAccess(Binder& binder, const std::shared_ptr<Table>& table, const std::string& qualifier,
                            const ast::Expr* where, const Scope* outer, AccessRequest* request) {
  if (!indexesEnabled(binder.ctx())) {
    auto scan = std::make_unique<TableScanOp>(table);
    scan->notePath("primary key full scan", tableRowCount(*table));
    return scan;
  }
  const TableSchema& schema = table->schema();
  // Bind each promising conjunct over this table's row alone, to read its comparison as the
  // filter will run it (collation, coercion, conversions added around the probe).
  Scope rowScope{{}, outer};
  for (const ColumnSchema& c : schema.columns) rowScope.columns.push_back(scopeColumnOf(c, qualifier));
  ProbeRules rules{binder.ctx(), qualifier, schema, outer};
  std::vector<std::shared_ptr<const BoundExpr>> owners;
  std::vector<Constraint> constraints;
  bool joinSide = request && request->whereReadsNoColumn;
  collectConstraints(binder, where, joinSide, !joinSide, rules, rowScope, owners, constraints);
  if (request) collectConstraints(binder, request->joinOn, false, true, rules, rowScope, owners, constraints);

  std::optional<std::vector<OrderTerm>> terms;
  if (request && request->order && !request->order->orderBy.empty()) terms = orderTermsOf(*request->order, qualifier, schema);
  if (terms && request->firstRowOnly && !firstRowAnswers(*terms, schema)) terms.reset();
  std::vector<KeyShape> shapes = keyShapesOf(schema);
  std::optional<Path> best;
  for (const KeyShape& shape : shapes) {
    Path p = boundPath(shape, constraints, schema);
    if (terms) claimOrder(p, *terms, schema);
    if (!best || better(p, *best)) best = std::move(p);
  }
  // Unbounded, a secondary index only pays for its row fetches when a LIMIT stops it early.
  bool limited = request && request->order && request->order->limit;
  if (best->score == 0 && best->key->index && !limited) {
    best = boundPath(shapes[0], constraints, schema);
    if (terms) claimOrder(*best, *terms, schema);
  }
  auto projection = std::make_shared<ScanProjection>();
  projection->index = best->key->index;
  double estimated = estimateRows(*best, tableRowCount(*table));
  if (request) {
    request->projection = projection;
    request->ordered = best->ordered;
    request->readsEnclosing = readsEnclosing(*best);
    request->estimatedRows = estimated;
    request->enforced = enforcedConjuncts(constraints, *best, schema);
  }
  return scanOf(table, *best, std::move(owners), std::move(projection), estimated);
}

void projectScan(ScanProjection& projection, const TableSchema& schema, const std::set<int>& needed) {
  projection.decoded.assign(schema.columns.size(), false);
  for (int c : needed) projection.decoded[c] = true;
  if (!projection.index) return;
  std::vector<KeyColumn> components = schema.indexes[*projection.index].columns;
  components.insert(components.end(), schema.primaryKey.begin(), schema.primaryKey.end());
  std::vector<int> target;
  std::set<int> covered;
  for (const KeyColumn& k : components) {
    const ColumnSchema& col = schema.columns[k.column];
    bool exact = col.type == LogicalType::kInteger || (col.type == LogicalType::kText && k.collation == Collation::kBinary);
    bool take = needed.count(k.column) && exact && covered.insert(k.column).second;
    target.push_back(take ? k.column : -1);
  }
  if (covered.size() != needed.size()) return;  // a read column is not in the entries, or not exactly
  projection.target = std::move(target);
  projection.desc.clear();
  for (const KeyColumn& k : components) projection.desc.push_back(k.desc);
  projection.width = schema.columns.size();
  projection.covering = true;
}

}  // namespace optic
