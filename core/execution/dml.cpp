// INSERT / UPDATE / DELETE execution (dml.h).
#include "core/execution/dml.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/catalog/reserved_tags.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"
#include "core/common/value_ops.h"
#include "core/execution/committed_scan.h"
#include "core/execution/context.h"
#include "core/execution/determinism.h"
#include "core/execution/expression_nodes.h"
#include "core/execution/operators.h"
#include "core/parser/printer.h"
#include "core/planner/access_path.h"
#include "core/planner/change_scope.h"
#include "core/planner/expr_binder.h"
#include "core/planner/mutation_context.h"
#include "core/planner/row_scope.h"
#include "core/planner/views/view_mutation.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

using ast::ConflictAction;

[[noreturn]] void failConstraint(const std::string& msg) { throw Error(ErrorCode::kConstraint, msg); }

ConflictAction effective(ConflictAction statement, ConflictAction constraint) {
  if (statement != ConflictAction::kNone) return statement;
  if (constraint != ConflictAction::kNone) return constraint;
  return ConflictAction::kAbort;
}


// Constraint expressions of a table, bound once per statement over its row scope.
struct BoundTableRules {
  std::vector<BoundExprPtr> defaults;    // per column (null when none)
  std::vector<BoundExprPtr> generated;   // per column (null when not generated)
  std::vector<BoundExprPtr> checks;      // per CheckConstraint
  std::vector<BoundExprPtr> partial;     // per index: its WHERE predicate (null when total)
};

// `evaluated` (per column; null = every column) names the DEFAULTs the statement can run; only
// those are bound, so a DEFAULT reading a name only another writer provides (a join view's
// cross-side `new.<col>`, which that writer supplies explicitly) does not fail this one.
BoundTableRules bindRules(Binder& binder, const TableSchema& t, const std::vector<bool>* evaluated = nullptr) {
  Binder::CteIsolation isolation(binder);  // the table's own DDL never binds the statement's CTEs
  BoundTableRules r;
  Scope scope = rowScope(t, "");
  // A table's own expressions resolve unqualified names in the table's schema first.
  struct HomeSchema {
    Binder& binder;
    std::string saved;
    ~HomeSchema() { binder.setHomeSchema(saved); }
  } home{binder, binder.homeSchema()};
  binder.setHomeSchema(t.schemaName);
  Scope rules = contextRuleScope(t);  // DEFAULT and CHECK also read the mutation context
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const ColumnSchema& c = t.columns[i];
    bool bound = c.defaultExpr && (!evaluated || (*evaluated)[i]);
    r.defaults.push_back(bound ? ExprBinder(binder, rules).bind(*c.defaultExpr) : nullptr);
    r.generated.push_back(c.generated ? ExprBinder(binder, scope).bind(*c.generated) : nullptr);
  }
  for (const CheckConstraint& ck : t.checks) r.checks.push_back(ExprBinder(binder, rules).bind(*ck.expr));
  for (const IndexSchema& ix : t.indexes) r.partial.push_back(ix.where ? ExprBinder(binder, scope).bind(*ix.where) : nullptr);
  return r;
}

// Where a cell of a row being written comes from, which decides whether it is converted to the
// column's declared type. Conversion happens exactly once: a value already of the column's type
// (the old row's untouched cells, a JSON column copied into a JSON column) is never converted
// again, because converting is not idempotent for JSON (the stored text scalar "9" would be
// re-read as JSON source and become the number 9).
enum class CellSource : uint8_t {
  kDefault,    // not supplied: the DEFAULT (or NULL) fills it
  kSupplied,   // a value from the statement: converted to the column's type
  kConverted,  // already of the column's type: stored as it is
};

// The source of an assigned cell whose producing expression has static type `produced`.
CellSource assignedCell(LogicalType produced, LogicalType column) {
  return produced == LogicalType::kJson && column == LogicalType::kJson ? CellSource::kConverted
                                                                        : CellSource::kSupplied;
}

// The cells of an updated row: the old row's, already converted, except the assigned ones.
std::vector<CellSource> updatedCells(const TableSchema& t, const std::vector<std::pair<int, BoundExprPtr>>& set) {
  std::vector<CellSource> cells(t.columns.size(), CellSource::kConverted);
  for (const auto& [col, expr] : set) cells[col] = assignedCell(expr->type, t.columns[col].type);
  return cells;
}

// The columns whose DEFAULT a write can run: those it leaves to their default, and a NOT NULL
// one whose REPLACE action substitutes the DEFAULT for a NULL it is given.
std::vector<bool> evaluatedDefaults(const TableSchema& t, const std::vector<CellSource>& cells, ConflictAction orAction) {
  std::vector<bool> out(t.columns.size());
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const ColumnSchema& c = t.columns[i];
    bool replaces = c.notNull && effective(orAction, c.notNullConflict) == ConflictAction::kReplace;
    out[i] = cells[i] == CellSource::kDefault || replaces;
  }
  return out;
}

}  // namespace

// While a statement writes its target, its lookups of the target's keys also position the store
// maintenance writes the same keys to next (MaterializedViewMaintainer::follower): one pass over
// two cold trees instead of two (KVStore::setFollower).
class FollowedWrites {
 public:
  FollowedWrites(Context& ctx, Table& target) : rows_(target.rows()) {
    rows_.setFollower(ctx.maintenance().follower(target));
  }
  ~FollowedWrites() { rows_.setFollower(nullptr); }
  FollowedWrites(const FollowedWrites&) = delete;
  FollowedWrites& operator=(const FollowedWrites&) = delete;

 private:
  KVStore& rows_;
};

// RowWriter: the one write path every DML statement uses for one target table.
class RowWriter {
 public:
  RowWriter(Context& ctx, std::shared_ptr<Table> table, const BoundTableRules& rules, ConflictAction orAction)
      : ctx_(ctx), table_(std::move(table)), rules_(rules), orAction_(orAction) {}

  const TableSchema& schema() const { return table_->schema(); }
  Table& table() { return *table_; }
  // The statement's mutation-context values (MutationContext::evaluate), read by DEFAULT/CHECK.
  void setContext(Row values) { context_ = std::move(values); }

