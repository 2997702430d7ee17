// The catalog table-valued functions (see introspection.h). Each TVF materialises its rows from
// the current catalog when called; none caches. Row order is declaration order within a table
// (columns, key positions, constraints as declared); tables within a schema follow the catalog's
// (name) order. Flags are integers 0/1; tags are JSON object text or NULL.
//
// Names minted for unnamed constraints (table-level `_check_<n>`, `_uc_…` by
// core/ddl/ddl.cpp) are reported as NULL, as the reference reports unnamed constraints; a
// column-level CHECK's `_check_<column>` and ALTER-minted names (`check_<n>`) are user-visible
// and reported as they are.
#include "core/ddl/introspection.h"

#include <algorithm>
#include <optional>
#include <set>

#include "core/catalog/canonical_ddl.h"
#include "core/catalog/materialized_view.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "core/ddl/declared_shape.h"
#include "core/ddl/function_introspection.h"
#include "core/ddl/lens_introspection.h"
#include "core/ddl/table_builder.h"
#include "core/execution/context.h"
#include "core/parser/printer.h"
#include "core/planner/expr_binder.h"
#include "core/planner/predicates.h"
#include "core/planner/views/setop_mutation.h"
#include "core/planner/views/view_body.h"

namespace optic {

namespace {

// ---- shared helpers ------------------------------------------------------------------------

Value flag(bool b) { return Value::integer(b ? 1 : 0); }
Value yesNo(bool b) { return Value::text(b ? "YES" : "NO"); }

Value tagsValue(const ast::Tags& tags) {
  if (tags.empty()) return Value();
  Json obj = Json::object();
  for (const ast::Tag& t : tags) obj[t.key] = valueToJson(t.value);
  return Value::text(serializeJson(obj));
}

Context& contextOf(FunctionContext& fc) {
  if (fc.ctx == nullptr) fail(ErrorCode::kInternal, "catalog function called without a database");
  return *fc.ctx;
}

struct ObjectName {
  std::string schema;  // "" = search path
  std::string name;
  std::string spelled;  // as the caller wrote it, for messages
};

ObjectName objectName(const Value& arg, const char* fn) {
  if (!arg.isText()) fail(std::string(fn) + "() expects a table name as text");
  ObjectName n;
  n.spelled = arg.asText();
  size_t dot = n.spelled.find('.');
  if (dot == std::string::npos) {
    n.name = n.spelled;
  } else {
    n.schema = n.spelled.substr(0, dot);
    n.name = n.spelled.substr(dot + 1);
  }
  return n;
}

std::vector<std::string> schemasFor(Context& ctx, const ObjectName& n) {
  if (!n.schema.empty()) return {lowerName(n.schema)};
  return ctx.searchPath();
}

std::shared_ptr<Table> findTable(Context& ctx, const ObjectName& n) {
  for (const std::string& s : schemasFor(ctx, n)) {
    if (auto t = ctx.catalog().findTable(s, n.name)) return t;
  }
  return nullptr;
}

std::shared_ptr<const ViewSchema> findView(Context& ctx, const ObjectName& n) {
  for (const std::string& s : schemasFor(ctx, n)) {
    if (auto v = ctx.catalog().findView(s, n.name)) return v;
  }
  return nullptr;
}

// The table a per-table TVF describes; unknown names fail with the reference wording.
std::shared_ptr<const TableSchema> requireTable(FunctionContext& fc, Args a, const char* fn) {
  ObjectName n = objectName(a[0], fn);
  std::shared_ptr<Table> t = findTable(contextOf(fc), n);
  if (!t) fail(ErrorCode::kNotFound, "Table '" + n.spelled + "' not found");
  return t->schemaPtr();
}

void addTvf(FunctionRegistry& r, std::string name, int minArgs, int maxArgs, std::vector<std::string> columns,
            std::function<std::vector<Row>(Args, FunctionContext&)> impl) {
  TableFunction f;
  f.name = std::move(name);
  f.minArgs = minArgs;
  f.maxArgs = maxArgs;
  f.deterministic = false;
  f.columns = std::move(columns);
  f.impl = std::move(impl);
  r.addTable(std::move(f));
}

// ---- schema() ------------------------------------------------------------------------------

Row schemaRow(const std::string& schema, const char* type, const std::string& name, const std::string& tbl,
              std::string sql, const ast::Tags& tags) {
  return Row{Value::text(schema), Value::text(type), Value::text(name), Value::text(tbl), Value::text(std::move(sql)),
             tagsValue(tags)};
}

// The `sql` schema() shows for an index, as the reference builds it: every key column with its
// collation, no UNIQUE, WHERE or tags (those have their own columns and introspection TVFs).
std::string schemaIndexSql(const TableSchema& t, const IndexSchema& ix) {
  std::string columns;
  for (const KeyColumn& k : ix.columns) {
    columns += (columns.empty() ? "" : ", ") + quoteIdent(t.columns[k.column].name) + " COLLATE " +
               std::string(collationName(k.collation)) + (k.desc ? " DESC" : "");
  }
  return "CREATE INDEX " + quoteIdent(ix.name) + " ON " + quoteIdent(t.name) + " (" + columns + ")";
}

// The `sql` schema() shows for a view: its CREATE VIEW re-printed as the reference's
// createViewToString does, names quoted only where they must be.
std::string schemaViewSql(const ViewSchema& v) {
  std::string out = "create view " + printIdent(v.name);
  if (!v.columnNames.empty()) {
    std::string names;
    for (const std::string& n : v.columnNames) names += (names.empty() ? "" : ", ") + printIdent(n);
    out += " (" + names + ")";
  }
  if (v.select) out += " as " + printSelect(*v.select);
  return out + tagsClause(v.tags);
}

std::vector<Row> schemaRows(Args, FunctionContext& fc) {
  std::vector<Row> rows;
  for (const auto& [schemaName, schema] : contextOf(fc).catalog().schemas()) {
    for (const auto& [key, table] : schema.tables) {
      const TableSchema& t = table->schema();
      if (t.derivation) rows.push_back(schemaRow(schemaName, "materialized_view", t.name, t.name, materializedViewDdl(t), t.tags));
      else rows.push_back(schemaRow(schemaName, "table", t.name, t.name, tableDdl(t), t.tags));
      for (const IndexSchema& ix : t.indexes) {
        if (isVisibleIndex(ix)) {
          rows.push_back(schemaRow(schemaName, "index", ix.name, t.name, schemaIndexSql(t, ix), visibleIndexTags(ix)));
        }
      }
    }
    for (const auto& [key, view] : schema.views) {
      rows.push_back(schemaRow(schemaName, "view", view->name, view->name, schemaViewSql(*view), view->tags));
    }
    if (schemaName == "main") {
      for (Row& r : functionSchemaRows(contextOf(fc).functions())) rows.push_back(std::move(r));
    }
  }
  return rows;
}

// ---- table_info(t) -------------------------------------------------------------------------

// `pk` is a 0/1 membership flag, not SQLite's key position: the corpus (41.1, composite key
// (a, b)) expects 1 for every key column, although test-corpus.md §4 describes a position.
bool inPrimaryKey(const TableSchema& t, int column) {
  return std::any_of(t.primaryKey.begin(), t.primaryKey.end(), [&](const KeyColumn& k) { return k.column == column; });
}

int generatedKind(const ColumnSchema& c) { return c.generated == nullptr ? 0 : (c.generatedStored ? 2 : 1); }

std::vector<Row> tableInfoRows(Args a, FunctionContext& fc) {
  auto t = requireTable(fc, a, "table_info");
  std::vector<Row> rows;
  for (size_t i = 0; i < t->columns.size(); ++i) {
    const ColumnSchema& c = t->columns[i];
    rows.push_back(Row{Value::integer(static_cast<int64_t>(i)), Value::text(c.name),
                       Value::text(std::string(logicalTypeName(c.type))), flag(c.notNull),
                       c.defaultExpr ? Value::text(printExpr(*c.defaultExpr)) : Value(),
                       flag(inPrimaryKey(*t, static_cast<int>(i))), tagsValue(c.tags),
                       Value::text(std::string(collationName(c.collation))), Value::integer(generatedKind(c))});
  }
  return rows;
}

// ---- materialized_view_info([m]), materialized_view_columns(m) --------------------------------

// A fresh analysis of a maintained table's body, as maintenance plans it now; null when the body
// no longer binds (the view is stale).
std::optional<MvAnalysis> analyseNow(Context& ctx, const TableSchema& t) {
  const MaterializedView& d = *t.derivation;
  const std::vector<int>* pk = d.schemaDeclared && !d.declaredKeys.empty() && d.declaredKeys.front().primary
                                   ? &d.declaredKeys.front().columns
                                   : nullptr;
  try {
    return analyseMaterializedBody(ctx, *d.body, t.schemaName, t.name, d.columnNames, pk);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// One row per materialized view: whether its schema is declared, its column definitions ready
// to paste into CREATE MATERIALIZED VIEW (declared, else inferred), and the declared keys the
// running analysis does not prove (a JSON array; NULL when none).
std::vector<Row> materializedViewInfoRows(Args a, FunctionContext& fc) {
  Context& ctx = contextOf(fc);
  std::vector<Row> rows;
  std::optional<ObjectName> only;
  if (!a.empty()) only = objectName(a[0], "materialized_view_info");
  for (const auto& [schemaName, schema] : ctx.catalog().schemas()) {
    for (const auto& [key, table] : schema.tables) {
      const TableSchema& t = table->schema();
      if (!t.derivation) continue;
      if (only && (!sameName(only->name, t.name) || (!only->schema.empty() && !sameName(only->schema, schemaName)))) continue;
      std::optional<MvAnalysis> now = analyseNow(ctx, t);
      std::vector<std::string> lost = now ? unconfirmedKeys(t, *now) : t.derivation->unconfirmedKeys;
      Json keys = Json::array();
      for (const std::string& k : lost) keys.push_back(k);
      rows.push_back(Row{Value::text(schemaName), Value::text(t.name), flag(t.derivation->schemaDeclared),
                         Value::text(materializedColumnDefinitions(t)),
                         lost.empty() ? Value() : Value::text(serializeJson(keys))});
    }
  }
  if (only && rows.empty()) fail(ErrorCode::kNotFound, "no such materialized view: " + only->spelled);
  return rows;
}

// Per column of a materialized view: the table's attributes, whether they are declared, and
// what the body derives now (NULL when stale).
std::vector<Row> materializedViewColumnRows(Args a, FunctionContext& fc) {
  auto t = requireTable(fc, a, "materialized_view_columns");
  if (!t->derivation) fail("'" + t->name + "' is not a materialized view");
  std::optional<MvAnalysis> now = analyseNow(contextOf(fc), *t);
  std::vector<Row> rows;
  for (size_t i = 0; i < t->columns.size(); ++i) {
    const ColumnSchema& c = t->columns[i];
    bool derived = now && i < now->columns.size();
    rows.push_back(Row{Value::integer(static_cast<int64_t>(i)), Value::text(c.name),
                       Value::text(std::string(logicalTypeName(c.type))), flag(c.notNull),
                       Value::text(std::string(collationName(c.collation))), flag(t->derivation->schemaDeclared),
                       derived ? Value::text(std::string(logicalTypeName(now->columns[i].type))) : Value(),
                       derived ? flag(now->columns[i].notNull) : Value()});
  }
  return rows;
}

// ---- index_info(t) -------------------------------------------------------------------------

std::vector<Row> indexInfoRows(Args a, FunctionContext& fc) {
  auto t = requireTable(fc, a, "index_info");
  std::vector<Row> rows;
  for (const IndexSchema& ix : t->indexes) {
    if (!isVisibleIndex(ix)) continue;  // a UNIQUE constraint's backing structure, not exposed
    for (size_t seq = 0; seq < ix.columns.size(); ++seq) {
      const KeyColumn& k = ix.columns[seq];
      rows.push_back(Row{Value::text(ix.name), Value::integer(static_cast<int64_t>(seq)),
                         Value::text(t->columns[k.column].name), flag(k.desc),
                         Value::text(std::string(collationName(k.collation))),
                         flag(ix.unique && !ix.implicit),  // as the reference: enforcement is the constraint's
                         flag(ix.where != nullptr), tagsValue(visibleIndexTags(ix))});
    }
  }
  return rows;
}

// ---- foreign_key_info(t) -------------------------------------------------------------------

// The parent column a child column references: the declared list, else the parent's primary
// key (NULL when the parent does not exist yet or its key is shorter).
Value referencedColumn(Context& ctx, const ForeignKey& fk, size_t seq) {
  if (!fk.parentColumns.empty()) return seq < fk.parentColumns.size() ? Value::text(fk.parentColumns[seq]) : Value();
  std::shared_ptr<Table> parent = ctx.catalog().findTable(fk.parentSchema, fk.parentTable);
  if (!parent || seq >= parent->schema().primaryKey.size()) return Value();
  const TableSchema& p = parent->schema();
  return Value::text(p.columns[p.primaryKey[seq].column].name);
}

std::vector<Row> foreignKeyInfoRows(Args a, FunctionContext& fc) {
  auto t = requireTable(fc, a, "foreign_key_info");
  std::vector<Row> rows;
  for (size_t id = 0; id < t->foreignKeys.size(); ++id) {
    const ForeignKey& fk = t->foreignKeys[id];
    for (size_t seq = 0; seq < fk.columns.size(); ++seq) {
      rows.push_back(Row{Value::integer(static_cast<int64_t>(id)), Value::text(fk.name), Value::text(t->name),
                         Value::text(t->columns[fk.columns[seq]].name), Value::text(fk.parentTable),
                         Value::text(fk.parentSchema), referencedColumn(contextOf(fc), fk, seq),
                         Value::text(fkActionName(fk.onUpdate)), Value::text(fkActionName(fk.onDelete)), flag(false),
                         Value::integer(static_cast<int64_t>(seq)), tagsValue(fk.tags)});
    }
  }
  return rows;
}

// ---- unique_constraint_info(t) -------------------------------------------------------------

// Every UNIQUE constraint, including the one a CREATE UNIQUE INDEX synthesizes.
std::vector<Row> uniqueConstraintInfoRows(Args a, FunctionContext& fc) {
  auto t = requireTable(fc, a, "unique_constraint_info");
  std::vector<Row> rows;
  int64_t id = 0;
  for (const IndexSchema& ix : t->indexes) {
    if (!ix.unique) continue;
    Value name = ix.mintedName ? Value() : Value::text(ix.constraintName);
    for (size_t seq = 0; seq < ix.columns.size(); ++seq) {
      rows.push_back(Row{Value::integer(id), name, Value::integer(static_cast<int64_t>(seq)),
                         Value::text(t->columns[ix.columns[seq].column].name), flag(ix.where != nullptr),
                         tagsValue(ix.tags)});
    }
    ++id;
  }
  return rows;
}

// ---- check_constraint_info(t) --------------------------------------------------------------

std::string operationsText(const CheckConstraint& ck) {
  std::string out;
  if (ck.onInsert) out += "insert";
  if (ck.onUpdate) out += std::string(out.empty() ? "" : ",") + "update";
  if (ck.onDelete) out += std::string(out.empty() ? "" : ",") + "delete";
  return out;
}

std::vector<Row> checkConstraintInfoRows(Args a, FunctionContext& fc) {
  auto t = requireTable(fc, a, "check_constraint_info");
  std::vector<Row> rows;
  for (size_t id = 0; id < t->checks.size(); ++id) {
    const CheckConstraint& ck = t->checks[id];
    Value name = hasMintedName(ck) ? Value() : Value::text(ck.name);
    rows.push_back(Row{Value::integer(static_cast<int64_t>(id)), name, Value::text(ck.exprText),
                       Value::text(operationsText(ck)), flag(ck.deferred), flag(ck.deferred), tagsValue(ck.tags)});
  }
  return rows;
}

// ---- view analysis (view_info / column_info, views.md §2.9) ---------------------------------
//
// A conservative syntactic analysis of a plain view's body: a single SELECT core over base
// tables joined by INNER/LEFT/RIGHT joins with a condition, no DISTINCT, GROUP BY, HAVING,
// aggregate or window. Anything else is "all NO, no targets".

struct SourceTable {
  std::string alias;  // lower-case: the alias, else the table name
  std::shared_ptr<const TableSchema> schema;
  bool preserved = true;  // false on the null-extended side of an outer join
};

struct ViewColumn {
  std::string name;
  const SourceTable* source = nullptr;  // passthrough: the base table …
  int column = -1;                      // … and its column (not generated)
  bool throughEffect = false;           // writable with no single base column (a membership body's fan-out)
};

struct ViewShape {
  bool analysable = false;
  bool outerJoin = false;
  std::vector<SourceTable> sources;
  std::vector<ViewColumn> columns;
  std::vector<std::pair<const SourceTable*, int>> pinned;  // `col = literal` conjuncts of WHERE
};

void markNullExtended(ViewShape& shape, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) shape.sources[i].preserved = false;
}

bool collectSources(Context& ctx, const std::string& schema, const ast::FromItem& f, ViewShape& shape) {
  if (f.kind == ast::FromItem::Kind::kTable) {
    std::string s = f.table.schema.empty() ? schema : lowerName(f.table.schema);
    std::shared_ptr<Table> t = ctx.catalog().findTable(s, f.table.name);
    if (!t) return false;
    shape.sources.push_back({lowerName(f.alias.empty() ? f.table.name : f.alias), t->schemaPtr()});
    return true;
  }
  if (f.kind != ast::FromItem::Kind::kJoin || !f.left || !f.right) return false;
  bool conditioned = f.on != nullptr || !f.usingColumns.empty() || f.natural;
  if (f.joinType == ast::JoinType::kFull || f.joinType == ast::JoinType::kCross || !conditioned) return false;
  if (f.joinType != ast::JoinType::kInner) shape.outerJoin = true;
  size_t begin = shape.sources.size();
  if (!collectSources(ctx, schema, *f.left, shape)) return false;
  size_t mid = shape.sources.size();
  if (!collectSources(ctx, schema, *f.right, shape)) return false;
  size_t end = shape.sources.size();
  if (f.joinType == ast::JoinType::kLeft) markNullExtended(shape, mid, end);
  if (f.joinType == ast::JoinType::kRight) markNullExtended(shape, begin, mid);
  return true;
}

bool hasAggregate(const ast::Expr& e, const Context& ctx) {
  if (e.kind == ast::ExprKind::kFunction && (e.window || isAggregateCall(e, ctx))) return true;
  for (const ast::ExprPtr& arg : e.args) {
    if (arg && hasAggregate(*arg, ctx)) return true;
  }
  return false;
}

// The base column a bare column reference names, or {nullptr, -1}.
std::pair<const SourceTable*, int> resolveColumn(const ViewShape& shape, const ast::Expr& e) {
  for (const SourceTable& s : shape.sources) {
    if (!e.table.empty() && lowerName(e.table) != s.alias) continue;
    int c = s.schema->findColumn(e.name);
    if (c >= 0) return {&s, s.schema->columns[c].generated ? -1 : c};
  }
  return {nullptr, -1};
}

bool isLiteral(const ast::Expr* e) { return e != nullptr && e->kind == ast::ExprKind::kLiteral; }

// The base column an invertible projection reads: a bare column, or one under COLLATE, CAST,
// or `± literal`; nullptr for anything else (computed, not writable through the view).
const ast::Expr* invertibleColumn(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::kColumn: return &e;
    case ast::ExprKind::kCollate:
    case ast::ExprKind::kCast: return e.args.empty() ? nullptr : invertibleColumn(*e.args[0]);
    case ast::ExprKind::kBinary:
      if (e.op != "+" && e.op != "-") return nullptr;
      if (isLiteral(e.args[1].get())) return invertibleColumn(*e.args[0]);
      if (e.op == "+" && isLiteral(e.args[0].get())) return invertibleColumn(*e.args[1]);
      return nullptr;
    default: return nullptr;
  }
}

void addStarColumns(ViewShape& shape, const std::string& table) {
  for (const SourceTable& s : shape.sources) {
    if (!table.empty() && lowerName(table) != s.alias) continue;
    for (size_t i = 0; i < s.schema->columns.size(); ++i) {
      const ColumnSchema& c = s.schema->columns[i];
      shape.columns.push_back({c.name, c.generated ? nullptr : &s, c.generated ? -1 : static_cast<int>(i)});
    }
  }
}

void addResultColumns(const ast::Select& sel, ViewShape& shape) {
  for (const ast::ResultColumn& rc : sel.columns) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      addStarColumns(shape, rc.kind == ast::ResultColumn::Kind::kTableStar ? rc.table : "");
      continue;
    }
    ViewColumn col;
    col.name = !rc.alias.empty() ? rc.alias : (rc.expr->kind == ast::ExprKind::kColumn ? rc.expr->name : printExpr(*rc.expr));
    const ast::Expr* base = shape.analysable ? invertibleColumn(*rc.expr) : nullptr;
    if (base != nullptr) {
      auto [src, c] = resolveColumn(shape, *base);
      if (c >= 0) {
        col.source = src;
        col.column = c;
      }
    }
    shape.columns.push_back(std::move(col));
  }
}

