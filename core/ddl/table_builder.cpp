// Table builder (table_builder.h).
#include "core/ddl/table_builder.h"
#include "core/execution/determinism.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "core/catalog/materialized_view.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/ddl/row_eval.h"
#include "core/execution/context.h"
#include "core/parser/printer.h"
#include "core/planner/change_scope.h"

namespace optic {

ConstraintNames::ConstraintNames(const TableSchema& t) : table_(t.name), altering_(true) {
  for (const IndexSchema& ix : t.indexes) if (!ix.constraintName.empty()) used_.insert(lowerName(ix.constraintName));
  for (const CheckConstraint& ck : t.checks) used_.insert(lowerName(ck.name));
  for (const ForeignKey& fk : t.foreignKeys) used_.insert(lowerName(fk.name));
}

std::string ConstraintNames::claim(const std::string& explicitName, const std::string& autoName) {
  if (!explicitName.empty()) {
    if (!used_.insert(lowerName(explicitName)).second) {
      if (altering_) {
        throw Error(ErrorCode::kConstraint, "Cannot add constraint '" + explicitName + "' to table '" + table_ +
                                                "': a constraint with that name already exists");
      }
      throw Error(ErrorCode::kConstraint,
                  "Cannot create table '" + table_ + "': duplicate constraint name '" + explicitName +
                      "' — constraint names must be unique within a table (case-insensitive, across CHECK / "
                      "UNIQUE / FOREIGN KEY)");
    }
    return explicitName;
  }
  std::string name = autoName;
  for (int n = 2; !used_.insert(lowerName(name)).second; ++n) name = autoName + "_" + std::to_string(n);
  return name;
}

void failConstraintRenameTaken(const std::string& newName, const std::string& table) {
  throw Error(ErrorCode::kConstraint, "Cannot rename constraint to '" + newName +
                                          "': a constraint with that name already exists in table '" + table + "'");
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

void validateSchemaExpr(const ast::Expr& e, const Context& ctx, SchemaExprKind kind, bool hasContext) {
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
  if (!readsNewRow) requireDeterministic(e, ctx, det);
}

namespace {

// True when the column reference at (line, column) sits in the body of a derived table (a FROM
// subquery) of `e`: a frame whose bindings the declaration cannot see, so an unresolved name
// there is undecidable at CREATE and left for the first write to report.
bool inDerivedTable(const ast::Expr& e, int line, int column) {
  auto at = [&](const ast::Expr& x) { return x.kind == ast::ExprKind::kColumn && x.pos.line == line && x.pos.column == column; };
  std::function<bool(const ast::FromItem&)> derived = [&](const ast::FromItem& f) {
    if (f.kind == ast::FromItem::Kind::kSubquery && f.select && ast::anyExprInSelect(*f.select, at)) return true;
    return (f.left && derived(*f.left)) || (f.right && derived(*f.right));
  };
  return ast::anyExpr(e, [&](const ast::Expr& x) { return x.select && x.select->from && derived(*x.select->from); }, true);
}

// The names spelled under a DML statement used as a relation inside `e` (its RETURNING list,
// SET assignments and WHERE): the DML's target may be the very table being defined, so each such
// name is an undecidable reference and counts as a dependency on the own column of that name.
void collectNames(const ast::Expr* e, std::set<std::string>& out) {
  if (!e) return;
  ast::anyExpr(*e, [&](const ast::Expr& x) {
    if (x.kind == ast::ExprKind::kColumn) out.insert(lowerName(x.name));
    return false;
  }, true);
}

void collectAssignments(const std::vector<ast::Assignment>& set, std::set<std::string>& out) {
  for (const ast::Assignment& a : set) {
    out.insert(lowerName(a.column));
    collectNames(a.value.get(), out);
  }
}

void namesUnderDml(const ast::Statement& dml, std::set<std::string>& out) {
  const std::vector<ast::ResultColumn>* returning = nullptr;
  if (dml.insert) {
    returning = &dml.insert->returning;
    for (const ast::Upsert& u : dml.insert->upserts) {
      collectAssignments(u.set, out);
      collectNames(u.where.get(), out);
    }
  } else if (dml.update) {
    returning = &dml.update->returning;
    collectAssignments(dml.update->set, out);
    collectNames(dml.update->where.get(), out);
  } else if (dml.del) {
    returning = &dml.del->returning;
    collectNames(dml.del->where.get(), out);
  }
  if (returning) for (const ast::ResultColumn& rc : *returning) collectNames(rc.expr.get(), out);
}

void namesUnderDml(const ast::FromItem& f, std::set<std::string>& out) {
  if (f.kind == ast::FromItem::Kind::kDml && f.dml) namesUnderDml(*f.dml, out);
  if (f.select && f.select->from) namesUnderDml(*f.select->from, out);
  if (f.left) namesUnderDml(*f.left, out);
  if (f.right) namesUnderDml(*f.right, out);
}

std::set<std::string> namesUnderDml(const ast::Expr& e) {
  std::set<std::string> out;
  ast::anyExpr(e, [&](const ast::Expr& x) {
    if (x.select && x.select->from) namesUnderDml(*x.select->from, out);
    return false;
  }, true);
  return out;
}

// Depth-first search over deps[i] (the generated columns column i reads); a column met again
// while still on the path closes a cycle.
void rejectCycles(const TableSchema& t, const std::vector<std::vector<size_t>>& deps) {
  enum class Mark : uint8_t { kNew, kOnPath, kDone };
  std::vector<Mark> mark(deps.size(), Mark::kNew);
  std::function<void(size_t)> visit = [&](size_t i) {
    mark[i] = Mark::kOnPath;
    for (size_t d : deps[i]) {
      if (mark[d] == Mark::kOnPath) fail("Cyclic dependency in generated columns: '" + t.columns[d].name + "'");
      if (mark[d] == Mark::kNew) visit(d);
    }
    mark[i] = Mark::kDone;
  };
  for (size_t i = 0; i < deps.size(); ++i) if (mark[i] == Mark::kNew) visit(i);
}

}  // namespace

void validateGeneratedColumns(Context& ctx, const TableSchema& t) {
  const size_t n = t.columns.size();
  Scope own = rowScope(t, "");
  own.columns.resize(2 * n);  // the row itself, bare or as new.*; never old.*
  Binder binder(ctx);
  // deps[i]: the generated columns generated column i reads — first the undecidable names under
  // an inner DML (checked before binding, which may not get that far), then the own-row columns
  // its binding resolved, so a like-named column of a subquery's own FROM source is no edge.
  std::vector<std::vector<size_t>> deps(n);
  for (size_t i = 0; i < n; ++i) {
    if (!t.columns[i].generated) continue;
    for (const std::string& name : namesUnderDml(*t.columns[i].generated)) {
      int c = t.findColumn(name);
      if (c >= 0 && t.columns[c].generated) deps[i].push_back(static_cast<size_t>(c));
    }
  }
  rejectCycles(t, deps);
  for (size_t i = 0; i < n; ++i) {
    const ast::Expr* g = t.columns[i].generated;
    if (!g) continue;
    // Outside its subqueries a generated column reads only its own row: a column qualified by
    // another schema names nothing it can see (the binder matches table qualifiers only).
    ast::anyExpr(*g, [&](const ast::Expr& x) {
      if (x.kind != ast::ExprKind::kColumn || x.schema.empty() || lowerName(x.schema) == t.schemaName) return false;
      fail("Generated column '" + t.columns[i].name + "': " + x.schema + "." + x.table + "." + x.name +
           " binds nothing (a generated column reads only the columns of its own row)");
    }, false);
    int read = binder.reads().addTable(nullptr);
    for (size_t k = 0; k < own.columns.size(); ++k) {
      own.columns[k].read = read;
      own.columns[k].baseColumn = static_cast<int>(k % n);
    }
    try {
      ExprBinder(binder, own).bind(*g);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kNotFound || e.subject().empty()) throw;
      if (inDerivedTable(*g, e.line(), e.column())) continue;
      const std::string& ref = e.subject();
      size_t dot = ref.rfind('.');
      std::string qualifier = dot == std::string::npos ? "" : lowerName(ref.substr(0, dot));
      if (qualifier.empty() || qualifier == "new" || qualifier == lowerName(t.name)) {
        fail("Column '" + ref.substr(dot == std::string::npos ? 0 : dot + 1) + "' referenced by generated column '" +
             t.columns[i].name + "' not found in table '" + t.name + "'");
      }
      fail("Generated column '" + t.columns[i].name + "': " + ref +
           " binds nothing (a generated column reads only the columns of its own row)");
    }
    for (int c : binder.reads().reads()[read].columns) {
      if (t.columns[c].generated) deps[i].push_back(static_cast<size_t>(c));
    }
  }
  rejectCycles(t, deps);
}

namespace {

// Whether `reads` name column `column` of `table`, or read a materialized view whose body does
// (a maintained table reads as its source; `depth` bounds a chain).
bool readsColumn(Context& ctx, const ReadRecorder& reads, const Table& table, int column, bool starReads, int depth) {
  for (const TableRead& r : reads.reads()) {
    if (r.table.get() == &table && ((starReads && r.allColumns) || r.columns.count(column))) return true;
  }
  if (depth > 8) return false;
  for (const TableRead& r : reads.derivedReads()) {
    bool any = (starReads && r.allColumns) || !r.columns.empty();
    const auto& d = r.table->schema().derivation;
    if (!any || r.table.get() == &table || !d || !d->body) continue;
    Binder binder(ctx);
    binder.setHomeSchema(r.table->schema().schemaName);
    try {
      binder.bindQuery(*d->body, nullptr);
    } catch (const Error&) {
      continue;  // a stale body reads nothing
    }
    if (readsColumn(ctx, binder.reads(), table, column, starReads, depth + 1)) return true;
  }
  return false;
}

}  // namespace

bool subqueryReadsColumn(Context& ctx, const TableSchema& owner, const ast::Expr& expr, const Table& table,
                         int column, bool starReads) {
  Binder binder(ctx);
  if (!owner.schemaName.empty()) binder.setHomeSchema(owner.schemaName);  // bare names bind where the expression lives
  Scope own = rowScope(owner, "");
  try {
    ExprBinder(binder, own).bind(expr);
  } catch (const Error&) {
    return false;
  }
  return readsColumn(ctx, binder.reads(), table, column, starReads, 0);
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

namespace {

// How a UNIQUE constraint is named back to the user: by the name written, else by its columns.
std::string describeUnique(const std::string& name, bool minted, const std::vector<std::string>& columns) {
  return minted ? "on (" + joinNames(columns, ", ") + ")" : "'" + name + "'";
}

std::vector<std::string> keyColumnNames(const TableSchema& t, const std::vector<KeyColumn>& key) {
  std::vector<std::string> out;
  for (const KeyColumn& k : key) out.push_back(t.columns[k.column].name);
  return out;
}

}  // namespace

void requireBackingNameFree(const TableSchema& t, const std::string& backingName, const std::string& operation,
                            const IndexSchema* self) {
  const std::string wanted = lowerName(backingName);
  for (const IndexSchema& ix : t.indexes) {
    if (&ix == self || !ix.implicit || lowerName(ix.name) != wanted) continue;
    throw Error(ErrorCode::kConstraint,
                "Cannot " + operation + ": its backing structure '" + backingName +
                    "' would collide with the backing structure of the UNIQUE constraint " +
                    describeUnique(ix.constraintName, ix.mintedName, keyColumnNames(t, ix.columns)) +
                    " on the same table. Name or rename one of the two constraints — an unnamed one derives its "
                    "structure name from the columns it covers.");
  }
  for (const IndexSchema& ix : t.indexes) {
    if (isStandaloneIndex(ix) && lowerName(ix.name) == wanted) {
      throw Error(ErrorCode::kConstraint, "Cannot " + operation + ": its backing index '" + backingName +
                                              "' would collide with existing index '" + ix.name +
                                              "' on the same table. Rename the constraint or the index.");
    }
  }
}

bool mintedStructureHolds(const TableSchema& t, const std::string& name) {
  return std::any_of(t.indexes.begin(), t.indexes.end(), [&](const IndexSchema& ix) {
    return ix.implicit && ix.mintedName && lowerName(ix.name) == lowerName(name);
  });
}

void addUnique(TableSchema& t, ConstraintNames& names, const std::string& explicitName, std::vector<KeyColumn> cols,
               ast::ConflictAction onConflict, const UniqueDeclaration& site) {
  std::vector<std::string> colNames = keyColumnNames(t, cols);
  const std::string autoName = mintedUniqueName(colNames);
  // Column order is no identity: unique (a, b) and unique (b, a) are one rule. A partial UNIQUE
  // governs only its scope, and a named one is addressable: neither duplicates another.
  auto columnSet = [](const std::vector<KeyColumn>& key) {
    std::set<int> out;
    for (const KeyColumn& k : key) out.insert(k.column);
    return out;
  };
  for (const IndexSchema& other : t.indexes) {
    if (other.unique && other.implicit && !other.where && explicitName.empty() && other.mintedName &&
        other.columns.size() == cols.size() && columnSet(other.columns) == columnSet(cols)) {
      throw Error(ErrorCode::kConstraint, "Cannot " + site.operation + ": an equivalent UNIQUE constraint on (" +
                                              joinNames(colNames, ", ") + ") already exists.");
    }
  }
  // A name another named constraint holds is refused as such first; one an unnamed UNIQUE's
  // structure holds is the structure-name collision below.
  std::string claimed = mintedStructureHolds(t, explicitName) ? "" : names.claim(explicitName, autoName);
  // Two constraints deriving one structure name would share one structure: refused, against
  // those declared by the same statement (one message) and those already on the table.
  const std::string backingName = explicitName.empty() ? autoName : explicitName;
  for (size_t i = site.firstOfStatement; i < t.indexes.size(); ++i) {
    const IndexSchema& held = t.indexes[i];
    if (!held.implicit || lowerName(held.name) != lowerName(backingName)) continue;
    throw Error(ErrorCode::kConstraint,
                "Cannot " + site.operation + ": the UNIQUE constraint " +
                    describeUnique(held.constraintName, held.mintedName, keyColumnNames(t, held.columns)) +
                    " and the UNIQUE constraint " + describeUnique(explicitName, explicitName.empty(), colNames) +
                    " both derive backing structure name '" + backingName +
                    "'. Name or rename one of them — an unnamed one derives its structure name from the columns it "
                    "covers.");
  }
  requireBackingNameFree(t, backingName, site.operation);
  IndexSchema ix;
  ix.constraintName = claimed.empty() ? names.claim(explicitName, autoName) : claimed;
  ix.mintedName = explicitName.empty();
  ix.name = ix.constraintName;
  ix.columns = std::move(cols);
  ix.unique = true;
  ix.implicit = true;
  ix.onConflict = onConflict;
  t.indexes.push_back(std::move(ix));
}

void addCheck(TableSchema& t, ConstraintNames& names, const Context& ctx, const std::string& explicitName,
              const std::string& autoName, const ast::Expr& e, const std::vector<std::string>& ops,
              ast::ConflictAction onConflict) {
  validateSchemaExpr(e, ctx, SchemaExprKind::kCheck);
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

void rejectConflictingFkCollations(Context& ctx, const TableSchema& t) {
  Catalog& cat = ctx.catalog();
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

void rejectUniqueCollisions(Context& ctx, const TableSchema& t, const IndexSchema& ix, const std::vector<Row>& rows) {
  RowEval ev(ctx, &t);
  BoundExprPtr inside = ix.where ? ev.bind(*ix.where) : nullptr;
  std::set<std::string> keys;
  for (const Row& row : rows) {
    bool hasNull = std::any_of(ix.columns.begin(), ix.columns.end(), [&](const KeyColumn& k) { return row[k.column].isNull(); });
    if (hasNull || (inside && !isTrue(ev.eval(*inside, row)))) continue;
    if (!keys.insert(TableStore::indexKey(t, ix, row)).second) {
      std::vector<std::string> cols;
      for (const KeyColumn& k : ix.columns) cols.push_back(t.columns[k.column].name);
      throw Error(ErrorCode::kConstraint, "UNIQUE constraint failed: " + t.name + " (" + joinNames(cols, ", ") + ")");
    }
  }
}

bool hasMintedName(const CheckConstraint& ck) {
  const std::string prefix = "_check_";
  return ck.name.rfind(prefix, 0) == 0 && ck.name.size() > prefix.size() &&
         std::all_of(ck.name.begin() + prefix.size(), ck.name.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

ColumnSchema buildColumn(const Context& ctx, const ast::ColumnDef& cd, bool hasContext) {
  using Kind = ast::ColumnConstraint::Kind;
  ColumnSchema c;
  c.name = cd.name;
  c.type = logicalTypeFromName(cd.typeName);
  c.notNull = !ctx.settings().defaultNullable;
  c.tags = cd.tags;
  // Only TEXT takes the default: the temporal types and JSON accept BINARY only.
  if (c.type == LogicalType::kText && ctx.settings().defaultCollation != Collation::kBinary) {
    c.collation = ctx.settings().defaultCollation;
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
        if (!acceptsCollation(c.type, c.collation)) {
          fail("Unknown collation '" + cc.collation + "' for type '" + std::string(logicalTypeName(c.type)) + "'");
        }
        break;
      case Kind::kDefault:
        validateSchemaExpr(*cc.expr, ctx, SchemaExprKind::kDefault, hasContext);
        c.defaultExpr = cc.expr.get();
        break;
      case Kind::kGenerated:
        validateSchemaExpr(*cc.expr, ctx, SchemaExprKind::kGenerated);
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