  // The evaluation row of a DEFAULT or CHECK: new ‖ new ‖ old ‖ context (contextRuleScope).
  Row ruleRow(const Row& row, const Row* oldRow) const {
    Row r = rowContext(row, oldRow);
    if (r.size() < 3 * schema().columns.size()) r.resize(3 * schema().columns.size());
    r.insert(r.end(), context_.begin(), context_.end());
    r.resize(3 * schema().columns.size() + schema().contextVariables.size());
    return r;
  }

  // Fills defaults for the columns not supplied, converts, computes generated columns.
  // Returns false when a NOT NULL violation under IGNORE skips the row.
  bool prepareRow(Row& row, const std::vector<CellSource>& cells, ExecState& st, const Row* oldRow) {
    const TableSchema& t = schema();
    EvalContext ctx{nullptr, nullptr, &st};
    for (size_t i = 0; i < t.columns.size(); ++i) {
      if (cells[i] != CellSource::kDefault || t.columns[i].generated) continue;
      if (rules_.defaults[i]) {
        Row context = ruleRow(row, oldRow);
        ctx.row = &context;
        row[i] = rules_.defaults[i]->eval(ctx);
      } else {
        row[i] = Value();
      }
    }
    for (size_t i = 0; i < t.columns.size(); ++i) {
      if (t.columns[i].generated) continue;
      CellSource source = cells[i] == CellSource::kDefault ? defaultCell(i) : cells[i];
      row[i] = storedValue(i, std::move(row[i]), source);
    }
    computeGenerated(row, st, oldRow);
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const ColumnSchema& c = t.columns[i];
      if (!row[i].isNull() || !c.notNull) continue;
      ConflictAction a = effective(orAction_, c.notNullConflict);
      if (a == ConflictAction::kIgnore) return false;
      if (a == ConflictAction::kReplace && rules_.defaults[i]) {
        Row context = ruleRow(row, oldRow);
        ctx.row = &context;
        row[i] = storedValue(i, rules_.defaults[i]->eval(ctx), defaultCell(i));
        if (!row[i].isNull()) continue;
      }
      raise(a, "NOT NULL constraint failed: " + t.name + "." + c.name);
    }
    return true;
  }

  // The value column `i` stores for `v`: converted to its declared type unless already so.
  Value storedValue(size_t i, Value v, CellSource source) const {
    if (v.isNull() || source == CellSource::kConverted) return v;
    const ColumnSchema& c = schema().columns[i];
    return convertForColumn(v, c.type, c.name);
  }
  // The source of column i's DEFAULT value (NULL when it has none).
  CellSource defaultCell(size_t i) const {
    return rules_.defaults[i] ? assignedCell(rules_.defaults[i]->type, schema().columns[i].type) : CellSource::kSupplied;
  }

  // Generated columns may read each other (acyclic, checked at CREATE): one pass per generated
  // column reaches the fixpoint whatever the declaration order.
  void computeGenerated(Row& row, ExecState& st, const Row* oldRow) {
    const TableSchema& t = schema();
    size_t generated = 0;
    for (const auto& g : rules_.generated) generated += g != nullptr;
    EvalContext ctx{nullptr, nullptr, &st};
    for (size_t pass = 0; pass < generated; ++pass) {
      for (size_t i = 0; i < t.columns.size(); ++i) {
        if (!rules_.generated[i]) continue;
        Row context = rowContext(row, oldRow);
        ctx.row = &context;
        row[i] = storedValue(i, rules_.generated[i]->eval(ctx), assignedCell(rules_.generated[i]->type, t.columns[i].type));
      }
    }
  }

  // CHECK constraints for the operation; false when IGNORE skips the row.
  bool checkRow(const Row& row, const Row* oldRow, bool isInsert, bool isDelete, ExecState& st) {
    const TableSchema& t = schema();
    if (t.checks.empty()) return true;  // most tables: no evaluation row to build
    EvalContext ctx{nullptr, nullptr, &st};
    Row context = isDelete ? ruleRow(*oldRow, oldRow) : ruleRow(row, oldRow);
    ctx.row = &context;
    for (size_t i = 0; i < t.checks.size(); ++i) {
      const CheckConstraint& ck = t.checks[i];
      bool applies = isDelete ? ck.onDelete : isInsert ? ck.onInsert : ck.onUpdate;
      if (!applies) continue;
      if (ck.deferred) {  // a subquery: evaluated at COMMIT over the row as finally written
        DeferredCheck d{t.schemaName, t.name, ck.name, isDelete ? *oldRow : row};
        d.isCheck = true;
        d.deleted = isDelete;
        if (oldRow) d.oldRow = *oldRow;
        d.context = context_;
        d.context.resize(t.contextVariables.size());
        ctx_.txn().recordDeferred(std::move(d));
        continue;
      }
      Value v = rules_.checks[i]->eval(ctx);
      std::optional<bool> ok = truthValue(v);
      if (!ok || *ok) continue;  // NULL passes, as in SQL
      ConflictAction a = effective(orAction_, ck.onConflict);
      if (a == ConflictAction::kIgnore) return false;
      raise(a == ConflictAction::kReplace ? ConflictAction::kAbort : a,
            "CHECK constraint failed: " + ck.name + " (" + ck.exprText + ")");
    }
    return true;
  }

  // Resolves PK/UNIQUE conflicts of `row` (which will be stored at its key, replacing
  // `oldPk` when updating; null for an insert). Returns false when the row is to be skipped
  // (IGNORE).
  // With an upsert handler, a conflict hands the existing row, the key columns of the
  // constraint it violates and the violation message to it instead.
  using ConflictHandler =
      std::function<bool(const Row& existing, const std::vector<KeyColumn>& key, const std::string& violation)>;
  bool resolveConflicts(const Row& row, const std::string* oldPk, ExecState& st,
                        const ConflictHandler& onConflict = nullptr) {
    const TableSchema& t = schema();
    TableStore store(*table_, ctx_.txn());
    std::string pk = store.primaryKey(row);
    if (!oldPk || pk != *oldPk) {
      if (std::optional<Row> existing = store.get(pk)) {
        if (onConflict) return onConflict(*existing, t.primaryKey, "UNIQUE constraint failed: " + t.name + " PK.");
        ConflictAction a = effective(orAction_, t.pkConflict);
        if (a == ConflictAction::kIgnore) return false;
        if (a == ConflictAction::kReplace) {
          deleteRow(pk, *existing, st);
        } else {
          raise(a, "UNIQUE constraint failed: " + t.name + " PK.");
        }
      }
    }
    for (size_t i = 0; i < t.indexes.size(); ++i) {
      const IndexSchema& ix = t.indexes[i];
      if (!ix.unique) continue;
      bool hasNull = std::any_of(ix.columns.begin(), ix.columns.end(), [&](const KeyColumn& k) { return row[k.column].isNull(); });
      if (hasNull) continue;  // NULLs are distinct under UNIQUE
      // A partial UNIQUE binds only the rows inside its predicate (its entries still cover
      // every row, so the index stays a valid access path).
      if (!inScope(i, row, st)) continue;
      std::string prefix = TableStore::indexKey(t, ix, row);
      std::set<std::string> outside;  // same key, outside the predicate: no conflict
      while (std::optional<std::string> other = store.findIndexConflict(i, prefix, oldPk, &outside)) {
        std::optional<Row> existing = store.get(*other);
        if (!existing) break;
        if (!inScope(i, *existing, st)) {
          outside.insert(*other);
          continue;
        }
        std::string cols;
        for (const KeyColumn& k : ix.columns) cols += (cols.empty() ? "" : ", ") + t.columns[k.column].name;
        std::string violation = "UNIQUE constraint failed: " + t.name + " (" + cols + ")";
        if (onConflict) return onConflict(*existing, ix.columns, violation);
        ConflictAction a = effective(orAction_, ix.onConflict);
        if (a == ConflictAction::kIgnore) return false;
        if (a == ConflictAction::kReplace) {
          deleteRow(*other, *existing, st);
          continue;
        }
        raise(a, violation);
      }
    }
    return true;
  }

  // True when `row` is inside index `i`'s partial predicate (always for a total index).
  bool inScope(size_t i, const Row& row, ExecState& st) const {
    if (i >= rules_.partial.size() || !rules_.partial[i]) return true;
    EvalContext ctx{nullptr, nullptr, &st};
    Row context = rowContext(row, nullptr);
    ctx.row = &context;
    return isTrue(rules_.partial[i]->eval(ctx));
  }

  void insertRow(const Row& row) {
    TableStore(*table_, ctx_.txn()).insert(row);
    deferChildChecks(row);
  }

  void updateRow(const Row& oldRow, const Row& newRow, ExecState& st) {
    applyParentActions(oldRow, &newRow, st);
    TableStore(*table_, ctx_.txn()).replace(oldRow, newRow);
    deferChildChecks(newRow);
  }

  // Inbound actions run while the row still exists (a RESTRICT further down still sees it);
  // a cascade that comes back to a row whose delete is in progress up the chain (mutual or
  // cyclic ON DELETE CASCADE) leaves it to that delete instead of recursing without end.
  void deleteRow(const std::string& pk, const Row& oldRow, ExecState& st) {
    deleting_ = &pk;
    struct Clear {
      const std::string** slot;
      ~Clear() { *slot = nullptr; }
    } clear{&deleting_};
    applyParentActions(oldRow, nullptr, st);
    TableStore(*table_, ctx_.txn()).erase(pk, oldRow);
  }

  // True when a writer up the cascade chain (this one included) is deleting `pk` of `table`.
  bool deleteInProgress(const Table* table, const std::string& pk) const {
    for (const RowWriter* w = this; w; w = w->parent_) {
      if (w->table_.get() == table && w->deleting_ && *w->deleting_ == pk) return true;
    }
    return false;
  }

  // Raises a constraint error; OR FAIL / OR ROLLBACK tell the engine how far to undo.
  [[noreturn]] void raise(ConflictAction a, const std::string& msg) {
    conflict_ = a;
    ctx_.setFailureScope(a == ConflictAction::kFail ? FailureScope::kKeepEarlierRows
                            : a == ConflictAction::kRollback ? FailureScope::kTransaction
                                                             : FailureScope::kStatement);
    failConstraint(msg);
  }

  ConflictAction lastConflict() const { return conflict_; }

 private:
  void deferChildChecks(const Row& row) {
    if (!ctx_.settings().foreignKeys) return;
    const TableSchema& t = schema();
    for (const ForeignKey& fk : t.foreignKeys) {
      bool anyNull = std::any_of(fk.columns.begin(), fk.columns.end(), [&](int c) { return row[c].isNull(); });
      if (anyNull) continue;  // MATCH SIMPLE
      ctx_.txn().recordDeferred(DeferredCheck{t.schemaName, t.name, fk.name, row});
    }
  }

  // Parent-side foreign-key actions when a referenced row is deleted (newRow null) or updated.
  void applyParentActions(const Row& oldRow, const Row* newRow, ExecState& st);
  bool inboundActionsMixed(const TableSchema& parent, bool update) const;

  const RowWriter* parent_ = nullptr;     // the writer whose inbound action made this one
  const std::string* deleting_ = nullptr;  // the key deleteRow is deleting, while it runs
  Context& ctx_;
  std::shared_ptr<Table> table_;
  const BoundTableRules& rules_;
  ConflictAction orAction_;
  ConflictAction conflict_ = ConflictAction::kNone;
  Row context_;
};