bool simpleCore(const ast::Select& s, const Context& ctx) {
  if (s.setOp != ast::SetOp::kNone || !s.values.empty() || s.distinct || !s.groupBy.empty() || s.having || !s.from) {
    return false;
  }
  if (s.with) return false;
  for (const ast::ResultColumn& rc : s.columns) {
    if (rc.expr && hasAggregate(*rc.expr, ctx)) return false;
  }
  return true;
}

// A column a WHERE conjunct pins to a constant (`col = literal`, ANDed at the top): an INSERT
// through the view can recover its value even when the projection drops it.

void collectPin(const ast::Expr& e, ViewShape& shape) {
  if (!isEquality(e)) return;
  const ast::Expr* col = isLiteral(e.args[1].get()) ? e.args[0].get() : (isLiteral(e.args[0].get()) ? e.args[1].get() : nullptr);
  if (col == nullptr || col->kind != ast::ExprKind::kColumn) return;
  auto [src, c] = resolveColumn(shape, *col);
  if (c >= 0) shape.pinned.emplace_back(src, c);
}

// `with defaults (col = …)` recovers an omitted base column on insert, like a pin.
void collectDefaults(const std::vector<ast::ViewColumnDefault>& defaults, ViewShape& shape) {
  for (const ast::ViewColumnDefault& d : defaults) {
    for (const SourceTable& s : shape.sources) {
      int c = s.schema->findColumn(d.column);
      if (c >= 0) shape.pinned.emplace_back(&s, c);
    }
  }
}

