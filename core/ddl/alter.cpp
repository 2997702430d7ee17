// ALTER TABLE (alter.h, sql-core.md §8).
//
// Every arm plans a Change first (the new immutable TableSchema, how an old row maps to the new
// shape, whether rows and indexes must be rebuilt) and validates it against all existing rows
// before anything is written; applyChange then swaps schema and stores in one step and records
// its undo. DDL is not transactional (10.1-ddl-lifecycle): a failing ALTER undoes itself, but
// once it has succeeded an explicit ROLLBACK [TO] only unwinds row writes — the undo restores
// the old shape so older row undo entries land correctly, then re-applies the ALTER through
// Transaction::afterRollback (unless pragma ddl_transaction_policy = 'strict').
#include "core/ddl/alter.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "core/catalog/materialized_view.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/ddl/drop_guard.h"
#include "core/ddl/materialized_view_statements.h"
#include "core/ddl/rename_propagation.h"
#include "core/ddl/row_eval.h"
#include "core/ddl/table_builder.h"
#include "core/execution/context.h"
#include "core/execution/dml.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/expr_binder.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

using Action = ast::AlterTable::Action;
using ColumnAction = ast::AlterTable::ColumnAction;
using RowMap = std::function<Row(const Row&)>;

// A planned ALTER: the new schema and how stored rows reach it.
struct Change {
  std::shared_ptr<TableSchema> schema;
  RowMap convert;            // old row -> new row (before generated columns); null = unchanged
  bool rewrite = false;      // rows and index stores are rebuilt (shape, key or index set changed)
  bool validate = false;     // re-check NOT NULL / CHECK / FK over the rows without rebuilding
  bool rekeyed = false;      // the primary key's definition (columns, order, collation) changed
  // ADD COLUMN with a literal (or no) DEFAULT: the indexes of the CHECKs it adds, which the
  // reference validates by a scan over the bulk-written rows and reports as such.
  std::vector<size_t> backfilledChecks;
};

struct Target {
  std::string schema;
  std::shared_ptr<Table> table;
};

Target resolveTarget(Context& ctx, const ast::QualifiedName& name) {
  Catalog& cat = ctx.catalog();
  std::vector<std::string> schemas;
  if (!name.schema.empty()) schemas.push_back(lowerName(name.schema));
  else schemas = ctx.searchPath();
  for (const std::string& s : schemas) {
    if (auto t = cat.findTable(s, name.name)) return {s, t};
  }
  fail(ErrorCode::kNotFound, tableNotFoundMessage(cat, name.name, schemas, !name.schema.empty()));
}

int requireColumn(const TableSchema& t, const std::string& name) {
  int i = t.findColumn(name);
  if (i < 0) fail("Column '" + name + "' not found in table '" + t.name + "'");
  return i;
}

bool isPkMember(const TableSchema& t, int column) {
  return std::any_of(t.primaryKey.begin(), t.primaryKey.end(), [&](const KeyColumn& k) { return k.column == column; });
}


bool mentionsColumn(const ast::Expr& e, const std::string& name);

// Generated columns recomputed in declaration order, then NOT NULL and CHECK over each row.
void finishRows(Context& ctx, const TableSchema& t, std::vector<Row>& rows, const std::vector<size_t>& backfilled = {}) {
  RowEval ev(ctx, &t);
  validateGeneratedColumns(ctx, t);
  std::vector<BoundExprPtr> gen(t.columns.size());
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].generated) gen[i] = ev.bind(*t.columns[i].generated);
  }
  std::vector<BoundExprPtr> checks;
  // A stored row is re-validated as if written again: delete-only checks do not apply. A
  // deferred (subquery) CHECK runs now too: the ALTER itself is the write it would wait for.
  for (const CheckConstraint& ck : t.checks)
    checks.push_back(!(ck.onInsert || ck.onUpdate) ? nullptr : ev.bindRule(*ck.expr));
  for (Row& row : rows) {
    for (size_t i = 0; i < gen.size(); ++i) {
      if (!gen[i]) continue;
      Value v = ev.eval(*gen[i], row);
      row[i] = v.isNull() ? v : convertForColumn(v, t.columns[i].type, t.columns[i].name);
    }
    for (size_t i = 0; i < t.columns.size(); ++i) {
      if (t.columns[i].notNull && row[i].isNull()) failConstraint("NOT NULL constraint failed: " + t.name + "." + t.columns[i].name);
    }
    for (size_t i = 0; i < checks.size(); ++i) {
      if (!checks[i]) continue;
      std::optional<bool> ok = truthValue(ev.eval(*checks[i], row));
      if (!ok || *ok) continue;
      if (std::find(backfilled.begin(), backfilled.end(), i) != backfilled.end()) {
        failConstraint("CHECK constraint '" + t.checks[i].name + "' violated by backfilled rows in ALTER TABLE ADD COLUMN on '" +
                       t.name + "'");
      }
      failConstraint("CHECK constraint failed: " + t.checks[i].name + " (" + t.checks[i].exprText + ")");
    }
    if (ctx.settings().foreignKeys) {
      for (const ForeignKey& fk : t.foreignKeys) {
        bool anyNull = std::any_of(fk.columns.begin(), fk.columns.end(), [&](int c) { return row[c].isNull(); });
        if (anyNull) continue;
        try {
          checkForeignKeyParent(ctx, t, fk, row);
        } catch (const Error& e) {
          // The same constraint name a write reports, plus what it is: a row the table already
          // holds (not a new write) references no parent row.
          std::string what = e.what();
          if (e.code() != ErrorCode::kConstraint || e.subject() != fk.name) throw;
          failConstraint(what + " (foreign key: an existing row of '" + t.name + "' references no row of '" +
                         fk.parentTable + "')", fk.name);
        }
      }
    }
  }
}