namespace {

// The parent columns an FK references (explicit list or the parent's primary key). A defaulted
// list can stop matching the child's arity when the parent's key changes after the FK was made:
// such a key is refused on both sides rather than left declared but unenforced.
std::vector<int> parentColumnsOf(const ForeignKey& fk, const TableSchema& child, const TableSchema& parent) {
  std::vector<int> cols;
  if (fk.parentColumns.empty()) {
    for (const KeyColumn& k : parent.primaryKey) cols.push_back(k.column);
  } else {
    for (const std::string& n : fk.parentColumns) {
      int c = parent.findColumn(n);
      if (c < 0) fail("Foreign key '" + fk.name + "': column '" + n + "' not found in '" + parent.name + "'");
      cols.push_back(c);
    }
  }
  if (cols.size() != fk.columns.size()) {
    fail("Foreign key '" + fk.name + "' on table '" + child.schemaName + "." + child.name + "': " +
         std::to_string(fk.columns.size()) + " column(s) reference the primary key of '" + parent.schemaName + "." +
         parent.name + "', which has " + std::to_string(cols.size()) + " column(s).");
  }
  return cols;
}

// The collation of the synthesized `parent.col = child.col` comparison, by the read path's rank rules:
// a declared collation outranks a defaulted one; when both rank alike the parent (left) side decides.
Collation fkCompareCollation(const ColumnSchema& parentCol, const ColumnSchema& childCol) {
  if (childCol.collationDeclared && !parentCol.collationDeclared) return childCol.collation;
  return parentCol.collation;
}

std::vector<Collation> fkCollations(const TableSchema& parent, const std::vector<int>& pcols, const TableSchema& child,
                                    const ForeignKey& fk) {
  std::vector<Collation> colls;
  for (size_t i = 0; i < pcols.size(); ++i) {
    colls.push_back(fkCompareCollation(parent.columns[pcols[i]], child.columns[fk.columns[i]]));
  }
  return colls;
}

bool valuesMatch(const Row& a, const std::vector<int>& ac, const Row& b, const std::vector<int>& bc,
                 const std::vector<Collation>& colls) {
  for (size_t i = 0; i < ac.size(); ++i) {
    if (a[ac[i]].isNull() || b[bc[i]].isNull()) return false;
    std::optional<int> c = sqlCompare(a[ac[i]], b[bc[i]], colls[i]);
    if (!c || *c != 0) return false;
  }
  return true;
}

std::vector<Row> scanRows(Table& t) {
  std::vector<Row> rows;
  auto it = t.rows().newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) rows.push_back(decodeRow(it->value()));
  return rows;
}

}  // namespace