ast::QualifiedName qualifiedName(const ViewSchema& v) {
  ast::QualifiedName n;
  n.schema = v.schemaName;
  n.name = v.name;
  return n;
}

// A membership body's columns (data, then flags) are written by fanning out to its legs: each
// is updatable exactly when an update through the view plans, and none has one base column.
void addMembershipColumns(Context& ctx, const ViewSchema& v, ViewShape& shape) {
  bool updatable = probeMembershipWrites(ctx, qualifiedName(v), *v.select, v.columnNames).updatable;
  for (const ast::ResultColumn& rc : v.select->left->columns) {
    shape.columns.push_back({rc.expr ? resultColumnName(rc) : std::string("*"), nullptr, -1, updatable});
  }
  for (const std::string* flag : {&v.select->existsLeftAs, &v.select->existsRightAs}) {
    if (!flag->empty()) shape.columns.push_back({*flag, nullptr, -1, updatable});
  }
}

ViewShape analyseView(Context& ctx, const ViewSchema& v) {
  ViewShape shape;
  if (v.select && isMembershipBody(*v.select)) {
    addMembershipColumns(ctx, v, shape);
    for (size_t i = 0; i < v.columnNames.size() && i < shape.columns.size(); ++i) shape.columns[i].name = v.columnNames[i];
    return shape;
  }
  if (v.select && simpleCore(*v.select, ctx)) {
    shape.analysable = collectSources(ctx, v.schemaName, *v.select->from, shape);
    if (!shape.analysable) shape.sources.clear();
    if (shape.analysable) {
      for (const ast::Expr* c : conjunctsOf(v.select->where.get())) collectPin(*c, shape);
    }
    if (shape.analysable && v.defaults) collectDefaults(*v.defaults, shape);
  }
  if (v.select && v.select->setOp == ast::SetOp::kNone && v.select->values.empty()) {
    addResultColumns(*v.select, shape);
  } else if (v.select && !v.select->values.empty()) {
    for (size_t i = 0; i < v.select->values.front().size(); ++i) shape.columns.push_back({"column" + std::to_string(i + 1)});
  }
  for (size_t i = 0; i < v.columnNames.size() && i < shape.columns.size(); ++i) shape.columns[i].name = v.columnNames[i];
  return shape;
}

