// Query binding: SELECT cores, VALUES, compounds, FROM items, CTEs and views (binder.h).
#include "core/planner/binder.h"

#include <algorithm>
#include <optional>

#include "core/common/error.h"
#include "core/execution/committed_scan.h"
#include "core/execution/context.h"
#include "core/execution/expression_nodes.h"
#include "core/execution/operators.h"
#include "core/optimizer/join_cost.h"
#include "core/parser/printer.h"
#include "core/planner/access_path.h"
#include "core/planner/change_scope.h"
#include "core/planner/dml_binder.h"
#include "core/planner/dml_source.h"
#include "core/planner/expr_binder.h"
#include "core/planner/predicates.h"
#include "core/planner/recursive_cte.h"
#include "core/planner/window_planner.h"

namespace optic {


ScopeColumn scopeColumnOf(const ColumnSchema& c, const std::string& qualifier) {
  ScopeColumn sc;
  sc.table = qualifier;
  sc.name = c.name;
  sc.type = c.type;
  sc.collation = c.collation;
  sc.collationRank = c.collationDeclared ? 2 : (c.collation != Collation::kBinary ? 1 : 0);
  return sc;
}

namespace {

[[noreturn]] void failAt(const std::string& msg, const ast::SourcePos& pos) {
  throw Error(ErrorCode::kError, msg, pos.line, pos.column);
}

std::vector<Collation> collationsOf(const std::vector<OutputColumn>& cols) {
  std::vector<Collation> out;
  for (const auto& c : cols) out.push_back(c.collation);
  return out;
}

std::vector<LogicalType> typesOf(const std::vector<OutputColumn>& cols) {
  std::vector<LogicalType> out;
  for (const auto& c : cols) out.push_back(c.type);
  return out;
}

// Output names are unique: the second `id` is `id:1`, the third `id:2`.
void uniquifyNames(std::vector<OutputColumn>& cols) {
  std::map<std::string, int> seen;
  for (auto& c : cols) {
    int& n = seen[c.name];
    if (n > 0) c.name = c.name + ":" + std::to_string(n);
    ++n;
  }
}

// A positional ORDER BY / GROUP BY term (`order by 2`, and `order by -1`, which is an error, not
// a constant): the 0-based output column it names. Anything else is an expression: nullopt.
std::optional<int> positionalTerm(const ast::Expr& e, const char* clause, size_t width) {
  const ast::Expr* lit = &e;
  bool negative = false;
  if (e.kind == ast::ExprKind::kUnary && (e.op == "-" || e.op == "+") && !e.args.empty()) {
    negative = e.op == "-";
    lit = e.args[0].get();
  }
  if (lit->kind != ast::ExprKind::kLiteral || lit->value.kind() != ValueKind::kInteger) return std::nullopt;
  int64_t n = negative ? -lit->value.asInt() : lit->value.asInt();
  if (n < 1 || n > static_cast<int64_t>(width)) {
    failAt(std::string(clause) + " position " + std::to_string(n) + " is not in the SELECT list (1.." +
               std::to_string(width) + ")",
           e.pos);
  }
  return static_cast<int>(n - 1);
}


}  // namespace

Binder::Binder(Context& ctx) : ctx_(ctx), reads_(std::make_unique<ReadRecorder>()) {}
Binder::~Binder() = default;

int Binder::paramSlot(const ast::Expr& e) {
  int slot;
  if (e.name.empty()) {
    slot = e.index > 0 ? e.index : maxParam_ + 1;
  } else if (std::all_of(e.name.begin(), e.name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    slot = std::stoi(e.name);
  } else {
    auto it = std::find(paramNames_.begin(), paramNames_.end(), e.name);
    if (it != paramNames_.end()) return static_cast<int>(it - paramNames_.begin()) + 1;
    slot = maxParam_ + 1;
    if (paramNames_.size() < static_cast<size_t>(slot)) paramNames_.resize(slot);
    paramNames_[slot - 1] = e.name;
  }
  maxParam_ = std::max(maxParam_, slot);
  if (paramNames_.size() < static_cast<size_t>(maxParam_)) paramNames_.resize(maxParam_);
  return slot;
}

namespace {
const ast::Statement* dataModifyingBody(const ast::CommonTableExpr& cte) {
  return cte.dml ? cte.dml.get() : cte.clonedDml;
}

const char* dmlKindName(const ast::Statement& dml) {
  switch (dml.kind) {
    case ast::StatementKind::kInsert: return "INSERT";
    case ast::StatementKind::kUpdate: return "UPDATE";
    default: return "DELETE";
  }
}

bool hasReturning(const ast::Statement& dml) {
  switch (dml.kind) {
    case ast::StatementKind::kInsert: return dml.insert->hasReturning;
    case ast::StatementKind::kUpdate: return dml.update->hasReturning;
    case ast::StatementKind::kDelete: return dml.del->hasReturning;
    default: return false;
  }
}
}  // namespace

void Binder::pushWith(const ast::WithClause* with) {
  ctes_.emplace_back();
  if (!with) return;
  const size_t frame = ctes_.size();
  for (const auto& cte : with->ctes) {
    if (ctes_[frame - 1].count(lowerName(cte.name))) failAt("Duplicate CTE name '" + cte.name + "' in WITH clause", cte.pos);
    auto b = std::make_shared<CteBinding>();
    b->cte = &cte;
    b->recursive = with->recursive;
    b->frame = frame;
    b->index = ctes_[frame - 1].size();
    if (const ast::Statement* dml = dataModifyingBody(cte)) {
      if (queryDepth_ > 0) {
        failAt("WITH member '" + cte.name + "' is data-modifying (" + dmlKindName(*dml) +
                   "), which is only allowed in a statement's own leading WITH clause", cte.pos);
      }
      // Bound now, before the member is visible: its body sees earlier siblings only.
      b->dml = bindDmlSource(*dml, cte.pos);
    }
    ctes_[frame - 1][lowerName(cte.name)] = b;
  }
}

std::shared_ptr<DmlSource> Binder::bindDmlSource(const ast::Statement& dml, const ast::SourcePos& pos) {
  if (auto found = dmlSources_.find(&dml); found != dmlSources_.end()) return found->second;
  if (dml.kind != ast::StatementKind::kInsert && dml.kind != ast::StatementKind::kUpdate &&
      dml.kind != ast::StatementKind::kDelete) {
    failAt("expected INSERT, UPDATE or DELETE as a relation", pos);
  }
  if (!hasReturning(dml)) {
    failAt(std::string(dmlKindName(dml)) + " used as a relation must have a RETURNING clause", pos);
  }
  // The statement's enclosing query levels are not in scope: the write runs once, not per row.
  const int savedDepth = queryDepth_;
  queryDepth_ = 0;
  struct Restore {
    int& depth;
    int saved;
    ~Restore() { depth = saved; }
  } restore{queryDepth_, savedDepth};
  std::unique_ptr<DmlPlan> plan;
  switch (dml.kind) {
    case ast::StatementKind::kInsert: plan = bindInsert(*this, *dml.insert); break;
    case ast::StatementKind::kUpdate: plan = bindUpdate(*this, *dml.update); break;
    default: plan = bindDelete(*this, *dml.del); break;
  }
  auto source = std::make_shared<DmlSource>(std::move(plan));
  dmlSources_[&dml] = source;
  effects_.push_back(source);
  return source;
}

QueryPlan Binder::bindDmlRelation(const ast::Statement& dml, const ast::SourcePos& pos) {
  std::shared_ptr<DmlSource> source = bindDmlSource(dml, pos);
  QueryPlan plan;
  plan.columns = source->columns();
  plan.root = DmlSource::replay(std::move(source));
  return plan;
}

void Binder::pushRowSource(const std::string& name, std::shared_ptr<std::vector<Row>> rows,
                           std::vector<OutputColumn> columns) {
  ctes_.emplace_back();
  auto b = std::make_shared<CteBinding>();
  b->working = std::move(rows);
  b->workingColumns = std::move(columns);
  b->frame = ctes_.size();
  ctes_.back()[lowerName(name)] = b;
}

void Binder::popWith() { ctes_.pop_back(); }

Binder::CteBodyScope::CteBodyScope(Binder& b, const CteBinding& member) : SavedCtes(b) {
  auto& frames = binder_.ctes_;
  frames.resize(std::min(frames.size(), member.frame));
  if (frames.empty()) return;
  // The member's WITH: it never sees itself; outside `with recursive` not its later siblings either.
  auto& own = frames.back();
  for (auto it = own.begin(); it != own.end();) {
    const CteBinding& m = *it->second;
    bool hidden = &m == &member || (!member.recursive && m.cte && m.index > member.index);
    it = hidden ? own.erase(it) : std::next(it);
  }
}

const CteBinding* Binder::findCte(const std::string& name) const {
  std::string key = lowerName(name);
  for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
    auto f = it->find(key);
    if (f != it->end()) return f->second.get();
  }
  return nullptr;
}

std::string Binder::resolveTableSchema(const ast::QualifiedName& name, bool allowViews) const {
  Catalog& cat = ctx_.catalog();
  if (!name.schema.empty()) return lowerName(name.schema);
  std::vector<std::string> path;
  if (!homeSchema_.empty()) path.push_back(homeSchema_);
  for (const std::string& s : statementPath_.empty() ? ctx_.searchPath() : statementPath_) path.push_back(s);
  for (const std::string& s : path) {
    if (cat.findTable(s, name.name) || (allowViews && cat.findView(s, name.name))) return s;
  }
  throw Error(ErrorCode::kNotFound, tableNotFoundMessage(cat, name.name, path, false), name.pos.line, name.pos.column);
}

// ---- queries ---------------------------------------------------------------------------------

QueryPlan Binder::bindQuery(const ast::Select& s, const Scope* outer) {
  SchemaPathScope statementPath(*this, s.withSchema);
  bool pushed = s.with != nullptr;
  if (pushed) pushWith(s.with.get());
  ++queryDepth_;
  struct Pop {
    Binder* b;
    bool on;
    ~Pop() {
      --b->queryDepth_;
      if (on) b->popWith();
    }
  } pop{this, pushed};

  if (s.setOp != ast::SetOp::kNone) return applyOrderLimit(bindCompound(s, outer), s, outer);
  if (!s.values.empty()) return applyOrderLimit(bindValues(s, outer), s, outer);
  return bindCore(s, outer);
}

QueryPlan Binder::bindValues(const ast::Select& s, const Scope* outer) {
  Scope empty{{}, outer};
  std::vector<std::vector<BoundExprPtr>> rows;
  size_t width = s.values[0].size();
  QueryPlan plan;
  for (size_t r = 0; r < s.values.size(); ++r) {
    if (s.values[r].size() != width) failAt("all VALUES must have the same number of terms", s.pos);
    std::vector<BoundExprPtr> row;
    for (const auto& e : s.values[r]) row.push_back(ExprBinder(*this, empty).bind(*e));
    if (r == 0) {
      for (size_t i = 0; i < width; ++i) {
        OutputColumn c;
        c.name = "column_" + std::to_string(i);
        c.type = row[i]->type;
        plan.columns.push_back(c);
      }
    }
    rows.push_back(std::move(row));
  }
  plan.root = std::make_unique<ValuesOp>(std::move(rows));
  return plan;
}

namespace {

// The type a set operation's output column advertises, merged symmetrically from its branches'
// types: one that every row it produces genuinely has. JSON wins over any other type (the other
// branch is cast to it, castBranchToJson); mixed numbers are NUMERIC; any other mix is ANY, so a
// write converts every cell of it.
LogicalType mergeBranchTypes(LogicalType a, LogicalType b) {
  if (a == b) return a;
  if (a == LogicalType::kJson || b == LogicalType::kJson) return LogicalType::kJson;
  if (isNumberType(a) && isNumberType(b)) return LogicalType::kNumeric;
  return LogicalType::kAny;
}

// A branch whose column is not JSON where the merged column is: its cells are cast (leniently,
// as CAST does) to JSON, so each row carries what it would have carried in a JSON column.
void castBranchToJson(QueryPlan& branch, const std::vector<OutputColumn>& merged) {
  bool any = false;
  std::vector<BoundExprPtr> exprs;
  for (size_t i = 0; i < merged.size(); ++i) {
    LogicalType own = branch.columns[i].type;
    BoundExprPtr ref = makeColumnRef(0, static_cast<int>(i), own);
    if (merged[i].type == LogicalType::kJson && own != LogicalType::kJson) {
      ref = std::make_unique<CastExpr>(std::move(ref), LogicalType::kJson);
      any = true;
    }
    exprs.push_back(std::move(ref));
  }
  if (any) branch.root = std::make_unique<ProjectOp>(std::move(branch.root), std::move(exprs));
}

}  // namespace

QueryPlan Binder::bindCompound(const ast::Select& s, const Scope* outer) {
  QueryPlan l = bindQuery(*s.left, outer);
  QueryPlan r = bindQuery(*s.right, outer);
  if (l.columns.size() != r.columns.size()) {
    failAt("SET operation column count mismatch: left has " + std::to_string(l.columns.size()) + ", right has " +
               std::to_string(r.columns.size()), s.pos);
  }
  SetOpKind kind = SetOpKind::kUnion;
  switch (s.setOp) {
    case ast::SetOp::kUnion: kind = SetOpKind::kUnion; break;
    case ast::SetOp::kUnionAll: kind = SetOpKind::kUnionAll; break;
    case ast::SetOp::kIntersect: kind = SetOpKind::kIntersect; break;
    case ast::SetOp::kExcept: kind = SetOpKind::kExcept; break;
    case ast::SetOp::kDiff: kind = SetOpKind::kDiff; break;
    case ast::SetOp::kNone: break;
  }
  QueryPlan plan;
  plan.columns = l.columns;
  for (size_t i = 0; i < plan.columns.size(); ++i) {
    const OutputColumn& a = l.columns[i];
    const OutputColumn& b = r.columns[i];
    plan.columns[i].type = mergeBranchTypes(a.type, b.type);
    // Rows are compared across the legs (except under UNION ALL, which keeps every row), so
    // the legs' collations meet as in a comparison.
    RankedCollation merged = mergeCollations({{a.collation, a.collationRank}, {b.collation, b.collationRank}},
                                             kind != SetOpKind::kUnionAll);
    plan.columns[i].collation = merged.collation;
    plan.columns[i].collationRank = merged.rank;
  }
  castBranchToJson(l, plan.columns);
  castBranchToJson(r, plan.columns);
  plan.sourceTables = l.sourceTables;
  plan.sourceTables.insert(plan.sourceTables.end(), r.sourceTables.begin(), r.sourceTables.end());
  std::vector<Collation> collations = collationsOf(plan.columns);
  std::vector<LogicalType> types = typesOf(plan.columns);
  // Membership flags (§5) follow the data columns: left's, then right's.
  SetOpMembership membership{!s.existsLeftAs.empty(), !s.existsRightAs.empty()};
  for (const std::string* flag : {&s.existsLeftAs, &s.existsRightAs}) {
    if (!flag->empty()) plan.columns.push_back(OutputColumn{*flag, LogicalType::kBoolean});
  }
  plan.root = std::make_unique<SetOpOp>(std::move(l.root), std::move(r.root), kind, std::move(collations), std::move(types),
                                        membership);
  return plan;
}

// ORDER BY / LIMIT over a compound or VALUES: terms name output columns (by name or ordinal) or
// are expressions over the output columns.
QueryPlan Binder::applyOrderLimit(QueryPlan plan, const ast::Select& s, const Scope* outer) {
  if (!s.orderBy.empty()) {
    Scope scope{{}, outer};
    for (const auto& c : plan.columns) {
      ScopeColumn sc;
      sc.name = c.name;
      sc.type = c.type;
      sc.collation = c.collation;
      sc.collationRank = c.collationRank;
      scope.columns.push_back(sc);
    }
    std::vector<SortKey> keys;
    for (const auto& term : s.orderBy) {
      SortKey k;
      const ast::Expr& e = *term.expr;
      if (auto at = positionalTerm(e, "ORDER BY", plan.columns.size())) {
        k.expr = makeColumnRef(0, *at, plan.columns[*at].type);
        k.collation = plan.columns[*at].collation;
      } else {
        k.expr = ExprBinder(*this, scope).bind(e);
        k.collation = k.expr->collation;
      }
      k.desc = term.desc;
      k.nullsFirst = term.nulls == ast::OrderingTerm::Nulls::kDefault ? true : term.nulls == ast::OrderingTerm::Nulls::kFirst;
      keys.push_back(std::move(k));
    }
    plan.root = std::make_unique<SortOp>(std::move(plan.root), std::move(keys));
  }
  if (s.limit || s.offset) {
    Scope empty{{}, outer};
    BoundExprPtr limit = s.limit ? ExprBinder(*this, empty).bind(*s.limit) : nullptr;
    BoundExprPtr offset = s.offset ? ExprBinder(*this, empty).bind(*s.offset) : nullptr;
    plan.root = std::make_unique<LimitOp>(std::move(plan.root), std::move(limit), std::move(offset));
  }
  return plan;
}

namespace {

// One equi-join key pair for the hash join, each side reconciled with the other's category.
void addEquiKeys(std::vector<std::pair<BoundExprPtr, BoundExprPtr>>& equi, BoundExprPtr l, BoundExprPtr r) {
  LogicalType lt = l->type, rt = r->type;
  equi.emplace_back(coerceKeyToward(std::move(l), rt), coerceKeyToward(std::move(r), lt));
}

// The name a result column gets (sql-core.md §2).
std::string resultName(const ast::ResultColumn& rc) {
  if (!rc.alias.empty()) return rc.alias;
  const ast::Expr& e = *rc.expr;
  if (e.kind == ast::ExprKind::kColumn) return e.name;
  return printExpr(e);
}

}  // namespace

OperatorPtr Binder::filterOf(OperatorPtr input, const ast::Expr& where, const std::vector<const ast::Expr*>& enforced,
                             const Scope& scope) {
  if (enforced.empty()) return std::make_unique<FilterOp>(std::move(input), ExprBinder(*this, scope).bind(where));
  // Each conjunct is bound (it is read: change scopes and the scan's columns count it), and only
  // those the scan does not answer are tested.
  BoundExprPtr test;
  for (const ast::Expr* c : conjunctsOf(&where)) {
    BoundExprPtr bound = ExprBinder(*this, scope).bind(*c);
    if (std::find(enforced.begin(), enforced.end(), c) != enforced.end()) continue;
    test = test ? std::make_unique<LogicExpr>(LogicOp::kAnd, std::move(test), std::move(bound)) : std::move(bound);
  }
  return test ? std::make_unique<FilterOp>(std::move(input), std::move(test)) : std::move(input);
}

void Binder::projectScansFrom(size_t first) {
  for (size_t i = first; i < projectable_.size(); ++i) {
    const ProjectableScan& p = projectable_[i];
    const TableRead& read = reads_->reads()[p.read];
    if (!read.allColumns) projectScan(*p.projection, p.table->schema(), read.columns);
  }
  projectable_.resize(first);
}

QueryPlan Binder::bindCore(const ast::Select& s, const Scope* outer) {
  QueryPlan plan;
  // The scans this level plans are narrowed once everything reading their rows is bound; an
  // abandoned binding forgets them.
  struct Projectable {
    Binder& b;
    size_t first;
    ~Projectable() {
      if (b.projectable_.size() > first) b.projectable_.resize(first);
    }
  } projectable{*this, projectable_.size()};
  // FROM
  Source src;
  // A plain (ungrouped, not DISTINCT) level may take its ORDER BY from the scan's key order.
  AccessRequest access;
  if (s.groupBy.empty() && !s.distinct && !s.having) access.order = &s;
  // `select min(c)` / `max(c)`: one row of a scan ordered by c holds the answer.
  std::unique_ptr<ast::Select> extremum = extremumOrder(s);
  if (extremum) {
    access.order = extremum.get();
    access.firstRowOnly = true;
  }
  if (s.from) {
    src = bindFrom(*s.from, outer, s.where.get(), &access);
  } else {
    src.op = std::make_unique<SingleRowOp>();
  }
  Scope scope{src.columns, outer};
  OperatorPtr op = std::move(src.op);

  // WHERE
  if (s.where) {
    std::vector<const ast::Expr*> aggs;
    collectAggregates(*s.where, ctx_, aggs);
    if (!aggs.empty()) failAt("Aggregate function " + aggs[0]->name + " not allowed in this context", aggs[0]->pos);
    op = filterOf(std::move(op), *s.where, access.enforced, scope);
  }
  if (extremum && access.ordered) op = std::make_unique<LimitOp>(std::move(op), makeLiteral(Value::integer(1)), nullptr);

  // Expand the select list (stars) into expressions with names.
  struct Item {
    const ast::Expr* expr = nullptr;  // null: a direct input column (star expansion)
    int column = -1;
    std::string name;
    std::string alias;  // `as` name of a select-list expression
  };
  std::vector<Item> items;
  for (const auto& rc : s.columns) {
    if (rc.kind == ast::ResultColumn::Kind::kExpr) {
      items.push_back({rc.expr.get(), -1, resultName(rc), rc.alias});
      continue;
    }
    bool any = false;
    for (size_t i = 0; i < scope.columns.size(); ++i) {
      const ScopeColumn& c = scope.columns[i];
      if (c.hidden) continue;
      if (rc.kind == ast::ResultColumn::Kind::kTableStar && lowerName(c.table) != lowerName(rc.table)) continue;
      items.push_back({nullptr, static_cast<int>(i), c.name});
      reads_->readAll(c.read);
      any = true;
    }
    if (!any && rc.kind == ast::ResultColumn::Kind::kTableStar) failAt("no such table: " + rc.table, rc.pos);
    if (!any && !s.from) failAt("SELECT * with no tables specified", rc.pos);
  }
  // The quirk of §2: a select list that is exactly the source's columns in order reports the
  // declared spellings.
  if (items.size() == scope.columns.size()) {
    bool exact = true;
    for (size_t i = 0; i < items.size() && exact; ++i) {
      const ast::Expr* e = items[i].expr;
      if (e) {
        exact = items[i].alias.empty() && e->kind == ast::ExprKind::kColumn &&
                lowerName(e->name) == lowerName(scope.columns[i].name);
      }
    }
    if (exact) {
      for (size_t i = 0; i < items.size(); ++i) items[i].name = scope.columns[i].name;
    }
  }

  ExprBinder::Aliases aliases;
  for (const auto& rc : s.columns) {
    if (rc.kind == ast::ResultColumn::Kind::kExpr && !rc.alias.empty()) aliases.emplace_back(rc.alias, rc.expr.get());
  }

  // Aggregation.
  std::vector<const ast::Expr*> aggExprs;
  for (const Item& it : items) if (it.expr) collectAggregates(*it.expr, ctx_, aggExprs);
  if (s.having) collectAggregates(*s.having, ctx_, aggExprs);
  for (const auto& t : s.orderBy) collectAggregates(*t.expr, ctx_, aggExprs);
  std::vector<const ast::Expr*> windowExprs;
  for (const Item& it : items) if (it.expr) collectWindowCalls(*it.expr, windowExprs);
  for (const auto& t : s.orderBy) collectWindowCalls(*t.expr, windowExprs);

  bool grouped = !s.groupBy.empty() || !aggExprs.empty();
  // A window call is a per-row value: beside an aggregate with no GROUP BY there is no row for it.
  if (s.groupBy.empty() && !aggExprs.empty() && !windowExprs.empty()) {
    failAt("Cannot mix aggregate and non-aggregate columns in SELECT list without GROUP BY", windowExprs[0]->pos);
  }
  DerivedSlots slots;
  Scope aggScope{{}, outer};
  aggScope.ungrouped = &scope;
  const Scope* projScope = &scope;
  // Without GROUP BY, an ORDER BY over input columns orders the input of order-sensitive
  // aggregates (group_concat): sort before aggregating, and the single output row needs no sort.
  bool orderFeedsAggregates = grouped && s.groupBy.empty() && !s.orderBy.empty();
  for (const auto& t : s.orderBy) {
    std::vector<const ast::Expr*> inOrder;
    collectAggregates(*t.expr, ctx_, inOrder);
    if (!inOrder.empty()) orderFeedsAggregates = false;
  }
  if (orderFeedsAggregates) {
    std::vector<SortKey> keys;
    for (const auto& term : s.orderBy) {
      SortKey k;
      k.expr = ExprBinder(*this, scope).bind(*term.expr);
      k.collation = k.expr->collation;
      k.desc = term.desc;
      k.nullsFirst = term.nulls != ast::OrderingTerm::Nulls::kLast;
      keys.push_back(std::move(k));
    }
    op = std::make_unique<SortOp>(std::move(op), std::move(keys));
  }
  if (grouped) {
    slots.inputScope = &scope;
    slots.implicitGroup = s.groupBy.empty();
    std::vector<BoundExprPtr> groupExprs;
    std::vector<Collation> groupColls;
    for (const auto& g : s.groupBy) {
      const ast::Expr* ge = g.get();
      // Positional `group by 2` and select-alias references.
      if (auto at = positionalTerm(*ge, "GROUP BY", items.size())) {
        if (items[*at].expr) ge = items[*at].expr;
      } else if (ge->kind == ast::ExprKind::kColumn && ge->table.empty()) {
        bool inScope = std::any_of(scope.columns.begin(), scope.columns.end(),
                                   [&](const ScopeColumn& c) { return lowerName(c.name) == lowerName(ge->name); });
        if (!inScope) {
          for (size_t i = 0; i < s.columns.size(); ++i) {
            if (!s.columns[i].alias.empty() && lowerName(s.columns[i].alias) == lowerName(ge->name)) {
              ge = s.columns[i].expr.get();
              break;
            }
          }
        }
      }
      BoundExprPtr b = ExprBinder(*this, scope).bind(*ge);
      int col = -1;
      if (auto* c = dynamic_cast<ColumnExpr*>(b.get()); c && c->depth() == 0) col = c->index();
      slots.keyTexts.push_back(printFingerprint(*ge));
      slots.keyColumns.push_back(col);
      groupColls.push_back(b->collation);
      ScopeColumn sc;
      sc.name = "group_" + std::to_string(groupExprs.size());
      // A plain-column key keeps the column's name, so a correlated subquery of this level
      // (`order by (select count(*) from d where d.k = p.k)`) reaches the group's value.
      if (col >= 0 && std::count(slots.keyColumns.begin(), slots.keyColumns.end(), col) == 1) {
        sc.table = scope.columns[col].table;
        sc.name = scope.columns[col].name;
      }
      sc.type = b->type;
      sc.collation = b->collation;
      sc.collationRank = b->collationRank;
      aggScope.columns.push_back(sc);
      groupExprs.push_back(std::move(b));
    }
    slots.aggBase = static_cast<int>(groupExprs.size());
    aggScope.keyTexts = slots.keyTexts;
    std::vector<AggregateCall> calls;
    for (const ast::Expr* a : aggExprs) {
      std::string text = printFingerprint(*a);
      if (std::find(slots.aggTexts.begin(), slots.aggTexts.end(), text) != slots.aggTexts.end()) continue;
      if (a->filter) failAt("not supported yet: aggregate FILTER clause", a->pos);
      if (!a->orderBy.empty()) failAt("not supported yet: ORDER BY inside aggregate calls", a->pos);
      int n = a->star ? 0 : static_cast<int>(a->args.size());
      AggregateCall call;
      call.fn = ctx_.functions().findAggregate(a->name, n);
      call.distinct = a->distinct;
      for (const auto& arg : a->args) {
        std::vector<const ast::Expr*> nested;
        collectAggregates(*arg, ctx_, nested);
        if (!nested.empty()) failAt("Aggregate function " + nested[0]->name + " not allowed in this context", nested[0]->pos);
        call.args.push_back(ExprBinder(*this, scope).bind(*arg));
      }
      if (!call.args.empty()) {
        call.collation = call.args[0]->collation;
        call.argType = call.args[0]->type;
      }
      ScopeColumn sc;
      sc.name = printExpr(*a);
      sc.type = call.fn->returnType;
      if (!call.args.empty() && (call.fn->name == "min" || call.fn->name == "max")) {
        sc.collation = call.args[0]->collation;
        sc.collationRank = call.args[0]->collationRank;
        sc.type = staticType(*call.args[0]);  // min('2.5') is TEXT, as its argument
      }
      aggScope.columns.push_back(sc);
      slots.aggTexts.push_back(text);
      calls.push_back(std::move(call));
    }
    op = std::make_unique<HashAggregateOp>(std::move(op), std::move(groupExprs), std::move(groupColls), std::move(calls));
    projScope = &aggScope;
    for (const auto& [alias, expr] : aliases) {
      if (alias.find('.') != std::string::npos) continue;  // not a name: see ExprBinder::aliasFor
      std::string text = printFingerprint(*expr);
      auto key = std::find(slots.keyTexts.begin(), slots.keyTexts.end(), text);
      auto agg = std::find(slots.aggTexts.begin(), slots.aggTexts.end(), text);
      if (key != slots.keyTexts.end()) aggScope.aliases.emplace_back(alias, static_cast<int>(key - slots.keyTexts.begin()));
      else if (agg != slots.aggTexts.end()) aggScope.aliases.emplace_back(alias, slots.aggBase + static_cast<int>(agg - slots.aggTexts.begin()));
    }
    if (s.having) {
      DerivedSlots havingSlots = slots;
      havingSlots.having = true;
      op = std::make_unique<FilterOp>(std::move(op),
                                      ExprBinder(*this, aggScope, &havingSlots).withAliases(&aliases).bind(*s.having));
    }
  } else if (s.having) {
    failAt("HAVING clause requires GROUP BY or an aggregate", s.having->pos);
  }
  const DerivedSlots* slotPtr = grouped ? &slots : nullptr;

  // Window calls: the window operator appends one value per distinct call to each row.
  DerivedSlots windowSlots;
  if (!windowExprs.empty()) {
    std::vector<const ast::Expr*> calls;
    std::vector<std::string> texts;
    for (const ast::Expr* w : windowExprs) {
      std::string text = printFingerprint(*w);
      if (std::find(texts.begin(), texts.end(), text) != texts.end()) continue;
      texts.push_back(text);
      calls.push_back(w);
    }
    op = planWindows(*this, std::move(op), *projScope, slotPtr, calls, &aliases);
    if (grouped) {
      windowSlots = slots;
    } else {
      windowSlots.inputScope = &scope;
      windowSlots.windowMode = true;
      windowSlots.aggBase = static_cast<int>(scope.columns.size());
    }
    for (std::string& t : texts) windowSlots.aggTexts.push_back(std::move(t));
    slotPtr = &windowSlots;
  }

  // Projection: the outputs, then hidden ORDER BY terms that are not outputs.
  std::vector<BoundExprPtr> exprs;
  for (const Item& it : items) {
    OutputColumn oc;
    oc.name = it.name;
    if (it.expr) {
      exprs.push_back(ExprBinder(*this, *projScope, slotPtr).bind(*it.expr));
    } else {
      if (grouped) {
        ast::Expr ref;
        ref.kind = ast::ExprKind::kColumn;
        ref.name = scope.columns[it.column].name;
        ref.table = scope.columns[it.column].table;
        exprs.push_back(ExprBinder(*this, *projScope, slotPtr).bind(ref));
      } else {
        const ScopeColumn& c = scope.columns[it.column];
        auto ref = makeColumnRef(0, it.column, c.type);
        ref->collation = c.collation;
        ref->collationRank = c.collationRank;
        exprs.push_back(std::move(ref));
      }
    }
    oc.type = staticType(*exprs.back());  // a literal's column has its value's type
    oc.collation = exprs.back()->collation;
    oc.collationRank = exprs.back()->collationRank;
    plan.columns.push_back(oc);
  }
  size_t width = exprs.size();
  std::vector<SortKey> sortKeys;
  const std::vector<ast::OrderingTerm> noTerms;
  for (const auto& term : orderFeedsAggregates ? noTerms : s.orderBy) {
    SortKey k;
    const ast::Expr& e = *term.expr;
    int outIndex = -1;
    if (auto at = positionalTerm(e, "ORDER BY", width)) {
      outIndex = *at;
    } else if (e.kind == ast::ExprKind::kColumn && e.table.empty()) {
      // Items, not s.columns: a `*` before the alias expands to several outputs.
      for (size_t i = 0; i < items.size() && i < width; ++i) {
        if (!items[i].alias.empty() && lowerName(items[i].alias) == lowerName(e.name)) {
          outIndex = static_cast<int>(i);
          break;
        }
      }
    }
    if (outIndex < 0) {
      std::string text = printExpr(e);
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].expr && printExpr(*items[i].expr) == text) {
          outIndex = static_cast<int>(i);
          break;
        }
      }
    }
    if (outIndex >= 0) {
      k.expr = makeColumnRef(0, outIndex, plan.columns[outIndex].type);
      k.collation = plan.columns[outIndex].collation;
    } else {
      BoundExprPtr b = ExprBinder(*this, *projScope, slotPtr).withAliases(&aliases).bind(e);
      k.collation = b->collation;
      k.expr = makeColumnRef(0, static_cast<int>(exprs.size()), b->type);
      exprs.push_back(std::move(b));
    }
    if (term.expr->kind == ast::ExprKind::kCollate) {
      std::optional<Collation> c = collationFromName(term.expr->name);
      if (c) k.collation = *c;
    }
    k.desc = term.desc;
    k.nullsFirst = term.nulls == ast::OrderingTerm::Nulls::kDefault ? true : term.nulls == ast::OrderingTerm::Nulls::kFirst;
    sortKeys.push_back(std::move(k));
  }
  bool extras = exprs.size() > width;
  op = std::make_unique<ProjectOp>(std::move(op), std::move(exprs));
  if (s.distinct) op = std::make_unique<DistinctOp>(std::move(op), collationsOf(plan.columns), typesOf(plan.columns));
  // Aggregation and window calls reorder rows; otherwise an ordered scan already sorted them.
  bool scanOrdered = access.ordered && !grouped && windowExprs.empty();
  if (!sortKeys.empty() && !scanOrdered) op = std::make_unique<SortOp>(std::move(op), std::move(sortKeys));
  if (s.limit || s.offset) {
    Scope empty{{}, outer};
    BoundExprPtr limit = s.limit ? ExprBinder(*this, empty).bind(*s.limit) : nullptr;
    BoundExprPtr offset = s.offset ? ExprBinder(*this, empty).bind(*s.offset) : nullptr;
    op = std::make_unique<LimitOp>(std::move(op), std::move(limit), std::move(offset));
  }
  if (extras) {
    std::vector<BoundExprPtr> strip;
    for (size_t i = 0; i < width; ++i) strip.push_back(makeColumnRef(0, static_cast<int>(i), plan.columns[i].type));
    op = std::make_unique<ProjectOp>(std::move(op), std::move(strip));
  }
  uniquifyNames(plan.columns);
  plan.root = std::move(op);
  projectScansFrom(projectable.first);
  return plan;
}