// Primary-key and UNIQUE collisions among the converted rows.
void rejectCollisions(Context& ctx, const TableSchema& t, const std::vector<Row>& rows) {
  std::set<std::string> pks;
  for (const Row& row : rows) {
    if (!pks.insert(encodePrimaryKey(t, row)).second) {
      // Any arm that rewrites rows (retype, set not null backfill, collate, pk change) can make two
      // existing rows meet on one key; the message says it is the new key definition that collides.
      failConstraint("UNIQUE constraint failed: " + t.name + " PK: an existing row collides under the new key definition with another");
    }
  }
  for (const IndexSchema& ix : t.indexes) if (ix.unique) rejectUniqueCollisions(ctx, t, ix, rows);
}

// Rows a rollback could bring back: the committed rows the transaction left alone and every row
// image it overwrote or erased (a rollback to a savepoint can restore any of them).
std::vector<Row> restorableRows(const Transaction& txn, Table& table) {
  KVStore& store = table.rows();
  std::map<std::string, std::optional<std::string>> touched = txn.originals(&store);
  std::vector<Row> rows;
  auto it = store.newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) {
    if (!touched.count(std::string(it->key()))) rows.push_back(decodeRow(it->value()));
  }
  for (const std::string& image : txn.overwritten(&store)) rows.push_back(decodeRow(image));
  return rows;
}

// A re-keyed table must be able to hold whatever a rollback restores, since a succeeded ALTER
// re-applies itself after one: two restorable rows of different old keys that meet on one new
// key refuse the ALTER until the transaction ends (a shape from an earlier ALTER is skipped).
void rejectRestorableCollisions(Context& ctx, Table& table, const TableSchema& newS) {
  const TableSchema& oldS = table.schema();
  std::map<std::string, std::string> oldKeyOf;  // new key -> old key
  for (const Row& row : restorableRows(ctx.txn(), table)) {
    if (row.size() != oldS.columns.size()) continue;
    auto [at, fresh] = oldKeyOf.emplace(encodePrimaryKey(newS, row), encodePrimaryKey(oldS, row));
    if (!fresh && at->second != encodePrimaryKey(oldS, row)) {
      failConstraint("UNIQUE constraint failed: " + newS.name + " PK: rows this transaction deleted or replaced still "
                     "collide under the new key definition; commit or roll back, then retry");
    }
  }
}

void rekey(Catalog& cat, const std::string& schema, const std::string& from, const std::string& to,
           const std::shared_ptr<Table>& table) {
  if (lowerName(from) == lowerName(to)) return;
  cat.schema(schema).tables.erase(lowerName(from));
  cat.schema(schema).tables[lowerName(to)] = table;
}

// Swaps in the planned schema (rows already converted and validated) and records the undo.
void install(Context& ctx, const Target& target, std::shared_ptr<const TableSchema> oldS,
             std::shared_ptr<const TableSchema> newS, const RowMap& convert, bool rewrite, std::vector<Row> newRows,
             std::shared_ptr<bool> done) {
  Catalog& cat = ctx.catalog();
  Table& table = *target.table;
  TableStore store(table, ctx.txn());
  if (rewrite) {
    for (const Row& row : readRows(table)) store.erase(store.primaryKey(row), row);
  }
  auto oldStores = table.indexStores();
  table.setSchema(newS);
  if (rewrite) table.setIndexStores({});
  rekey(cat, target.schema, oldS->name, newS->name, target.table);
  cat.bumpVersion();
  Context* eng = &ctx;
  ctx.txn().recordUndo([eng, target, oldS, newS, oldStores, convert, rewrite, done] {
    Catalog& c = eng->catalog();
    target.table->setSchema(oldS);
    target.table->setIndexStores(oldStores);
    rekey(c, target.schema, newS->name, oldS->name, target.table);
    c.bumpVersion();
    if (!*done || eng->settings().strictDdlTransactions) return;
    eng->txn().afterRollback([eng, target, oldS, newS, convert, rewrite] {
      try {
        std::vector<Row> rows = readRows(*target.table);
        if (convert) for (Row& r : rows) r = convert(r);
        finishRows(*eng, *newS, rows);
        install(*eng, target, oldS, newS, convert, rewrite, std::move(rows), std::make_shared<bool>(true));
      } catch (const std::exception&) {
        // The restored rows no longer fit the altered shape: the table keeps its old one.
      }
    });
  });
  if (rewrite) for (const Row& row : newRows) store.insert(row);
}