bool projects(const ViewShape& shape, const SourceTable& s, int column) {
  return std::any_of(shape.columns.begin(), shape.columns.end(),
                     [&](const ViewColumn& c) { return c.source == &s && c.column == column; });
}

bool projectsKey(const ViewShape& shape, const SourceTable& s) {
  return std::all_of(s.schema->primaryKey.begin(), s.schema->primaryKey.end(),
                     [&](const KeyColumn& k) { return projects(shape, s, k.column); });
}

// Every column an INSERT through the view would leave unset can take NULL or a default.
bool unsetColumnsFillable(const ViewShape& shape, const SourceTable& s) {
  for (size_t i = 0; i < s.schema->columns.size(); ++i) {
    const ColumnSchema& c = s.schema->columns[i];
    if (projects(shape, s, static_cast<int>(i)) || c.generated || c.defaultExpr || !c.notNull) continue;
    auto pin = std::make_pair(&s, static_cast<int>(i));
    if (std::find(shape.pinned.begin(), shape.pinned.end(), pin) != shape.pinned.end()) continue;
    return false;
  }
  return true;
}

struct Updateability {
  bool insertable = false, updatable = false, deletable = false;
  std::vector<std::string> targets;
};

Updateability updateability(const ViewShape& shape) {
  Updateability u;
  bool anyPassthrough = std::any_of(shape.columns.begin(), shape.columns.end(),
                                    [](const ViewColumn& c) { return c.source != nullptr; });
  if (!shape.analysable || !anyPassthrough) return u;
  // The effective targets are the sources a view column writes; a source the body only joins
  // against (a filter, as in a theta join) is no target and constrains no write.
  auto target = [&](const SourceTable& s) {
    return std::any_of(shape.columns.begin(), shape.columns.end(), [&](const ViewColumn& c) { return c.source == &s; });
  };
  std::set<std::string> names;
  for (const SourceTable& s : shape.sources) if (target(s)) names.insert(s.schema->name);
  u.targets.assign(names.begin(), names.end());
  u.updatable = true;
  // Deletes and inserts route to the preserved side of an outer join.
  auto preservedOk = [&](auto pred) {
    return std::all_of(shape.sources.begin(), shape.sources.end(),
                       [&](const SourceTable& s) { return !s.preserved || !target(s) || pred(s); });
  };
  bool keys = preservedOk([&](const SourceTable& s) { return projectsKey(shape, s); });
  bool fillable = preservedOk([&](const SourceTable& s) { return unsetColumnsFillable(shape, s); });
  bool single = std::count_if(shape.sources.begin(), shape.sources.end(), target) == 1;
  u.deletable = keys && (single || shape.outerJoin);
  u.insertable = u.deletable && fillable;
  return u;
}