// ---- FROM ------------------------------------------------------------------------------------

namespace {

// The rows a derived source's plan is expected to yield, for a join above it: the estimate of
// the one scan under a chain of single-input operators (projections, filters, sorts: at most
// as many rows); negative when the plan has no such scan.
double estimatedRowsOf(const Operator& op) {
  std::vector<const Operator*> inputs = op.inputs();
  if (inputs.empty()) return op.describe().estimatedRows;
  return inputs.size() == 1 ? estimatedRowsOf(*inputs[0]) : -1;
}

}  // namespace

Binder::Source Binder::planFromQuery(QueryPlan plan, const std::string& alias,
                                     const std::vector<std::string>& aliases) {
  Source src;
  src.op = std::move(plan.root);
  for (size_t i = 0; i < plan.columns.size(); ++i) {
    ScopeColumn sc;
    sc.table = alias;
    sc.name = i < aliases.size() ? aliases[i] : plan.columns[i].name;
    sc.type = plan.columns[i].type;
    sc.collation = plan.columns[i].collation;
    sc.collationRank = plan.columns[i].collationRank;
    src.columns.push_back(sc);
  }
  return src;
}

Binder::Source Binder::bindFrom(const ast::FromItem& item, const Scope* outer, const ast::Expr* where,
                                AccessRequest* request) {
  using K = ast::FromItem::Kind;
  switch (item.kind) {
    case K::kTable:
      return bindTableRef(item, outer, where, request);
    case K::kSubquery: {
      QueryPlan q = bindDerived(*item.select, item.columnAliases, item.alias, where, outer);
      if (request) request->estimatedRows = estimatedRowsOf(*q.root);
      return planFromQuery(std::move(q), item.alias, item.columnAliases);
    }
    case K::kFunction: {
      const TableFunction* fn = ctx_.functions().findTable(item.table.name);
      if (!fn) failAt("Table function not found: " + item.table.name, item.pos);
      int n = static_cast<int>(item.args.size());
      if (n < fn->minArgs || (fn->maxArgs >= 0 && n > fn->maxArgs)) {
        failAt("Function not found: " + lowerName(item.table.name) + "/" + std::to_string(n), item.pos);
      }
      Scope argScope{{}, outer};
      auto args = std::make_shared<std::vector<BoundExprPtr>>();
      for (const auto& a : item.args) args->push_back(ExprBinder(*this, argScope).bind(*a));
      Source src;
      src.op = std::make_unique<GeneratedRowsOp>([fn, args](ExecState& st, const EvalContext* o) {
        static const Row kEmpty;
        EvalContext ctx{&kEmpty, o, &st};
        std::vector<Value> vals;
        for (const auto& a : *args) vals.push_back(a->eval(ctx));
        return fn->impl(Args(vals.data(), vals.size()), st.fn);
      });
      std::string qualifier = item.alias.empty() ? item.table.name : item.alias;
      for (const auto& c : fn->columns) {
        ScopeColumn sc;
        sc.table = qualifier;
        sc.name = c;
        src.columns.push_back(sc);
      }
      return src;
    }
    case K::kJoin:
      return bindJoin(item, outer, where, request);
    case K::kDml:
      return planFromQuery(bindDmlRelation(*item.dml, item.pos), item.alias, item.columnAliases);
  }
  failAt("unsupported FROM item", item.pos);
}