// Foreign keys of other tables that name the altered table as parent follow its renames. The
// change is metadata only, so once the ALTER has succeeded a rollback has nothing to restore.
void retargetChildKeys(Context& ctx, const Target& target, const TableSchema& oldS, const TableSchema& newS,
                       const std::shared_ptr<bool>& done) {
  Catalog& cat = ctx.catalog();
  std::vector<std::pair<std::string, std::string>> renamedColumns;
  for (size_t i = 0; i < oldS.columns.size() && i < newS.columns.size(); ++i) {
    if (oldS.columns[i].name != newS.columns[i].name) renamedColumns.emplace_back(oldS.columns[i].name, newS.columns[i].name);
  }
  bool renamedTable = oldS.name != newS.name;
  if (!renamedTable && renamedColumns.empty()) return;
  for (const auto& [sname, schema] : cat.schemas()) {
    for (const auto& [key, child] : schema.tables) {
      if (child == target.table) continue;
      auto ts = std::make_shared<TableSchema>(child->schema());
      bool changed = false;
      for (ForeignKey& fk : ts->foreignKeys) {
        if (fk.parentSchema != target.schema || lowerName(fk.parentTable) != lowerName(oldS.name)) continue;
        fk.parentTable = newS.name;
        for (std::string& pc : fk.parentColumns) {
          for (const auto& [from, to] : renamedColumns) if (lowerName(pc) == lowerName(from)) pc = to;
        }
        changed = true;
      }
      if (!changed) continue;
      std::shared_ptr<const TableSchema> old = child->schemaPtr();
      std::shared_ptr<Table> t = child;
      t->setSchema(ts);
      Context* eng = &ctx;
      ctx.txn().recordUndo([eng, t, old, ts, done] {
        t->setSchema(old);
        eng->catalog().bumpVersion();
        // Like the ALTER itself: a succeeded ALTER re-applies after a plain rollback.
        if (*done && !eng->settings().strictDdlTransactions) eng->txn().afterRollback([t, ts] { t->setSchema(ts); });
      });
    }
  }
  // Self-references move with the table itself (they are part of newS already).
}

void applyChange(Context& ctx, const Target& target, Change change) {
  std::shared_ptr<const TableSchema> oldS = target.table->schemaPtr();
  std::vector<Row> rows;
  if (change.rewrite || change.validate) {
    rows = readRows(*target.table);
    if (change.convert) for (Row& r : rows) r = change.convert(r);
    finishRows(ctx, *change.schema, rows, change.backfilledChecks);
    if (change.rewrite) rejectCollisions(ctx, *change.schema, rows);
    if (change.rekeyed) rejectRestorableCollisions(ctx, *target.table, *change.schema);
  }
  checkRenamePropagation(ctx, *oldS, *change.schema);
  auto done = std::make_shared<bool>(false);
  retargetChildKeys(ctx, target, *oldS, *change.schema, done);
  install(ctx, target, oldS, change.schema, change.convert, change.rewrite, std::move(rows), done);
  propagateRename(ctx, *oldS, *change.schema, done);
  *done = true;
}

// ---- renames inside stored expressions ------------------------------------------------------

// Keeps a free-standing expression alive from a TableSchema.
const ast::Expr* keep(TableSchema& t, ast::ExprPtr e) {
  std::shared_ptr<ast::Expr> owner(std::move(e));
  t.keepAlive.push_back(std::shared_ptr<const ast::Statement>(owner, nullptr));
  return owner.get();
}

void renameColumnRefs(ast::Expr& e, const std::string& table, const std::string& from, const std::string& to) {
  if (e.kind == ast::ExprKind::kColumn && lowerName(e.name) == lowerName(from) &&
      (e.table.empty() || lowerName(e.table) == lowerName(table) || lowerName(e.table) == "new" ||
       lowerName(e.table) == "old")) {
    e.name = to;
  }
  for (auto& a : e.args) if (a) renameColumnRefs(*a, table, from, to);
  for (auto& w : e.whens) {
    renameColumnRefs(*w.when, table, from, to);
    renameColumnRefs(*w.then, table, from, to);
  }
  if (e.elseExpr) renameColumnRefs(*e.elseExpr, table, from, to);
}

bool mentionsColumn(const ast::Expr& e, const std::string& name) {
  if (e.kind == ast::ExprKind::kColumn && lowerName(e.name) == lowerName(name)) return true;
  for (const auto& a : e.args) if (a && mentionsColumn(*a, name)) return true;
  for (const auto& w : e.whens) if (mentionsColumn(*w.when, name) || mentionsColumn(*w.then, name)) return true;
  return e.elseExpr && mentionsColumn(*e.elseExpr, name);
}

const ast::Expr* renamedCopy(TableSchema& t, const ast::Expr* e, const std::string& from, const std::string& to) {
  if (!e || !mentionsColumn(*e, from)) return e;
  ast::ExprPtr copy = parseExpression(printExpr(*e));
  renameColumnRefs(*copy, t.name, from, to);
  return keep(t, std::move(copy));
}

bool mentionsQualifier(const ast::Expr& e, const std::string& table) {
  if (e.kind == ast::ExprKind::kColumn && lowerName(e.table) == lowerName(table)) return true;
  for (const auto& a : e.args) if (a && mentionsQualifier(*a, table)) return true;
  for (const auto& w : e.whens) if (mentionsQualifier(*w.when, table) || mentionsQualifier(*w.then, table)) return true;
  return e.elseExpr && mentionsQualifier(*e.elseExpr, table);
}