Value jsonNameArray(const std::vector<std::string>& names) {
  Json arr = Json::array();
  for (const std::string& n : names) arr.push_back(n);
  return Value::text(serializeJson(arr));
}

// A membership body's effective targets: every base table its legs read (a write fans out
// to the legs, and a join leg writes all its sides).
std::vector<std::string> legTargets(Context& ctx, const ViewSchema& v) {
  std::set<std::string> names;
  for (const ast::Select* leg : {v.select->left.get(), v.select->right.get()}) {
    ViewShape shape;
    if (leg->from && collectSources(ctx, v.schemaName, *leg->from, shape)) {
      for (const SourceTable& s : shape.sources) names.insert(s.schema->name);
    }
  }
  return {names.begin(), names.end()};
}

Row viewInfoRow(Context& ctx, const ViewSchema& v) {
  Updateability u;
  if (v.select && isMembershipBody(*v.select)) {
    MembershipWritability w = probeMembershipWrites(ctx, qualifiedName(v), *v.select, v.columnNames);
    u.insertable = w.insertable;
    u.updatable = w.updatable;
    u.deletable = w.deletable;
    if (w.insertable || w.updatable || w.deletable) u.targets = legTargets(ctx, v);
  } else {
    u = updateability(analyseView(ctx, v));
  }
  return Row{Value::text(v.schemaName), Value::text(v.name), yesNo(u.insertable), yesNo(u.updatable),
             yesNo(u.deletable), jsonNameArray(u.targets)};
}