// True when the foreign keys naming `parent` do not all RESTRICT the operation (UPDATE when
// `update`, else DELETE).
bool RowWriter::inboundActionsMixed(const TableSchema& parent, bool update) const {
  bool restrict = false, other = false;
  for (const auto& [sname, s] : ctx_.catalog().schemas()) {
    for (const auto& [tname, child] : s.tables) {
      for (const ForeignKey& fk : child->schema().foreignKeys) {
        if (fk.parentSchema != parent.schemaName || lowerName(fk.parentTable) != lowerName(parent.name)) continue;
        ((update ? fk.onUpdate : fk.onDelete) == FkAction::kRestrict ? restrict : other) = true;
      }
    }
  }
  return restrict && other;
}

void RowWriter::applyParentActions(const Row& oldRow, const Row* newRow, ExecState& st) {
  if (!ctx_.settings().foreignKeys) return;
  const TableSchema& parent = schema();
  for (const auto& [sname, s] : ctx_.catalog().schemas()) {
    for (const auto& [tname, child] : s.tables) {
      for (const ForeignKey& fk : child->schema().foreignKeys) {
        if (fk.parentSchema != parent.schemaName || lowerName(fk.parentTable) != lowerName(parent.name)) continue;
        std::vector<int> pcols = parentColumnsOf(fk, child->schema(), parent);
        if (newRow) {
          bool changed = false;
          for (int c : pcols) {
            std::optional<int> cmp = sqlCompare(oldRow[c], (*newRow)[c], Collation::kBinary);
            if (!cmp || *cmp != 0) changed = true;
          }
          if (!changed) continue;
        }
        FkAction action = newRow ? fk.onUpdate : fk.onDelete;
        std::vector<Row> children;
        std::vector<Collation> colls = fkCollations(parent, pcols, child->schema(), fk);
        for (Row& r : scanRows(*child)) {
          if (valuesMatch(r, fk.columns, oldRow, pcols, colls)) children.push_back(std::move(r));
        }
        if (children.empty()) continue;
        if (child.get() == table_.get() && !newRow && action == FkAction::kRestrict) {
          // A self-referencing row deleting itself is fine.
          children.erase(std::remove_if(children.begin(), children.end(),
                                        [&](const Row& r) {
                                          return TableStore(*table_, ctx_.txn()).primaryKey(r) ==
                                                 TableStore(*table_, ctx_.txn()).primaryKey(oldRow);
                                        }),
                         children.end());
          if (children.empty()) continue;
        }
        if (action == FkAction::kRestrict) {
          // A parent whose inbound keys all restrict this operation reports the refused
          // operation; with actions mixed, the violated key reports under its own name.
          if (inboundActionsMixed(parent, newRow != nullptr)) failConstraint("CHECK constraint failed: " + fk.name);
          failConstraint("FOREIGN KEY constraint failed: " + std::string(newRow ? "UPDATE" : "DELETE") + " on '" +
                         parent.name + "' violates RESTRICT from '" + child->schema().name + "'");
        }
        static const BoundTableRules kNoRules;  // cascades write rows as they are
        RowWriter childWriter(ctx_, child, kNoRules, ConflictAction::kNone);
        childWriter.parent_ = this;
        TableStore childStore(*child, ctx_.txn());
        for (const Row& r : children) {
          std::string pk = childStore.primaryKey(r);
          if (!childStore.get(pk)) continue;  // removed by an earlier cascade
          if (action == FkAction::kCascade && !newRow && deleteInProgress(child.get(), pk)) continue;
          if (action == FkAction::kCascade && !newRow) {
            childWriter.deleteRow(pk, r, st);
            continue;
          }
          Row updated = r;
          for (size_t i = 0; i < fk.columns.size(); ++i) {
            int c = fk.columns[i];
            if (action == FkAction::kCascade) updated[c] = (*newRow)[pcols[i]];
            else if (action == FkAction::kSetNull) updated[c] = Value();
            else {
              const ast::Expr* d = child->schema().columns[c].defaultExpr;
              updated[c] = d && d->kind == ast::ExprKind::kLiteral ? d->value : Value();
            }
            if (updated[c].isNull() && child->schema().columns[c].notNull) {
              failConstraint("NOT NULL constraint failed: " + child->schema().name + "." + child->schema().columns[c].name);
            }
          }
          childWriter.updateRow(r, updated, st);
        }
      }
    }
  }
}