void requalify(ast::Expr& e, const std::string& from, const std::string& to) {
  if (e.kind == ast::ExprKind::kColumn && lowerName(e.table) == lowerName(from)) e.table = to;
  for (auto& a : e.args) if (a) requalify(*a, from, to);
  for (auto& w : e.whens) {
    requalify(*w.when, from, to);
    requalify(*w.then, from, to);
  }
  if (e.elseExpr) requalify(*e.elseExpr, from, to);
}

// A stored expression's `old.col` qualifiers follow a table rename (the row scope of a
// table's own expressions is named by the table).
const ast::Expr* requalifiedCopy(TableSchema& t, const ast::Expr* e, const std::string& from, const std::string& to) {
  if (!e || !mentionsQualifier(*e, from)) return e;
  ast::ExprPtr copy = parseExpression(printExpr(*e));
  requalify(*copy, from, to);
  return keep(t, std::move(copy));
}

// ---- arms -------------------------------------------------------------------------------------

Change copyOf(const Table& table) {
  Change c;
  c.schema = std::make_shared<TableSchema>(table.schema());
  return c;
}

Change renameTable(Context& ctx, const Target& target, const ast::AlterTable& at) {
  if (ctx.catalog().findTable(target.schema, at.newName) && lowerName(at.newName) != lowerName(target.table->schema().name))
    fail("Table '" + at.newName + "' already exists");
  if (ctx.catalog().findView(target.schema, at.newName)) fail("View '" + at.newName + "' already exists");
  Change c = copyOf(*target.table);
  for (ForeignKey& fk : c.schema->foreignKeys) {
    if (fk.parentSchema == target.schema && lowerName(fk.parentTable) == lowerName(c.schema->name)) fk.parentTable = at.newName;
  }
  TableSchema& s = *c.schema;
  const std::string from = s.name;
  for (ColumnSchema& col : s.columns) {
    col.defaultExpr = requalifiedCopy(s, col.defaultExpr, from, at.newName);
    col.generated = requalifiedCopy(s, col.generated, from, at.newName);
  }
  for (CheckConstraint& ck : s.checks) {
    const ast::Expr* moved = requalifiedCopy(s, ck.expr, from, at.newName);
    if (moved != ck.expr) ck.exprText = printExpr(*moved);
    ck.expr = moved;
  }
  for (IndexSchema& ix : s.indexes) ix.where = requalifiedCopy(s, ix.where, from, at.newName);
  s.name = at.newName;
  return c;
}

// An unnamed UNIQUE's structure is named for its columns' current names (`_uc_<cols>`), so
// renaming a column it covers renames it; refused when that name is a standalone index's
// (`guard`: false for a case-only rename, whose new name is the structure's own).
void moveMintedUniqueNames(TableSchema& s, int column, const std::string& operation, bool guard) {
  std::vector<std::pair<IndexSchema*, std::string>> moves;
  for (IndexSchema& ix : s.indexes) {
    bool covers = std::any_of(ix.columns.begin(), ix.columns.end(), [&](const KeyColumn& k) { return k.column == column; });
    if (!ix.mintedName || !covers) continue;
    std::vector<std::string> names;
    for (const KeyColumn& k : ix.columns) names.push_back(s.columns[k.column].name);
    moves.emplace_back(&ix, mintedUniqueName(names));
    if (guard) requireBackingNameFree(s, moves.back().second, operation, &ix);  // against the names before the move
  }
  for (auto& [ix, moved] : moves) ix->name = ix->constraintName = moved;
}

Change renameColumn(const Target& target, const ast::AlterTable& at) {
  const TableSchema& t = target.table->schema();
  int i = requireColumn(t, at.column);
  if (t.findColumn(at.newName) >= 0 && lowerName(at.newName) != lowerName(at.column))
    fail("Column '" + at.newName + "' already exists in table '" + t.name + "'");
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  s.columns[i].name = at.newName;
  moveMintedUniqueNames(s, i, "rename column '" + at.column + "' to '" + at.newName + "' on table '" + s.name + "'",
                        lowerName(at.newName) != lowerName(at.column));
  for (ColumnSchema& col : s.columns) {
    col.defaultExpr = renamedCopy(s, col.defaultExpr, at.column, at.newName);
    col.generated = renamedCopy(s, col.generated, at.column, at.newName);
  }
  for (CheckConstraint& ck : s.checks) {
    ck.expr = renamedCopy(s, ck.expr, at.column, at.newName);
    ck.exprText = printExpr(*ck.expr);
  }
  for (IndexSchema& ix : s.indexes) ix.where = renamedCopy(s, ix.where, at.column, at.newName);
  for (ForeignKey& fk : s.foreignKeys) {
    if (fk.parentSchema != target.schema || lowerName(fk.parentTable) != lowerName(s.name)) continue;
    for (std::string& pc : fk.parentColumns) if (lowerName(pc) == lowerName(at.column)) pc = at.newName;
  }
  return c;
}