Binder::Source Binder::bindTableRef(const ast::FromItem& item, const Scope* outer, const ast::Expr* where,
                                    AccessRequest* request) {
  std::string qualifier = item.alias.empty() ? item.table.name : item.alias;
  if (item.table.schema.empty()) {
    if (const CteBinding* cte = findCte(item.table.name)) {
      if (cte->working) {
        auto working = cte->working;
        Source src;
        src.op = std::make_unique<GeneratedRowsOp>([working](ExecState&, const EvalContext*) { return *working; });
        for (size_t i = 0; i < cte->workingColumns.size(); ++i) {
          ScopeColumn sc;
          sc.table = qualifier;
          sc.name = cte->workingColumns[i].name;
          sc.type = cte->workingColumns[i].type;
          sc.collation = cte->workingColumns[i].collation;
          sc.collationRank = cte->workingColumns[i].collationRank;
          src.columns.push_back(sc);
        }
        return src;
      }
      const ast::CommonTableExpr& def = *cte->cte;
      QueryPlan q;
      if (cte->dml) {
        q.columns = cte->dml->columns();
        q.root = DmlSource::replay(cte->dml);
      } else if (cte->recursive && hasRecursiveStep(def)) {
        q = bindRecursiveCte(*this, const_cast<CteBinding&>(*cte), outer);
      } else {
        CteBodyScope visible(*this, *cte);
        q = def.materialized == ast::CommonTableExpr::Materialized::kMaterialized
                ? bindQuery(*def.select, outer)
                : bindDerived(*def.select, def.columns, qualifier, where, outer);
      }
      if (!def.columns.empty() && def.columns.size() != q.columns.size()) {
        failAt("CTE '" + def.name + "' has " + std::to_string(def.columns.size()) +
                   " declared columns but its body produces " + std::to_string(q.columns.size()), def.pos);
      }
      return planFromQuery(std::move(q), qualifier, def.columns);
    }
  }
  Catalog& cat = ctx_.catalog();
  std::shared_ptr<Table> table;
  std::string schema;
  bool committed = isCommittedName(cat, item.table);
  if (committed) {  // `committed.t`: t through the search path, as of the transaction's start
    ast::QualifiedName plain = item.table;
    plain.schema.clear();
    schema = resolveTableSchema(plain, false);
  } else {
    schema = resolveTableSchema(item.table);
  }
  if (auto view = committed ? nullptr : cat.findView(schema, item.table.name)) {
    if (++viewDepth_ > 64) failAt("view nesting too deep (circular view?)", item.pos);
    struct Restore {
      Binder& b;
      std::string home;
      ~Restore() {
        b.homeSchema_ = home;
        --b.viewDepth_;
      }
    } restore{*this, homeSchema_};
    homeSchema_ = view->schemaName;
    CteIsolation isolation(*this);
    QueryPlan q = bindDerived(*view->select, view->columnNames, qualifier, where, outer);
    if (request) request->estimatedRows = estimatedRowsOf(*q.root);
    return planFromQuery(std::move(q), qualifier, view->columnNames);
  }
  table = cat.findTable(schema, item.table.name);
  if (!table) {
    throw Error(ErrorCode::kNotFound, "Table not found: " + schema + "." + item.table.name, item.table.pos.line,
                item.table.pos.column);
  }
  if (table->schema().derivation) ctx_.maintenance().requireCurrent(table);
  Source src;
  src.op = committed ? std::make_unique<CommittedScanOp>(table, ctx_.txn())
                     : planTableAccess(*this, table, qualifier, where, outer, request);
  int read = -1;
  if (table->schema().derivation) {
    recordMaterializedViewSources(*reads_, ctx_, table);  // §4: its sources, not the MV
    read = reads_->addDerived(table);
  } else {
    read = reads_->addTable(table);
    if (request && request->projection) projectable_.push_back({request->projection, table, read});
    // A join side's scan may be bounded by the level's WHERE, but its change scope keeps to
    // the single-table reading of WHERE.
    bool joinSide = request && request->whereReadsNoColumn;
    recordKeyPins(*reads_, read, *table, qualifier, joinSide ? nullptr : where);
  }
  for (const ColumnSchema& c : table->schema().columns) {
    src.columns.push_back(scopeColumnOf(c, qualifier));
    src.columns.back().read = read;
    src.columns.back().baseColumn = static_cast<int>(src.columns.size()) - 1;
  }
  return src;
}