std::vector<Row> viewInfoRows(Args a, FunctionContext& fc) {
  Context& ctx = contextOf(fc);
  std::vector<Row> rows;
  if (!a.empty()) {
    if (auto v = findView(ctx, objectName(a[0], "view_info"))) rows.push_back(viewInfoRow(ctx, *v));
    return rows;
  }
  for (const auto& [name, schema] : ctx.catalog().schemas()) {
    for (const auto& [key, v] : schema.views) rows.push_back(viewInfoRow(ctx, *v));
  }
  return rows;
}

// ---- column_info(t) ------------------------------------------------------------------------

Row columnInfoRow(const std::string& schema, const std::string& object, size_t cid, const std::string& column,
                  const TableSchema* base, int baseColumn, bool throughEffect = false) {
  bool lineage = base != nullptr && baseColumn >= 0;
  return Row{Value::text(schema), Value::text(object), Value::integer(static_cast<int64_t>(cid)), Value::text(column),
             yesNo(lineage || throughEffect), lineage ? Value::text(base->name) : Value(),
             lineage ? Value::text(base->columns[baseColumn].name) : Value()};
}

// One row per analysed column: its lineage to a base column when it has one.
std::vector<Row> shapeRows(const std::string& schema, const std::string& object, const ViewShape& shape) {
  std::vector<Row> rows;
  for (size_t i = 0; i < shape.columns.size(); ++i) {
    const ViewColumn& c = shape.columns[i];
    rows.push_back(columnInfoRow(schema, object, i, c.name, c.source ? c.source->schema.get() : nullptr, c.column,
                                 c.throughEffect));
  }
  return rows;
}