Change addColumn(Context& ctx, const Target& target, const ast::AlterTable& at) {
  using Kind = ast::ColumnConstraint::Kind;
  const ast::ColumnDef& cd = *at.columnDef;
  const TableSchema& t = target.table->schema();
  if (t.findColumn(cd.name) >= 0) fail("Column '" + cd.name + "' already exists in table '" + t.name + "'");
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  s.columns.push_back(buildColumn(ctx, cd, !s.contextVariables.empty()));
  int idx = static_cast<int>(s.columns.size()) - 1;
  const ColumnSchema& col = s.columns[idx];
  size_t checksBefore = s.checks.size();
  ConstraintNames names(s);
  for (const ast::ColumnConstraint& cc : cd.constraints) {
    switch (cc.kind) {
      case Kind::kPrimaryKey: fail("Cannot add a PRIMARY KEY column; use ALTER PRIMARY KEY");
      case Kind::kUnique:
        addUnique(s, names, cc.name, {KeyColumn{idx, false, col.collation}}, cc.onConflict,
                  UniqueDeclaration{"add column '" + cd.name + "' to table '" + t.name + "'", t.indexes.size()});
        break;
      case Kind::kCheck: addCheck(s, names, ctx, cc.name, "_check_" + cd.name, *cc.expr, cc.checkOperations); break;
      case Kind::kReferences: addForeignKey(s, names, cc.name, {idx}, *cc.fk); break;
      default: break;
    }
  }
  if (col.defaultExpr && col.defaultExpr->kind == ast::ExprKind::kLiteral && !col.defaultExpr->value.isNull())
    convertForColumn(col.defaultExpr->value, col.type, col.name);
  if (!col.generated && (!col.defaultExpr || col.defaultExpr->kind == ast::ExprKind::kLiteral)) {
    for (size_t i = checksBefore; i < s.checks.size(); ++i) c.backfilledChecks.push_back(i);
  }
  bool hasRows = readRows(*target.table).size() > 0;
  if (hasRows && col.notNull && !col.generated) {
    bool nullDefault = !col.defaultExpr || (col.defaultExpr->kind == ast::ExprKind::kLiteral && col.defaultExpr->value.isNull());
    if (nullDefault) {
      failConstraint("NOT NULL constraint failed for column '" + col.name + "' added to " + t.schemaName + "." + t.name +
                     " — column has no DEFAULT and existing rows cannot be backfilled");
    }
  }
  std::shared_ptr<BoundExpr> def;
  std::shared_ptr<RowEval> ev;
  if (col.defaultExpr) {
    // Backfill: each existing row is the NEW row its default reads (`new.<col>`).
    ev = std::make_shared<RowEval>(ctx, &t);
    def = ev->bind(*col.defaultExpr);
  }
  LogicalType type = col.type;
  std::string name = col.name;
  c.convert = [ev, def, type, name](const Row& r) {
    Row out = r;
    Value v = def ? ev->eval(*def, r) : Value();
    // A default already of the column's type (`new.j` for a JSON column) yields a stored value:
    // converting it again would re-read a JSON string's text as JSON source.
    bool stored = v.isNull() || def->type == type;
    out.push_back(stored ? v : convertForColumn(v, type, name));
    return out;
  };
  c.rewrite = true;
  rejectConflictingFkCollations(ctx, s);
  return c;
}

// Column indexes above `removed` shift down by one.
void shiftColumns(TableSchema& s, int removed) {
  auto fix = [removed](int& c) { if (c > removed) --c; };
  for (KeyColumn& k : s.primaryKey) fix(k.column);
  for (IndexSchema& ix : s.indexes) for (KeyColumn& k : ix.columns) fix(k.column);
  for (ForeignKey& fk : s.foreignKeys) for (int& c : fk.columns) fix(c);
}

// A foreign key naming the column among its parent columns would be left pointing at nothing
// (the child table then fails every write), so the drop is refused whether or not
// `pragma foreign_keys` is on. A key without a parent column list targets the primary key
// (never droppable), and a self-reference whose child columns hold the column goes with it.
void rejectReferencingForeignKeys(Context& ctx, const TableSchema& t, int column) {
  const std::string name = lowerName(t.columns[column].name);
  for (const auto& [schemaName, s] : ctx.catalog().schemas()) {
    for (const auto& [key, child] : s.tables) {
      const TableSchema& c = child->schema();
      for (const ForeignKey& fk : c.foreignKeys) {
        if (fk.parentSchema != t.schemaName || lowerName(fk.parentTable) != lowerName(t.name)) continue;
        auto named = [&](const std::string& p) { return lowerName(p) == name; };
        if (std::none_of(fk.parentColumns.begin(), fk.parentColumns.end(), named)) continue;
        bool removedWithIt = &c == &t && std::find(fk.columns.begin(), fk.columns.end(), column) != fk.columns.end();
        if (removedWithIt) continue;
        fail("Cannot drop column '" + t.columns[column].name + "' from '" + t.name + "': it is referenced by foreign key '" +
             (fk.name.empty() ? "_fk_" + c.name : fk.name) + "' on table '" + c.name + "'");
      }
    }
  }
}