void checkDeferredCheck(const TableSchema& table, const CheckConstraint& ck, const Row& row, const Row* oldRow,
                        const Row& mutationContext, ExecState& state) {
  Binder binder(*state.ctx);
  binder.setHomeSchema(table.schemaName);
  Scope scope = contextRuleScope(table);
  BoundExprPtr check = ExprBinder(binder, scope).bind(*ck.expr);
  Row context = rowContext(row, oldRow);
  context.insert(context.end(), mutationContext.begin(), mutationContext.end());
  context.resize(3 * table.columns.size() + table.contextVariables.size());
  EvalContext ctx{&context, nullptr, &state};
  std::optional<bool> ok = truthValue(check->eval(ctx));
  if (ok && !*ok) failConstraint("CHECK constraint failed: " + ck.name + " (" + ck.exprText + ")");
}

void checkForeignKeyParent(Context& ctx, const TableSchema& child, const ForeignKey& fk, const Row& row) {
  std::shared_ptr<Table> parent = ctx.catalog().findTable(fk.parentSchema, fk.parentTable);
  if (!parent) {
    failConstraint("CHECK constraint failed: " + fk.name + " — referenced table '" + fk.parentSchema + "." +
                   fk.parentTable + "' does not exist");
  }
  std::vector<int> pcols = parentColumnsOf(fk, child, parent->schema());
  const TableSchema& ps = parent->schema();
  bool isPk = fk.parentColumns.empty() || (pcols.size() == ps.primaryKey.size() && [&] {
                for (size_t i = 0; i < pcols.size(); ++i) if (ps.primaryKey[i].column != pcols[i]) return false;
                return true;
              }());
  // The key probe is exact only when the comparison collation is the one the parent's key is ordered by.
  std::vector<Collation> colls = fkCollations(ps, pcols, child, fk);
  for (size_t i = 0; i < pcols.size(); ++i) {
    if (colls[i] != ps.columns[pcols[i]].collation) isPk = false;
  }
  if (isPk) {
    Row probe(ps.columns.size());
    bool convertible = true;
    for (size_t i = 0; i < pcols.size(); ++i) {
      try {
        probe[pcols[i]] = convertStrict(row[fk.columns[i]], ps.columns[pcols[i]].type);
      } catch (const Error&) {
        convertible = false;
      }
    }
    if (convertible && parent->rows().contains(encodePrimaryKey(ps, probe))) return;
  } else {
    for (const Row& r : scanRows(*parent)) {
      if (valuesMatch(r, pcols, row, fk.columns, colls)) return;
    }
  }
  failConstraint("CHECK constraint failed: " + fk.name);
}

namespace {

// The column an UPDATE (or a DO UPDATE arm) assigns: one of the table's, and not generated.
int assignedColumn(const TableSchema& t, const std::string& name) {
  int idx = t.findColumn(name);
  if (idx < 0) fail("Column '" + name + "' not found in table '" + t.name + "'");
  if (t.columns[idx].generated) fail("Cannot UPDATE generated column '" + t.columns[idx].name + "'");
  return idx;
}

// A RETURNING list may not name the row image its statement does not have: OLD in an INSERT
// (unless a DO UPDATE arm may replace a stored row), NEW in a DELETE.
void rejectQualifier(const std::vector<ast::ResultColumn>& cols, const char* qualifier, const char* statement) {
  auto named = [&](const std::string& q) { return lowerName(q) == qualifier; };
  for (const auto& rc : cols) {
    const ast::Expr* bad = nullptr;
    if (rc.expr) {
      ast::anyExpr(*rc.expr, [&](const ast::Expr& x) {
        if (x.kind == ast::ExprKind::kColumn && named(x.table)) bad = &x;
        return bad != nullptr;
      }, false);
    }
    if (bad || (rc.kind == ast::ResultColumn::Kind::kTableStar && named(rc.table))) {
      std::string upper = qualifier;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      throw Error(ErrorCode::kError, upper + " qualifier cannot be used in " + statement + " RETURNING clause",
                  bad ? bad->pos.line : 0, bad ? bad->pos.column : 0);
    }
  }
}

std::vector<OutputColumn> bindReturning(Binder& binder, const std::vector<ast::ResultColumn>& cols, const Scope& scope,
                                        const TableSchema& t, std::vector<BoundExprPtr>& out) {
  std::vector<OutputColumn> names;
  for (const auto& rc : cols) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      std::string q = rc.kind == ast::ResultColumn::Kind::kTableStar ? lowerName(rc.table) : "";
      int base = 0;
      if (!q.empty()) {
        if (q == "new") base = static_cast<int>(t.columns.size());
        else if (q == "old") base = 2 * static_cast<int>(t.columns.size());
        else if (q != lowerName(scope.columns.empty() ? "" : scope.columns[0].table)) {
          fail("'" + rc.table + "' not found in FROM clause for qualified RETURNING *");
        }
      }
      for (size_t i = 0; i < t.columns.size(); ++i) {
        out.push_back(makeColumnRef(0, base + static_cast<int>(i), t.columns[i].type));
        names.push_back(OutputColumn{t.columns[i].name, t.columns[i].type});
      }
      continue;
    }
    out.push_back(ExprBinder(binder, scope).bind(*rc.expr));
    OutputColumn oc;
    if (!rc.alias.empty()) oc.name = rc.alias;
    else if (rc.expr->kind == ast::ExprKind::kColumn) {
      std::string q = lowerName(rc.expr->table);
      oc.name = (q == "new" || q == "old") ? rc.expr->table + "." + rc.expr->name : rc.expr->name;
    } else {
      oc.name = printExpr(*rc.expr);
    }
    oc.type = out.back()->type;
    names.push_back(oc);
  }
  std::map<std::string, int> seen;
  for (auto& c : names) {
    int& n = seen[c.name];
    if (n > 0) c.name += ":" + std::to_string(n);
    ++n;
  }
  return names;
}

std::shared_ptr<Table> resolveTarget(Binder& binder, const ast::QualifiedName& name) {
  Catalog& cat = binder.ctx().catalog();
  if (isCommittedName(cat, name)) fail("Cannot modify committed-state table 'committed." + name.name + "'");
  std::string schema = binder.resolveTableSchema(name);
  if (cat.findView(schema, name.name)) fail("not supported yet: writing through view '" + name.name + "'");
  std::shared_ptr<Table> t = cat.findTable(schema, name.name);
  if (!t) throw Error(ErrorCode::kNotFound, "Table '" + name.name + "' not found", name.pos.line, name.pos.column);
  // Only maintenance writes a maintained table; DML naming it goes through its derivation.
  if (t->schema().derivation) fail("cannot write maintained table '" + name.name + "' directly (READONLY)");
  binder.reads().writeTarget(t);  // RETURNING surfaces the target (change scope)
  return t;
}