Binder::Source Binder::bindJoin(const ast::FromItem& item, const Scope* outer, const ast::Expr* where,
                                AccessRequest* request) {
  if (item.commaJoin) failAt("SELECT with multiple FROM sources (joins) not supported.", item.pos);
  if (item.natural) failAt("not supported yet: NATURAL JOIN", item.pos);
  JoinKind kind = JoinKind::kInner;
  switch (item.joinType) {
    case ast::JoinType::kInner: kind = JoinKind::kInner; break;
    case ast::JoinType::kLeft: kind = JoinKind::kLeft; break;
    case ast::JoinType::kRight: kind = JoinKind::kRight; break;
    case ast::JoinType::kFull: kind = JoinKind::kFull; break;
    case ast::JoinType::kCross: kind = JoinKind::kCross; break;
  }
  // The level's WHERE may bound a side's scan where it only filters that side's rows: either
  // side of an inner or cross join, the preserved side of a left join (the filter above still
  // checks it; its probes read no column, as the other side is out of the scan's scope).
  bool innerish = kind == JoinKind::kInner || kind == JoinKind::kCross;
  bool flagged = !item.existsAs.empty() || !item.existsLeftAs.empty() || !item.existsRightAs.empty();
  // An inner join of two base tables may run right side first (join_order.cpp); the output
  // keeps the written column order.
  const bool swapped = kind == JoinKind::kInner && item.on && !item.lateral && !flagged &&
                       item.usingColumns.empty() && joinSidesSwap(item, outer, where);
  const ast::FromItem& first = swapped ? *item.right : *item.left;
  const ast::FromItem& second = swapped ? *item.left : *item.right;
  AccessRequest leftAccess, rightAccess;
  leftAccess.whereReadsNoColumn = rightAccess.whereReadsNoColumn = true;
  Source left = bindFrom(first, outer, innerish || kind == JoinKind::kLeft ? where : nullptr, &leftAccess);
  Scope leftScope{left.columns, outer};
  // An index nested-loop join: the right side re-opened per left row, its key bounded by the ON
  // condition's values of that row, when few left rows meet a large indexed right table.
  std::shared_ptr<Table> rightTable = joinableTable(second);
  bool tryIndexJoin = !item.lateral && !flagged && item.on && (innerish || kind == JoinKind::kLeft) && rightTable &&
                      indexJoinPays(leftAccess.estimatedRows, tableRowCount(*rightTable));
  if (tryIndexJoin) rightAccess.joinOn = item.on.get();
  Source right = bindFrom(second, item.lateral || tryIndexJoin ? &leftScope : outer, innerish ? where : nullptr,
                          &rightAccess);
  // Bound over the left row but reading none of it, the right side runs as a plain one.
  const bool lateral = item.lateral || (tryIndexJoin && rightAccess.readsEnclosing);
  Source out;
  out.columns = left.columns;
  out.columns.insert(out.columns.end(), right.columns.begin(), right.columns.end());
  size_t lw = left.columns.size(), rw = right.columns.size();
  Scope joined{out.columns, outer};

  // Existence flags (§5): `exists as n` names the null-extendable side (right of LEFT/INNER,
  // left of RIGHT); FULL must say which side. Each flagged side carries a hidden TRUE marker
  // through the join: null-extension turns it NULL, so the flag is `marker IS NOT NULL` and is
  // exact even when the side's own columns are all NULL.
  std::string leftFlag = item.existsLeftAs, rightFlag = item.existsRightAs;
  if (!item.existsAs.empty()) {
    if (kind == JoinKind::kFull) failAt("a FULL join's existence flag must name its side: exists left|right as", item.pos);
    (kind == JoinKind::kRight ? leftFlag : rightFlag) = item.existsAs;
  }
  const size_t leftCols = left.columns.size(), rightCols = right.columns.size();
  auto addMarker = [](Source& s) {
    std::vector<BoundExprPtr> exprs;
    for (size_t i = 0; i < s.columns.size(); ++i) exprs.push_back(makeColumnRef(0, static_cast<int>(i), s.columns[i].type));
    exprs.push_back(makeLiteral(Value::boolean(true)));
    s.op = std::make_unique<ProjectOp>(std::move(s.op), std::move(exprs));
    ScopeColumn marker;
    marker.hidden = true;  // unnamed and hidden: nothing can resolve it
    marker.type = LogicalType::kBoolean;
    s.columns.push_back(marker);
  };
  if (!leftFlag.empty() || !rightFlag.empty()) {
    if (!leftFlag.empty()) addMarker(left);
    if (!rightFlag.empty()) addMarker(right);
    out.columns = left.columns;
    out.columns.insert(out.columns.end(), right.columns.begin(), right.columns.end());
    lw = left.columns.size();
    rw = right.columns.size();
    joined = Scope{out.columns, outer};
  }

  // The join condition: ON, or USING's equalities.
  std::vector<BoundExprPtr> conjuncts;
  std::vector<std::pair<BoundExprPtr, BoundExprPtr>> equi;
  std::vector<Collation> equiColl;
  auto addCondition = [&](BoundExprPtr cond) { conjuncts.push_back(std::move(cond)); };
  if (!item.usingColumns.empty()) {
    for (const std::string& name : item.usingColumns) {
      // Each side's first column of that name: after `a join b using (k)` the left side has two.
      auto firstNamed = [&](const Source& side) {
        for (size_t i = 0; i < side.columns.size(); ++i) {
          if (lowerName(side.columns[i].name) == lowerName(name)) return static_cast<int>(i);
        }
        return -1;
      };
      int li = firstNamed(left), ri = firstNamed(right);
      if (li < 0) failAt("USING column not found on left side of join: " + name, item.pos);
      if (ri < 0) failAt("USING column not found on right side of join: " + name, item.pos);
      reads_->readColumn(left.columns[li].read, left.columns[li].baseColumn);
      reads_->readColumn(right.columns[ri].read, right.columns[ri].baseColumn);
      // USING (name) is `l.name = r.name`: the same collation rules, the same errors.
      auto l = makeColumnRef(0, li, left.columns[li].type);
      auto r = makeColumnRef(0, ri, right.columns[ri].type);
      l->collation = left.columns[li].collation;
      l->collationRank = left.columns[li].collationRank;
      r->collation = right.columns[ri].collation;
      r->collationRank = right.columns[ri].collationRank;
      equiColl.push_back(comparisonCollation(*l, *r));
      addEquiKeys(equi, std::move(l), std::move(r));
    }
  } else if (item.on) {
    std::vector<const ast::Expr*> parts = conjunctsOf(item.on.get());
    for (const ast::Expr* p : parts) {
      BoundExprPtr b = ExprBinder(*this, joined).bind(*p);
      // The inner side, re-opened per left row, yields only the rows its key answers it for.
      if (lateral && std::find(rightAccess.enforced.begin(), rightAccess.enforced.end(), p) != rightAccess.enforced.end()) {
        continue;
      }
      // An equality whose sides read only the left and only the right becomes a hash key.
      auto* cmp = dynamic_cast<CompareExpr*>(b.get());
      if (cmp && cmp->op() == CompareOp::kEq && !lateral && p->args.size() == 2) {
        auto sideOf = [&](const ast::Expr& x) -> int {
          // 0 = left only, 1 = right only, -1 = mixed or neither
          int side = -2;
          bool ok = true;
          std::function<void(const ast::Expr&)> visit = [&](const ast::Expr& y) {
            if (y.kind == ast::ExprKind::kColumn) {
              auto [d, idx] = ExprBinder(*this, joined).resolveColumn(y.table, y.name, y.pos);
              if (d != 0) return;
              int s = idx < static_cast<int>(lw) ? 0 : 1;
              if (side == -2) side = s;
              else if (side != s) ok = false;
            } else if (y.kind == ast::ExprKind::kSubquery || y.kind == ast::ExprKind::kExists ||
                       y.kind == ast::ExprKind::kInSelect) {
              ok = false;
            }
            for (const auto& a : y.args) if (a) visit(*a);
            for (const auto& w : y.whens) { visit(*w.when); visit(*w.then); }
            if (y.elseExpr) visit(*y.elseExpr);
          };
          visit(x);
          return ok && side >= 0 ? side : -1;
        };
        int ls = sideOf(*p->args[0]);
        int rs = sideOf(*p->args[1]);
        if ((ls == 0 && rs == 1) || (ls == 1 && rs == 0)) {
          const ast::Expr& le = ls == 0 ? *p->args[0] : *p->args[1];
          const ast::Expr& re = ls == 0 ? *p->args[1] : *p->args[0];
          Scope leftOnly{left.columns, outer};
          Scope rightOnly{right.columns, outer};
          addEquiKeys(equi, ExprBinder(*this, leftOnly).bind(le), ExprBinder(*this, rightOnly).bind(re));
          equiColl.push_back(cmp->comparisonCollation());
          continue;
        }
      }
      addCondition(std::move(b));
    }
  }
  BoundExprPtr residual;
  for (auto& c : conjuncts) {
    residual = residual ? std::make_unique<LogicExpr>(LogicOp::kAnd, std::move(residual), std::move(c)) : std::move(c);
  }
  if (!equi.empty()) {
    std::vector<BoundExprPtr> lk, rk;
    for (auto& [l, r] : equi) {
      lk.push_back(std::move(l));
      rk.push_back(std::move(r));
    }
    out.op = std::make_unique<HashJoinOp>(std::move(left.op), std::move(right.op), kind, std::move(lk), std::move(rk),
                                          std::move(equiColl), std::move(residual), lw, rw);
  } else {
    out.op = std::make_unique<NestedLoopJoinOp>(std::move(left.op), std::move(right.op), kind, std::move(residual),
                                                lw, rw, lateral);
  }
  if (!leftFlag.empty() || !rightFlag.empty()) exposeExistenceFlags(out, leftCols, rightCols, lw, leftFlag, rightFlag);
  if (swapped) restoreWrittenOrder(out, lw);
  // What the join yields, for an enclosing join's choice (join_cost.h: joinRows).
  if (request) {
    JoinSideEstimate l, r;
    l.scanRows = leftAccess.estimatedRows;
    r.scanRows = rightAccess.estimatedRows;
    r.keyedByOn = lateral;
    r.rowsPerProbe = rightAccess.estimatedRows;
    request->estimatedRows = joinRows(l, r, kind == JoinKind::kInner || kind == JoinKind::kCross);
  }
  return out;
}