Change dropColumn(Context& ctx, const Target& target, const ast::AlterTable& at) {
  const TableSchema& t = target.table->schema();
  int i = t.findColumn(at.column);
  if (i < 0) fail("Column '" + at.column + "' not found in table '" + t.name + "'");
  if (isPkMember(t, i)) fail("Cannot drop PRIMARY KEY column '" + t.columns[i].name + "'");
  std::string why = "Cannot drop column '" + t.columns[i].name + "' from '" + t.name + "': ";
  // Generated columns first: their message is the one reported when a CHECK names it too.
  for (const ColumnSchema& col : t.columns) {
    if (col.generated && mentionsColumn(*col.generated, at.column))
      fail(why + "it is referenced by generated column '" + col.name + "'");
  }
  // A key column only narrows its index; a predicate has no narrowed form.
  for (const IndexSchema& ix : t.indexes) {
    if (ix.where && mentionsColumn(*ix.where, at.column))
      fail(why + "it is referenced by the WHERE clause of partial index '" + ix.name + "'");
  }
  for (const CheckConstraint& ck : t.checks)
    if (mentionsColumn(*ck.expr, at.column)) {
      std::string named = hasMintedName(ck) ? "" : "'" + ck.name + "' ";
      fail(why + "it is referenced by the CHECK constraint " + named + "(" + ck.exprText + ")");
    }
  for (const ColumnSchema& col : t.columns) {
    if (col.defaultExpr && mentionsColumn(*col.defaultExpr, at.column))
      fail(why + "it is referenced by the DEFAULT of column '" + col.name + "' on table '" + t.name + "'");
  }
  rejectColumnDependents(ctx, *target.table, i, why);
  rejectReferencingForeignKeys(ctx, t, i);
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  s.columns.erase(s.columns.begin() + i);
  // A UNIQUE spanning the column goes outright (narrowing would invent a stronger constraint);
  // a plain index is narrowed to its surviving columns.
  auto isDropped = [i](const KeyColumn& k) { return k.column == i; };
  std::erase_if(s.indexes, [&](IndexSchema& ix) {
    if (std::none_of(ix.columns.begin(), ix.columns.end(), isDropped)) return false;
    if (ix.unique) return true;
    std::erase_if(ix.columns, isDropped);
    return ix.columns.empty();
  });
  std::erase_if(s.foreignKeys, [&](const ForeignKey& fk) { return std::find(fk.columns.begin(), fk.columns.end(), i) != fk.columns.end(); });
  shiftColumns(s, i);
  c.convert = [i](const Row& r) {
    Row out = r;
    out.erase(out.begin() + i);
    return out;
  };
  c.rewrite = true;
  return c;
}

Change addConstraint(Context& ctx, const Target& target, const ast::AlterTable& at) {
  using Kind = ast::TableConstraint::Kind;
  const ast::TableConstraint& tc = *at.constraint;
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  ConstraintNames names(s);
  switch (tc.kind) {
    case Kind::kPrimaryKey: fail("Cannot add a PRIMARY KEY constraint; use ALTER PRIMARY KEY");
    case Kind::kUnique: {
      std::vector<KeyColumn> cols;
      for (const ast::IndexedColumn& ic : tc.columns) cols.push_back(keyColumnFor(s, ic));
      std::string what = tc.name.empty() ? "UNIQUE constraint" : "constraint '" + tc.name + "'";
      addUnique(s, names, tc.name, std::move(cols), tc.onConflict,
                UniqueDeclaration{"add " + what + " to table '" + s.name + "'", s.indexes.size()});
      c.rewrite = true;
      break;
    }
    case Kind::kCheck:
      addCheck(s, names, ctx, tc.name, names.firstFree("check_", s.checks.size()), *tc.expr, tc.checkOperations);
      c.validate = true;
      break;
    case Kind::kForeignKey: {
      std::vector<int> cols;
      for (const std::string& n : tc.fkColumns) cols.push_back(requireColumn(s, n));
      addForeignKey(s, names, tc.name, std::move(cols), *tc.fk);
      c.validate = true;
      break;
    }
  }
  return c;
}

Change dropConstraint(const Target& target, const ast::AlterTable& at) {
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  std::string key = lowerName(at.name);
  for (size_t i = 0; i < s.indexes.size(); ++i) {
    if (lowerName(s.indexes[i].constraintName) != key && lowerName(s.indexes[i].name) != key) continue;
    if (!s.indexes[i].implicit)
      fail("Constraint '" + at.name + "' is backed by index '" + s.indexes[i].name + "'; use DROP INDEX");
    s.indexes.erase(s.indexes.begin() + static_cast<long>(i));
    c.rewrite = true;
    return c;
  }
  auto ck = std::find_if(s.checks.begin(), s.checks.end(), [&](const CheckConstraint& x) { return lowerName(x.name) == key; });
  if (ck != s.checks.end()) {
    s.checks.erase(ck);
    return c;
  }
  auto fk = std::find_if(s.foreignKeys.begin(), s.foreignKeys.end(), [&](const ForeignKey& x) { return lowerName(x.name) == key; });
  if (fk != s.foreignKeys.end()) {
    s.foreignKeys.erase(fk);
    return c;
  }
  fail("Constraint '" + at.name + "' not found on table '" + s.name + "'");
}