std::vector<Row> columnInfoRows(Args a, FunctionContext& fc) {
  Context& ctx = contextOf(fc);
  ObjectName n = objectName(a[0], "column_info");
  std::vector<Row> rows;
  if (std::shared_ptr<Table> table = findTable(ctx, n)) {
    const TableSchema& t = table->schema();
    if (t.derivation && t.derivation->body) {
      // A maintained table's columns follow its derivation body to the source's base columns,
      // under the table's registered column names.
      ViewSchema body;
      body.schemaName = t.schemaName;
      body.name = t.name;
      for (const ColumnSchema& c : t.columns) body.columnNames.push_back(c.name);
      body.select = t.derivation->body;
      body.defaults = t.derivation->defaults;
      return shapeRows(t.schemaName, t.name, analyseView(ctx, body));
    }
    for (size_t i = 0; i < t.columns.size(); ++i) {
      int base = t.columns[i].generated ? -1 : static_cast<int>(i);
      rows.push_back(columnInfoRow(t.schemaName, t.name, i, t.columns[i].name, &t, base));
    }
    return rows;
  }
  std::shared_ptr<const ViewSchema> v = findView(ctx, n);
  if (!v) fail(ErrorCode::kNotFound, "Table '" + n.spelled + "' not found");
  return shapeRows(v->schemaName, v->name, analyseView(ctx, *v));
}

}  // namespace