Row evalRow(const std::vector<BoundExprPtr>& exprs, const Row& context, ExecState& st) {
  EvalContext ctx{&context, nullptr, &st};
  Row out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) out.push_back(e->eval(ctx));
  return out;
}

// ---- INSERT ----------------------------------------------------------------------------------

class InsertPlan final : public DmlPlan {
 public:
  InsertPlan(Binder& binder, const ast::Insert& ins, DefaultTiming timing)
      : ctx_(binder.ctx()), timing_(timing) {
    Binder::WithScope statementWith(binder, ins.with.get());
    if (ins.orAction != ConflictAction::kNone && !ins.upserts.empty()) {
      fail("OR conflict clause and ON CONFLICT cannot be combined");
    }
    table_ = resolveTarget(binder, ins.table);
    const TableSchema& t = table_->schema();
    // Target columns.
    if (ins.columns.empty()) {
      for (size_t i = 0; i < t.columns.size(); ++i) if (!t.columns[i].generated) targets_.push_back(static_cast<int>(i));
    } else {
      for (const std::string& c : ins.columns) {
        int idx = t.findColumn(c);
        if (idx < 0) fail("Column '" + c + "' not found in table '" + t.name + "'");
        if (t.columns[idx].generated) fail("Cannot INSERT into generated column '" + t.columns[idx].name + "'");
        if (std::find(targets_.begin(), targets_.end(), idx) != targets_.end()) {
          fail("Column '" + c + "' specified more than once");
        }
        targets_.push_back(idx);
      }
    }
    checkEvaluatedDefaults(t);
    if (!ins.defaultValues) {
      QueryPlan src = ins.sourceDml ? binder.bindDmlRelation(*ins.sourceDml, ins.sourceDml->pos)
                                    : binder.bindQuery(*ins.source, nullptr);
      if (src.columns.size() != targets_.size()) {
        fail("Column count mismatch: table " + t.name + " has " + std::to_string(targets_.size()) + " columns but " +
             std::to_string(src.columns.size()) + " values were supplied");
      }
      source_ = std::move(src.root);
      cells_.assign(t.columns.size(), CellSource::kDefault);
      for (size_t i = 0; i < targets_.size(); ++i) {
        cells_[targets_[i]] = assignedCell(src.columns[i].type, t.columns[targets_[i]].type);
      }
    } else {
      cells_.assign(t.columns.size(), CellSource::kDefault);
    }
    std::vector<bool> evaluated = evaluatedDefaults(t, cells_, ins.orAction);
    rules_ = bindRules(binder, t, &evaluated);
    context_ = MutationContext(binder, t, ins.context);
    requireInsertContext(t, ins);
    orAction_ = ins.orAction;
    Scope scope = rowScope(t, ins.alias);
    if (ins.hasReturning) {
      hasReturning_ = true;
      bool mayUpdate = std::any_of(ins.upserts.begin(), ins.upserts.end(), [](const ast::Upsert& u) { return !u.doNothing; });
      if (!mayUpdate) rejectQualifier(ins.returning, "old", "INSERT");
      returning_ = bindReturning(binder, ins.returning, scope, t, returningExprs_);
    }
    // Upserts: the DO UPDATE scope is existing row ‖ proposed (excluded.*, new.*).
    for (const ast::Upsert& u : ins.upserts) {
      BoundUpsert bu;
      bu.doNothing = u.doNothing;
      for (const auto& c : u.target) {
        int idx = t.findColumn(c.name);
        if (idx < 0) fail("Column '" + c.name + "' not found in table '" + t.name + "'");
        bu.target.push_back(idx);
      }
      Scope us = layeredRowScope(t, ins.alias, {"excluded", "new"});
      for (const ast::Assignment& a : u.set) {
        int idx = assignedColumn(t, a.column);
        bu.set.emplace_back(idx, ExprBinder(binder, us).bind(*a.value));
      }
      if (u.where) bu.where = ExprBinder(binder, us).bind(*u.where);
      bu.cells = updatedCells(t, bu.set);
      upserts_.push_back(std::move(bu));
    }
  }

  std::vector<Row> execute(ExecState& st) override {
    const TableSchema& t = table_->schema();
    FollowedWrites followed(ctx_, *table_);
    RowWriter writer(ctx_, table_, rules_, orAction_);
    writer.setContext(context_.evaluate(st));
    std::vector<Row> input;
    if (source_) input = drain(*source_, st, nullptr);
    else input.emplace_back();
    std::vector<Row> out;
    // Row i (0-based) with its defaults and generated columns; nullopt when OR IGNORE skips it.
    auto prepare = [&](size_t i) -> std::optional<Row> {
      st.fn.mutationOrdinal = static_cast<int64_t>(i) + 1;
      Row row(t.columns.size());
      for (size_t c = 0; c < targets_.size() && c < input[i].size(); ++c) row[targets_[c]] = input[i][c];
      if (!writer.prepareRow(row, cells_, st, nullptr)) return std::nullopt;
      return row;
    };
    std::vector<std::optional<Row>> frozen;
    if (timing_ == DefaultTiming::kBeforeAnyWrite) {
      for (size_t i = 0; i < input.size(); ++i) frozen.push_back(prepare(i));
    }
    {
      for (size_t i = 0; i < input.size(); ++i) {
        std::optional<Row> prepared = timing_ == DefaultTiming::kBeforeAnyWrite ? std::move(frozen[i]) : prepare(i);
        if (!prepared) continue;
        st.fn.mutationOrdinal = static_cast<int64_t>(i) + 1;
        Row& row = *prepared;
        if (!writer.checkRow(row, nullptr, true, false, st)) continue;
        std::optional<Upserted> upserted;
        RowWriter::ConflictHandler upsert = [&](const Row& existing, const std::vector<KeyColumn>& key,
                                                const std::string& violation) {
          return handleUpsert(writer, existing, key, violation, row, st, upserted);
        };
        bool proceed = writer.resolveConflicts(row, nullptr, st, upserts_.empty() ? nullptr : upsert);
        if (upserted) {
          if (hasReturning_) out.push_back(evalRow(returningExprs_, rowContext(upserted->after, &upserted->before), st));
          continue;
        }
        if (!proceed) continue;
        writer.insertRow(row);
        if (hasReturning_) out.push_back(evalRow(returningExprs_, rowContext(row, nullptr), st));
      }
    }
    return out;
  }