// The tags of a named constraint; throws when there is none.
ast::Tags& constraintTags(TableSchema& s, const std::string& name) {
  std::string key = lowerName(name);
  for (IndexSchema& ix : s.indexes) if (lowerName(ix.constraintName) == key) return ix.tags;
  for (CheckConstraint& ck : s.checks) if (lowerName(ck.name) == key) return ck.tags;
  for (ForeignKey& fk : s.foreignKeys) if (lowerName(fk.name) == key) return fk.tags;
  fail("Constraint '" + name + "' not found on table '" + s.name + "'");
}

Change renameConstraint(const Target& target, const ast::AlterTable& at) {
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  ConstraintNames names(s);
  if (names.taken(at.newName) && lowerName(at.newName) != lowerName(at.name) && !mintedStructureHolds(s, at.newName))
    failConstraintRenameTaken(at.newName, s.name);
  std::string key = lowerName(at.name);
  for (IndexSchema& ix : s.indexes) {
    if (lowerName(ix.constraintName) == key) {
      if (lowerName(at.newName) != key) {
        requireBackingNameFree(s, at.newName,
                               "rename constraint '" + at.name + "' to '" + at.newName + "' on table '" + s.name + "'", &ix);
      }
      ix.constraintName = ix.name = at.newName;
      ix.mintedName = false;
      return c;
    }
  }
  for (CheckConstraint& ck : s.checks) if (lowerName(ck.name) == key) { ck.name = at.newName; return c; }
  for (ForeignKey& fk : s.foreignKeys) if (lowerName(fk.name) == key) { fk.name = at.newName; return c; }
  fail("Constraint '" + at.name + "' not found on table '" + s.name + "'");
}

Change alterPrimaryKey(const Target& target, const ast::AlterTable& at) {
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  s.primaryKey.clear();
  for (const ast::IndexedColumn& ic : at.keyColumns) {
    KeyColumn k = keyColumnFor(s, ic);
    if (isPkMember(s, k.column)) fail("Duplicate column '" + s.columns[k.column].name + "' in PRIMARY KEY");
    s.primaryKey.push_back(k);
  }
  s.pkDeclared = true;
  c.rewrite = true;
  c.rekeyed = true;
  return c;
}

Change alterColumn(Context& ctx, const Target& target, const ast::AlterTable& at) {
  const TableSchema& t = target.table->schema();
  int i = requireColumn(t, at.column);
  Change c = copyOf(*target.table);
  TableSchema& s = *c.schema;
  ColumnSchema& col = s.columns[i];
  switch (at.columnAction) {
    case ColumnAction::kSetNotNull: {
      if (col.notNull) break;
      col.notNull = true;
      const ast::Expr* d = col.defaultExpr;
      std::optional<Value> fill;
      if (d && d->kind == ast::ExprKind::kLiteral && !d->value.isNull()) fill = convertForColumn(d->value, col.type, col.name);
      for (const Row& r : readRows(*target.table)) {
        if (r[i].isNull() && !fill) fail("Column '" + col.name + "' contains NULL values");
      }
      c.convert = [i, fill](const Row& r) {
        Row out = r;
        if (out[i].isNull() && fill) out[i] = *fill;
        return out;
      };
      c.rewrite = true;
      // A key column's backfill moves key values: (NULL, 1) and (0, 1) meet under `default 0`, so
      // it is validated as a re-key, rows a rollback could restore included.
      c.rekeyed = isPkMember(s, i);
      break;
    }
    case ColumnAction::kDropNotNull:
      col.notNull = false;
      break;
    case ColumnAction::kSetDataType: {
      if (isPkMember(t, i)) fail("Cannot SET DATA TYPE on PRIMARY KEY column '" + col.name + "'");
      col.type = logicalTypeFromName(at.typeName);
      // The column keeps its collation (declared or inherited alike: that is not persisted), so
      // the new type must accept it — the shape CREATE TABLE would refuse is refused here too.
      if (!acceptsCollation(col.type, col.collation)) {
        fail("Unknown collation '" + std::string(collationName(col.collation)) + "' for type '" +
             std::string(logicalTypeName(col.type)) + "'");
      }
      if (!isTextLike(col.type) && !col.collationDeclared) col.collation = Collation::kBinary;
      // A literal DEFAULT is folded against the new type too: a TEXT column defaulting 'abc' retyped
      // to INTEGER would be a shape CREATE TABLE refuses (DROP DEFAULT first).
      if (const ast::Expr* d = col.defaultExpr; d && d->kind == ast::ExprKind::kLiteral && !d->value.isNull()) {
        convertForColumn(d->value, col.type, col.name);
      }
      LogicalType type = col.type;
      std::string name = col.name;
      c.convert = [i, type, name](const Row& r) {
        Row out = r;
        if (out[i].isNull()) return out;
        // The existing value, not a new write, is what cannot be converted: say so and name it.
        try {
          out[i] = convertStrict(out[i], type);
        } catch (const Error& e) {
          throw Error(e.code(), "Cannot convert value '" + toText(out[i]) + "' of column '" + name + "' to " +
                                    std::string(logicalTypeName(type)));
        }
        return out;
      };
      c.rewrite = true;
      break;
    }
    case ColumnAction::kSetDefault: {
      validateSchemaExpr(*at.defaultExpr, ctx, SchemaExprKind::kDefault, !t.contextVariables.empty());
      RowEval(ctx, &t).bindRule(*at.defaultExpr);
      const ast::Expr* d = at.defaultExpr.get();
      if (d->kind == ast::ExprKind::kLiteral && !d->value.isNull()) convertForColumn(d->value, col.type, col.name);
      col.defaultExpr = d;
      break;
    }
    case ColumnAction::kDropDefault:
      col.defaultExpr = nullptr;
      break;
    case ColumnAction::kSetCollate: {
      std::optional<Collation> coll = collationFromName(at.collation);
      if (!coll) fail("Unknown collation '" + at.collation + "' for type '" + std::string(logicalTypeName(col.type)) + "'");
      col.collation = *coll;
      col.collationDeclared = true;
      for (KeyColumn& k : s.primaryKey) if (k.column == i) k.collation = *coll;
      c.rekeyed = isPkMember(s, i);
      for (IndexSchema& ix : s.indexes) for (KeyColumn& k : ix.columns) if (k.column == i) k.collation = *coll;
      c.rewrite = true;
      break;
    }
    case ColumnAction::kSetTags:
      col.tags = at.tags;
      break;
  }
  return c;
}

