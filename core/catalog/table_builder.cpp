// Table builder (table_builder.h).
#include "core/catalog/table_builder.h"

#include <algorithm>
#include <functional>

#include "core/api/engine.h"
#include "core/catalog/row_eval.h"
#include "core/common/error.h"
#include "core/parser/printer.h"

namespace optic {

ConstraintNames::ConstraintNames(const TableSchema& t) {
  for (const IndexSchema& ix : t.indexes) if (!ix.constraintName.empty()) used_.insert(lowerName(ix.constraintName));
  for (const CheckConstraint& ck : t.checks) used_.insert(lowerName(ck.name));
  for (const ForeignKey& fk : t.foreignKeys) used_.insert(lowerName(fk.name));
}

std::string ConstraintNames::claim(const std::string& explicitName, const std::string& autoName) {
  if (!explicitName.empty()) {
    if (!used_.insert(lowerName(explicitName)).second) {
      throw Error(ErrorCode::kConstraint, "Duplicate constraint name: a constraint named '" + explicitName + "' already exists");
    }
    return explicitName;
  }
  std::string name = autoName;
  for (int n = 2; !used_.insert(lowerName(name)).second; ++n) name = autoName + "_" + std::to_string(n);
  return name;
}

std::string ConstraintNames::firstFree(const std::string& prefix, size_t from) const {
  std::string name = prefix + std::to_string(from);
  while (taken(name)) name = prefix + std::to_string(++from);
  return name;
}

Collation collationOrThrow(const std::string& name) {
  std::optional<Collation> c = collationFromName(name);
  if (!c) fail("Unknown collation: " + name);
  return *c;
}

std::string joinNames(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

bool containsSubquery(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::kSubquery || e.kind == ast::ExprKind::kExists || e.kind == ast::ExprKind::kInSelect)
    return true;
  for (const auto& a : e.args) if (a && containsSubquery(*a)) return true;
  for (const auto& w : e.whens) if (containsSubquery(*w.when) || containsSubquery(*w.then)) return true;
  return e.elseExpr && containsSubquery(*e.elseExpr);
}

namespace {

// The first non-deterministic call in `root`, subqueries included; null when there is none.
const ast::Expr* nonDeterministicCall(const ast::Expr& root, const Engine& engine) {
  const ast::Expr* found = nullptr;
  ast::anyExpr(root, [&](const ast::Expr& e) {
    if (e.kind != ast::ExprKind::kFunction) return false;
    int n = e.star ? 0 : static_cast<int>(e.args.size());
    const ScalarFunction* f = engine.functions().findScalar(e.name, n);
    if (!f) return false;
    bool now = f->nowSensitive && std::any_of(e.args.begin(), e.args.end(), [](const ast::ExprPtr& a) {
      return a->kind == ast::ExprKind::kLiteral && a->value.isText() && lowerName(a->value.asText()) == "now";
    });
    if (!f->deterministic || now) found = &e;
    return found != nullptr;
  }, true);
  return found;
}

}  // namespace

bool isNonDeterministic(const ast::Expr& e, const Engine& engine) { return nonDeterministicCall(e, engine) != nullptr; }

void requireDeterministic(const ast::Expr& e, const Engine& engine, const char* what) {
  if (engine.settings().nondeterministicSchema) return;
  if (const ast::Expr* call = nonDeterministicCall(e, engine)) {
    fail(std::string("Non-deterministic expression not allowed in ") + what + ": function '" + call->name +
         "' is not deterministic");
  }
}

void validateSchemaExpr(const ast::Expr& e, const Engine& engine, SchemaExprKind kind, bool hasContext) {
  const char* what = kind == SchemaExprKind::kDefault ? "DEFAULT" : kind == SchemaExprKind::kCheck ? "CHECK constraint"
                                                                                                  : "generated column";
  if (ast::anyExpr(e, [](const ast::Expr& x) { return x.kind == ast::ExprKind::kParam; }, true)) {
    fail(std::string(what) + " may not reference bind parameters");
  }
  const ast::Expr* bare = nullptr;
  if (kind == SchemaExprKind::kDefault && !hasContext) {
    // A table with a mutation context binds bare names to its variables, then to the new row.
    // Outside subqueries only: a subquery's own columns are its business.
    ast::anyExpr(e, [&](const ast::Expr& x) {
      if (x.kind == ast::ExprKind::kColumn && x.table.empty()) bare = &x;
      return bare != nullptr;
    }, false);
  }
  if (bare) {
    fail("DEFAULT may not reference a bare column ('" + bare->name + "'): read a supplied sibling as new." + bare->name +
         ", or derive the value with a generated column");
  }
  const char* det = kind == SchemaExprKind::kDefault ? "DEFAULT" : kind == SchemaExprKind::kCheck ? "CHECK"
                                                                                                 : "GENERATED ALWAYS AS";
  // A DEFAULT that reads `new.<col>` is resolved per row at INSERT time, and that is where its
  // determinism is checked (InsertPlan): creating the table is fine either way.
  bool readsNewRow = kind == SchemaExprKind::kDefault && ast::anyExpr(e, [](const ast::Expr& x) {
    return x.kind == ast::ExprKind::kColumn && lowerName(x.table) == "new";
  }, true);
  if (!readsNewRow) requireDeterministic(e, engine, det);
}

void validateGeneratedColumns(Engine& engine, const TableSchema& t) {
  const size_t n = t.columns.size();
  Scope own = rowScope(t, "");
  own.columns.resize(2 * n);  // the row itself, bare or as new.*; never old.*
  Binder binder(engine);
  // deps[i]: the generated columns generated column i reads.
  std::vector<std::vector<size_t>> deps(n);
  for (size_t i = 0; i < n; ++i) {
    const ast::Expr* g = t.columns[i].generated;
    if (!g) continue;
    try {
      ExprBinder(binder, own).bind(*g);
    } catch (const Error& e) {
      const std::string prefix = "Column not found: ";
      const std::string msg = e.what();
      if (e.code() != ErrorCode::kNotFound || msg.rfind(prefix, 0) != 0) throw;
      std::string ref = msg.substr(prefix.size());
      size_t dot = ref.rfind('.');
      std::string qualifier = dot == std::string::npos ? "" : lowerName(ref.substr(0, dot));
      if (qualifier.empty() || qualifier == "new" || qualifier == lowerName(t.name)) {
        fail("Column '" + ref.substr(dot == std::string::npos ? 0 : dot + 1) + "' referenced by generated column '" +
             t.columns[i].name + "' not found in table '" + t.name + "'");
      }
      fail("Generated column '" + t.columns[i].name + "': " + ref +
           " binds nothing (a generated column reads only the columns of its own row)");
    }
    ast::anyExpr(*g, [&](const ast::Expr& x) {
      if (x.kind != ast::ExprKind::kColumn || !(x.table.empty() || lowerName(x.table) == lowerName(t.name))) return false;
      int c = t.findColumn(x.name);
      if (c >= 0 && t.columns[c].generated) deps[i].push_back(static_cast<size_t>(c));
      return false;
    }, true);
  }
  // Depth-first search; a column met again while still on the path closes a cycle.
  enum class Mark : uint8_t { kNew, kOnPath, kDone };
  std::vector<Mark> mark(n, Mark::kNew);
  std::function<void(size_t)> visit = [&](size_t i) {
    mark[i] = Mark::kOnPath;
    for (size_t d : deps[i]) {
      if (mark[d] == Mark::kOnPath) fail("Cyclic dependency in generated columns: '" + t.columns[d].name + "'");
      if (mark[d] == Mark::kNew) visit(d);
    }
    mark[i] = Mark::kDone;
  };
  for (size_t i = 0; i < n; ++i) if (mark[i] == Mark::kNew) visit(i);
}

FkAction fkActionFromText(const std::string& s) {
  if (s == "cascade") return FkAction::kCascade;
  if (s == "set null") return FkAction::kSetNull;
  if (s == "set default") return FkAction::kSetDefault;
  return FkAction::kRestrict;
}

KeyColumn keyColumnFor(const TableSchema& t, const ast::IndexedColumn& ic) {
  if (ic.expr) fail("Indices on expressions are not supported");
  int idx = t.findColumn(ic.name);
  if (idx < 0) fail("Column '" + ic.name + "' not found in table '" + t.name + "'");
  KeyColumn k;
  k.column = idx;
  k.desc = ic.desc;
  k.collation = ic.collation.empty() ? t.columns[idx].collation : collationOrThrow(ic.collation);
  return k;
}

void addUnique(TableSchema& t, ConstraintNames& names, const std::string& explicitName, std::vector<KeyColumn> cols,
               ast::ConflictAction onConflict) {
  std::vector<std::string> colNames;
  for (const KeyColumn& k : cols) colNames.push_back(t.columns[k.column].name);
  for (const IndexSchema& other : t.indexes) {
    if (other.unique && other.implicit && explicitName.empty() && other.columns.size() == cols.size() &&
        std::equal(other.columns.begin(), other.columns.end(), cols.begin(),
                   [](const KeyColumn& a, const KeyColumn& b) { return a.column == b.column; })) {
      fail("an equivalent UNIQUE constraint on (" + joinNames(colNames, ", ") + ") already exists");
    }
  }
  IndexSchema ix;
  ix.constraintName = names.claim(explicitName, "_uc_" + joinNames(colNames, "_"));
  ix.name = ix.constraintName;
  ix.columns = std::move(cols);
  ix.unique = true;
  ix.implicit = true;
  ix.onConflict = onConflict;
  t.indexes.push_back(std::move(ix));
}

void addCheck(TableSchema& t, ConstraintNames& names, const Engine& engine, const std::string& explicitName,
              const std::string& autoName, const ast::Expr& e, const std::vector<std::string>& ops,
              ast::ConflictAction onConflict) {
  validateSchemaExpr(e, engine, SchemaExprKind::kCheck);
  CheckConstraint ck;
  ck.onConflict = onConflict;
  ck.name = names.claim(explicitName, autoName);
  ck.expr = &e;
  ck.exprText = printExpr(e);
  ck.deferred = containsSubquery(e);
  if (!ops.empty()) {
    ck.onInsert = std::find(ops.begin(), ops.end(), "insert") != ops.end();
    ck.onUpdate = std::find(ops.begin(), ops.end(), "update") != ops.end();
    ck.onDelete = std::find(ops.begin(), ops.end(), "delete") != ops.end();
  }
  t.checks.push_back(std::move(ck));
}

void addForeignKey(TableSchema& t, ConstraintNames& names, const std::string& explicitName, std::vector<int> cols,
                   const ast::ForeignKeyClause& fkc) {
  ForeignKey fk;
  std::vector<std::string> colNames;
  for (int c : cols) colNames.push_back(t.columns[c].name);
  fk.name = names.claim(explicitName, "_fk_" + t.name + "_" + joinNames(colNames, "_"));
  // An explicit parent column list must pair with the child columns one to one; a bare
  // `references p` (p's primary key) is checked at the first write, when p is known.
  if (!fkc.parentColumns.empty() && fkc.parentColumns.size() != cols.size()) {
    fail("Foreign key '" + fk.name + "' on table '" + t.name + "': " + std::to_string(cols.size()) +
         " child column(s) but " + std::to_string(fkc.parentColumns.size()) + " parent column(s)");
  }
  fk.columns = std::move(cols);
  fk.parentSchema = fkc.parent.schema.empty() ? t.schemaName : lowerName(fkc.parent.schema);
  fk.parentTable = fkc.parent.name;
  fk.parentColumns = fkc.parentColumns;
  fk.onDelete = fkActionFromText(fkc.onDelete);
  fk.onUpdate = fkActionFromText(fkc.onUpdate);
  t.foreignKeys.push_back(std::move(fk));
}

void rejectConflictingFkCollations(Engine& engine, const TableSchema& t) {
  Catalog& cat = engine.catalog();
  for (const ForeignKey& fk : t.foreignKeys) {
    std::shared_ptr<Table> parentTable = cat.findTable(fk.parentSchema, fk.parentTable);
    bool self = lowerName(fk.parentTable) == lowerName(t.name) && fk.parentSchema == t.schemaName;
    if (!parentTable && !self) continue;
    const TableSchema& p = self ? t : parentTable->schema();
    for (size_t i = 0; i < fk.columns.size(); ++i) {
      int pc = -1;
      if (!fk.parentColumns.empty()) pc = i < fk.parentColumns.size() ? p.findColumn(fk.parentColumns[i]) : -1;
      else if (i < p.primaryKey.size()) pc = p.primaryKey[i].column;
      if (pc < 0) continue;
      const ColumnSchema& child = t.columns[fk.columns[i]];
      const ColumnSchema& parent = p.columns[pc];
      if (child.collationDeclared && parent.collationDeclared && child.collation != parent.collation) {
        fail("Foreign key '" + fk.name + "' on table '" + t.name + "': conflicting collations: column '" + child.name +
             "' is " + std::string(collationName(child.collation)) + " but parent column '" + p.name + "." + parent.name +
             "' is " + std::string(collationName(parent.collation)));
      }
    }
  }
}

ColumnSchema buildColumn(const Engine& engine, const ast::ColumnDef& cd, bool hasContext) {
  using Kind = ast::ColumnConstraint::Kind;
  ColumnSchema c;
  c.name = cd.name;
  c.type = logicalTypeFromName(cd.typeName);
  c.notNull = !engine.settings().defaultNullable;
  c.tags = cd.tags;
  // Only TEXT takes the default: the temporal types accept a COLLATE but declare none of their own.
  if (c.type == LogicalType::kText && engine.settings().defaultCollation != Collation::kBinary) {
    c.collation = engine.settings().defaultCollation;
  }
  for (const ast::ColumnConstraint& cc : cd.constraints) {
    switch (cc.kind) {
      case Kind::kNotNull:
        c.notNull = true;
        c.notNullConflict = cc.onConflict;
        break;
      case Kind::kNull:
        c.notNull = false;
        break;
      case Kind::kCollate:
        c.collation = collationOrThrow(cc.collation);
        c.collationDeclared = true;
        break;
      case Kind::kDefault:
        validateSchemaExpr(*cc.expr, engine, SchemaExprKind::kDefault, hasContext);
        c.defaultExpr = cc.expr.get();
        break;
      case Kind::kGenerated:
        validateSchemaExpr(*cc.expr, engine, SchemaExprKind::kGenerated);
        c.generated = cc.expr.get();
        c.generatedStored = cc.stored;
        break;
      default:
        break;
    }
  }
  if (c.generated && c.defaultExpr) fail("Column '" + c.name + "' cannot have both DEFAULT and GENERATED");
  return c;
}

}  // namespace optic