 private:
  struct BoundUpsert {
    std::vector<int> target;
    bool doNothing = true;
    std::vector<std::pair<int, BoundExprPtr>> set;
    std::vector<CellSource> cells;  // per column of the DO UPDATE row (updatedCells)
    BoundExprPtr where;
  };

  // A conflict under ON CONFLICT: the first clause whose target matches the violated
  // constraint `key` (or has no target) decides. Returns false (row not inserted as new).
  // A row a DO UPDATE arm rewrote: RETURNING reads `old.*` from before and `new.*` from after.
  struct Upserted {
    Row before, after;
  };
  bool handleUpsert(RowWriter& writer, const Row& existing, const std::vector<KeyColumn>& key,
                    const std::string& violation, const Row& proposed, ExecState& st, std::optional<Upserted>& upserted) {
    for (BoundUpsert& u : upserts_) {
      if (!u.target.empty() && !targetMatches(u.target, key)) continue;
      if (u.doNothing) return false;
      Row context = existing;
      context.insert(context.end(), proposed.begin(), proposed.end());
      context.insert(context.end(), proposed.begin(), proposed.end());
      EvalContext ctx{&context, nullptr, &st};
      if (u.where && !isTrue(u.where->eval(ctx))) return false;
      Row updated = existing;
      for (auto& [col, expr] : u.set) updated[col] = expr->eval(ctx);
      if (!writer.prepareRow(updated, u.cells, st, &existing)) return false;
      if (!writer.checkRow(updated, &existing, false, false, st)) return false;
      std::string oldPk = TableStore(writer.table(), ctx_.txn()).primaryKey(existing);
      if (!writer.resolveConflicts(updated, &oldPk, st)) return false;
      upserted = Upserted{existing, updated};
      writer.updateRow(existing, updated, st);
      return false;
    }
    // No clause matched this conflict: it is an ordinary constraint violation.
    writer.raise(ConflictAction::kAbort, violation);
  }

  // Every DEFAULT the INSERT evaluates and every CHECK it runs (the UPDATE-scoped ones too
  // when a DO UPDATE arm may run) reads only context variables the statement supplies.
  void requireInsertContext(const TableSchema& t, const ast::Insert& ins) const {
    std::vector<bool> supplied(t.columns.size(), false);
    for (int c : targets_) supplied[c] = true;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      if (!supplied[i] && t.columns[i].defaultExpr) context_.requireSupplied(*t.columns[i].defaultExpr);
    }
    bool doUpdate = std::any_of(ins.upserts.begin(), ins.upserts.end(), [](const ast::Upsert& u) { return !u.doNothing; });
    for (const CheckConstraint& ck : t.checks) {
      if (ck.onInsert || (doUpdate && ck.onUpdate)) context_.requireSupplied(*ck.expr);
    }
  }

  // A DEFAULT the INSERT evaluates may read only siblings the INSERT supplies (`new.<col>`):
  // another column's default or a generated value would make the result depend on an order
  // of evaluation. And it is checked for determinism against the pragma as it is now (a table
  // created under `nondeterministic_schema` keeps its DEFAULT, but strict mode refuses to run it).
  void checkEvaluatedDefaults(const TableSchema& t) const {
    std::vector<bool> supplied(t.columns.size(), false);
    for (int c : targets_) supplied[c] = true;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const ast::Expr* d = t.columns[i].defaultExpr;
      if (supplied[i] || !d) continue;
      requireDeterministic(*d, ctx_, "DEFAULT");
      const ast::Expr* missing = nullptr;
      ast::anyExpr(*d, [&](const ast::Expr& x) {
        if (x.kind != ast::ExprKind::kColumn || lowerName(x.table) != "new") return false;
        int c = t.findColumn(x.name);
        if (c >= 0 && !supplied[c]) missing = &x;
        return missing != nullptr;
      }, true);
      if (missing) {
        throw Error(ErrorCode::kError,
                    "new." + missing->name + " isn't a column this INSERT supplies (read by the DEFAULT of '" +
                        t.columns[i].name + "')",
                    missing->pos.line, missing->pos.column);
      }
    }
  }

  // A conflict target names the violated constraint when every target column is one of its
  // key columns, in any order (a partial target matches any UNIQUE involving its columns).
  static bool targetMatches(const std::vector<int>& target, const std::vector<KeyColumn>& key) {
    return std::all_of(target.begin(), target.end(), [&](int c) {
      return std::any_of(key.begin(), key.end(), [c](const KeyColumn& k) { return k.column == c; });
    });
  }

  Context& ctx_;
  DefaultTiming timing_;
  std::shared_ptr<Table> table_;
  std::vector<int> targets_;
  std::vector<CellSource> cells_;  // per column of the inserted row
  OperatorPtr source_;
  BoundTableRules rules_;
  MutationContext context_;
  ConflictAction orAction_ = ConflictAction::kNone;
  std::vector<BoundExprPtr> returningExprs_;
  std::vector<BoundUpsert> upserts_;
};

// ---- UPDATE / DELETE -------------------------------------------------------------------------

// The rows a WHERE clause selects from the target table, materialized before any write (so a
// statement never sees its own writes).
class TargetScan {
 public:
  TargetScan(Binder& binder, const std::shared_ptr<Table>& table, const std::string& alias, const ast::Expr* where) {
    const TableSchema& t = table->schema();
    std::string q = alias.empty() ? t.name : alias;
    scope_ = rowScope(t, q);
    // Scan + filter over the plain table row; the filter sees new == old == the row.
    OperatorPtr scan = planTableAccess(binder, table, q, where, nullptr, nullptr);
    if (where) {
      Scope plain = layeredRowScope(t, q, {});
      scan = std::make_unique<FilterOp>(std::move(scan), ExprBinder(binder, plain).bind(*where));
    }
    op_ = std::move(scan);
  }
  std::vector<Row> rows(ExecState& st) { return drain(*op_, st, nullptr); }
  const Scope& scope() const { return scope_; }

 private:
  Scope scope_;
  OperatorPtr op_;
};