void registerCatalogFunctions(FunctionRegistry& r) {
  registerLensFunctions(r);
  registerFunctionInfo(r);
  addTvf(r, "schema", 0, 0, {"schema", "type", "name", "tbl_name", "sql", "tags"}, schemaRows);
  addTvf(r, "table_info", 1, 1,
         {"cid", "name", "type", "notnull", "dflt_value", "pk", "tags", "collation", "generated"}, tableInfoRows);
  addTvf(r, "index_info", 1, 1, {"index_name", "seq", "column_name", "desc", "collation", "unique", "partial", "tags"},
         indexInfoRows);
  addTvf(r, "foreign_key_info", 1, 1,
         {"id", "name", "table", "from", "referenced_table", "referenced_schema", "to", "on_update", "on_delete",
          "deferred", "seq", "tags"},
         foreignKeyInfoRows);
  addTvf(r, "unique_constraint_info", 1, 1, {"id", "name", "seq", "column_name", "partial", "tags"},
         uniqueConstraintInfoRows);
  addTvf(r, "check_constraint_info", 1, 1,
         {"id", "name", "expr", "operations", "deferrable", "initially_deferred", "tags"}, checkConstraintInfoRows);
  addTvf(r, "view_info", 0, 1,
         {"schema", "name", "is_insertable_into", "is_updatable", "is_deletable", "effective_targets"}, viewInfoRows);
  addTvf(r, "materialized_view_info", 0, 1, {"schema", "name", "declared", "definitions", "unconfirmed_keys"},
         materializedViewInfoRows);
  addTvf(r, "materialized_view_columns", 1, 1,
         {"cid", "name", "type", "notnull", "collation", "declared", "derived_type", "derived_notnull"},
         materializedViewColumnRows);
  addTvf(r, "column_info", 1, 1,
         {"schema", "name", "cid", "column_name", "is_updatable", "base_table", "base_column"}, columnInfoRows);
}

}  // namespace optic