Change plan(Context& ctx, const Target& target, const ast::AlterTable& at) {
  switch (at.action) {
    case Action::kRenameTable: return renameTable(ctx, target, at);
    case Action::kRenameColumn: return renameColumn(target, at);
    case Action::kAddColumn: return addColumn(ctx, target, at);
    case Action::kDropColumn: return dropColumn(ctx, target, at);
    case Action::kAddConstraint: return addConstraint(ctx, target, at);
    case Action::kDropConstraint: return dropConstraint(target, at);
    case Action::kRenameConstraint: return renameConstraint(target, at);
    case Action::kAlterPrimaryKey: return alterPrimaryKey(target, at);
    case Action::kAlterColumn: return alterColumn(ctx, target, at);
    case Action::kSetTags: {
      Change c = copyOf(*target.table);
      c.schema->tags = at.tags;
      return c;
    }
    case Action::kAlterConstraintTags: {
      Change c = copyOf(*target.table);
      constraintTags(*c.schema, at.name) = at.tags;
      return c;
    }
    case Action::kSetMaintained:
    case Action::kDropMaintained:
      fail("not supported yet: maintained tables (alter table … set/drop maintained)");
  }
  fail("not supported yet: this ALTER TABLE form");
}

}  // namespace

namespace {

// The tag set after ALTER … SET TAGS (replace), ADD TAGS (overlay, replacing equal keys) or
// DROP TAGS (every key must be present, else nothing changes). Keys match verbatim.
ast::Tags alteredTags(const ast::Tags& current, const ast::AlterObjectTags& a) {
  using Op = ast::AlterObjectTags::Op;
  if (a.op == Op::kSet) return a.tags;
  ast::Tags out = current;
  auto find = [&out](const std::string& key) {
    return std::find_if(out.begin(), out.end(), [&key](const ast::Tag& t) { return t.key == key; });
  };
  if (a.op == Op::kAdd) {
    for (const ast::Tag& t : a.tags) {
      auto it = find(t.key);
      if (it != out.end()) it->value = t.value;
      else out.push_back(t);
    }
    return out;
  }
  std::string missing;
  for (const std::string& key : a.dropKeys) {
    if (find(key) == out.end()) missing += (missing.empty() ? "" : ", ") + key;
  }
  if (!missing.empty()) fail(ErrorCode::kNotFound, "Tag key(s) not found: " + missing);
  for (const std::string& key : a.dropKeys) out.erase(find(key));
  return out;
}

}  // namespace

void executeAlterIndexTags(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::AlterObjectTags& a = *stmt->alterObjectTags;
  // As the reference: the index is looked up in the named schema, else the current one. A
  // UNIQUE constraint's own structure is addressable only when exposed, and its tags are its own
  // (the constraint keeps its tags).
  std::string schema = a.name.schema.empty() ? ctx.searchPath().front() : lowerName(a.name.schema);
  auto [table, i] = ctx.catalog().findIndex(schema, a.name.name, isVisibleIndex);
  if (!table) fail(ErrorCode::kNotFound, "Index '" + a.name.name + "' not found in schema '" + schema + "'");
  Change change = copyOf(*table);
  IndexSchema& ix = change.schema->indexes[i];
  ast::Tags& tags = ix.implicit ? ix.exposedTags : ix.tags;
  tags = alteredTags(tags, a);
  change.schema->keepAlive.push_back(stmt);
  applyChange(ctx, Target{schema, table}, std::move(change));
}

void executeAlterTable(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::AlterTable& at = *stmt->alterTable;
  Target target = resolveTarget(ctx, at.table);
  if (executeAlterMaintained(ctx, stmt, target.table)) return;
  Change change = plan(ctx, target, at);
  change.schema->keepAlive.push_back(stmt);
  applyChange(ctx, target, std::move(change));
}

}  // namespace optic