// A join bound right side first yields (right columns, left columns): this puts the written
// side's columns first again.
void Binder::restoreWrittenOrder(Source& join, size_t firstWidth) {
  std::vector<BoundExprPtr> exprs;
  std::vector<ScopeColumn> cols;
  const size_t width = join.columns.size();
  for (size_t k = 0; k < width; ++k) {
    size_t at = (k + firstWidth) % width;
    exprs.push_back(makeColumnRef(0, static_cast<int>(at), join.columns[at].type));
    cols.push_back(join.columns[at]);
  }
  join.op = std::make_unique<ProjectOp>(std::move(join.op), std::move(exprs));
  join.columns = std::move(cols);
}

// Rewrites a join over marker-carrying sides into the visible shape: left columns, right
// columns, then the flags (left's, then right's) as unqualified boolean columns.
void Binder::exposeExistenceFlags(Source& join, size_t leftCols, size_t rightCols, size_t leftWidth,
                                  const std::string& leftFlag, const std::string& rightFlag) {
  std::vector<BoundExprPtr> exprs;
  std::vector<ScopeColumn> cols;
  auto keep = [&](size_t at) {
    exprs.push_back(makeColumnRef(0, static_cast<int>(at), join.columns[at].type));
    cols.push_back(join.columns[at]);
  };
  for (size_t i = 0; i < leftCols; ++i) keep(i);
  for (size_t i = 0; i < rightCols; ++i) keep(leftWidth + i);
  auto flag = [&](const std::string& name, size_t markerAt) {
    exprs.push_back(std::make_unique<IsNullExpr>(makeColumnRef(0, static_cast<int>(markerAt), LogicalType::kBoolean),
                                                 /*negated=*/true));
    ScopeColumn c;
    c.name = name;
    c.type = LogicalType::kBoolean;
    cols.push_back(c);
  };
  if (!leftFlag.empty()) flag(leftFlag, leftCols);
  if (!rightFlag.empty()) flag(rightFlag, leftWidth + rightCols);
  join.op = std::make_unique<ProjectOp>(std::move(join.op), std::move(exprs));
  join.columns = std::move(cols);
}

}  // namespace optic