class UpdatePlan final : public DmlPlan {
 public:
  UpdatePlan(Binder& binder, const ast::Update& up) : ctx_(binder.ctx()) {
    Binder::WithScope statementWith(binder, up.with.get());
    if (up.orAction != ConflictAction::kNone) fail("UPDATE OR … is not supported");
    if (up.targetSelect) fail("not supported yet: UPDATE of a subquery");
    table_ = resolveTarget(binder, up.table);
    const TableSchema& t = table_->schema();
    scan_ = std::make_unique<TargetScan>(binder, table_, up.alias, up.where.get());
    std::vector<bool> assigned(t.columns.size(), false);
    for (const ast::Assignment& a : up.set) {
      int idx = assignedColumn(t, a.column);
      if (assigned[idx]) fail("duplicate assignment to column " + t.columns[idx].name);
      assigned[idx] = true;
      set_.emplace_back(idx, ExprBinder(binder, scan_->scope()).bind(*a.value));
    }
    cells_ = updatedCells(t, set_);
    std::vector<bool> evaluated = evaluatedDefaults(t, cells_, up.orAction);
    rules_ = bindRules(binder, t, &evaluated);
    context_ = MutationContext(binder, t, up.context);
    for (const CheckConstraint& ck : t.checks) {
      if (ck.onUpdate) context_.requireSupplied(*ck.expr);
    }
    if (up.hasReturning) {
      hasReturning_ = true;
      returning_ = bindReturning(binder, up.returning, scan_->scope(), t, returningExprs_);
    }
  }

  std::vector<Row> execute(ExecState& st) override {
    FollowedWrites followed(ctx_, *table_);
    std::vector<Row> targets = scan_->rows(st);
    RowWriter writer(ctx_, table_, rules_, ConflictAction::kNone);
    writer.setContext(context_.evaluate(st));
    std::vector<Row> out;
    int64_t ordinal = 0;
    for (const Row& old : targets) {
      st.fn.mutationOrdinal = ++ordinal;
      Row context = rowContext(old, &old);
      EvalContext ctx{&context, nullptr, &st};
      Row updated = old;
      for (auto& [col, expr] : set_) updated[col] = expr->eval(ctx);
      if (!writer.prepareRow(updated, cells_, st, &old)) continue;
      if (!writer.checkRow(updated, &old, false, false, st)) continue;
      std::string oldPk = TableStore(*table_, ctx_.txn()).primaryKey(old);
      if (!writer.resolveConflicts(updated, &oldPk, st)) continue;
      writer.updateRow(old, updated, st);
      if (hasReturning_) out.push_back(evalRow(returningExprs_, rowContext(updated, &old), st));
    }
    return out;
  }

 private:
  Context& ctx_;
  std::shared_ptr<Table> table_;
  std::unique_ptr<TargetScan> scan_;
  std::vector<std::pair<int, BoundExprPtr>> set_;
  std::vector<CellSource> cells_;  // per column of the updated row (updatedCells)
  BoundTableRules rules_;
  MutationContext context_;
  std::vector<BoundExprPtr> returningExprs_;
};

class DeletePlan final : public DmlPlan {
 public:
  DeletePlan(Binder& binder, const ast::Delete& del) : ctx_(binder.ctx()) {
    Binder::WithScope statementWith(binder, del.with.get());
    if (del.orAction != ConflictAction::kNone) fail("DELETE OR … is not supported");
    if (del.targetSelect) fail("not supported yet: DELETE from a subquery");
    table_ = resolveTarget(binder, del.table);
    scan_ = std::make_unique<TargetScan>(binder, table_, del.alias, del.where.get());
    rules_ = bindRules(binder, table_->schema());
    context_ = MutationContext(binder, table_->schema(), del.context);
    for (const CheckConstraint& ck : table_->schema().checks) {
      if (ck.onDelete) context_.requireSupplied(*ck.expr);
    }
    if (del.hasReturning) {
      hasReturning_ = true;
      rejectQualifier(del.returning, "new", "DELETE");
      returning_ = bindReturning(binder, del.returning, scan_->scope(), table_->schema(), returningExprs_);
    }
  }

  std::vector<Row> execute(ExecState& st) override {
    FollowedWrites followed(ctx_, *table_);
    std::vector<Row> targets = scan_->rows(st);
    RowWriter writer(ctx_, table_, rules_, ConflictAction::kNone);
    writer.setContext(context_.evaluate(st));
    TableStore store(*table_, ctx_.txn());
    std::vector<Row> out;
    for (const Row& old : targets) {
      std::string pk = store.primaryKey(old);
      if (!store.get(pk)) continue;  // already removed by a cascade
      if (!writer.checkRow(old, &old, false, true, st)) continue;
      writer.deleteRow(pk, old, st);
      if (hasReturning_) out.push_back(evalRow(returningExprs_, rowContext(old, &old), st));
    }
    return out;
  }

 private:
  Context& ctx_;
  std::shared_ptr<Table> table_;
  std::unique_ptr<TargetScan> scan_;
  BoundTableRules rules_;
  MutationContext context_;
  std::vector<BoundExprPtr> returningExprs_;
};

}  // namespace

std::unique_ptr<DmlPlan> bindInsert(Binder& binder, const ast::Insert& insert, DefaultTiming timing) {
  validateStatementTags(insert.tags);
  Binder::SchemaPathScope statementPath(binder, insert.withSchema);
  if (auto throughView = bindViewInsert(binder, insert)) return throughView;
  return std::make_unique<InsertPlan>(binder, insert, timing);
}
std::unique_ptr<DmlPlan> bindUpdate(Binder& binder, const ast::Update& update) {
  validateStatementTags(update.tags);
  Binder::SchemaPathScope statementPath(binder, update.withSchema);
  if (auto throughView = bindViewUpdate(binder, update)) return throughView;
  return std::make_unique<UpdatePlan>(binder, update);
}
std::unique_ptr<DmlPlan> bindDelete(Binder& binder, const ast::Delete& del) {
  validateStatementTags(del.tags);
  Binder::SchemaPathScope statementPath(binder, del.withSchema);
  if (auto throughView = bindViewDelete(binder, del)) return throughView;
  return std::make_unique<DeletePlan>(binder, del);
}

}  // namespace optic
