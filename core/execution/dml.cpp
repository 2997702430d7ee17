// INSERT / UPDATE / DELETE execution (dml.h).
#include "core/execution/dml.h"

#include <algorithm>
#include <set>

#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

using ast::ConflictAction;

ConflictAction effective(ConflictAction statement, ConflictAction constraint) {
  if (statement != ConflictAction::kNone) return statement;
  if (constraint != ConflictAction::kNone) return constraint;
  return ConflictAction::kAbort;
}

}  // namespace

CellSource assignedCell(LogicalType produced, LogicalType column) {
  return produced == LogicalType::kJson && column == LogicalType::kJson ? CellSource::kConverted
                                                                        : CellSource::kSupplied;
}

std::vector<CellSource> updatedCells(const TableSchema& t, const BoundSet& set) {
  std::vector<CellSource> cells(t.columns.size(), CellSource::kConverted);
  for (const auto& [col, expr] : set) cells[col] = assignedCell(expr->type, t.columns[col].type);
  return cells;
}

std::vector<bool> evaluatedDefaults(const TableSchema& t, const std::vector<CellSource>& cells, ConflictAction orAction) {
  std::vector<bool> out(t.columns.size());
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const ColumnSchema& c = t.columns[i];
    bool replaces = c.notNull && effective(orAction, c.notNullConflict) == ConflictAction::kReplace;
    out[i] = cells[i] == CellSource::kDefault || replaces;
  }
  return out;
}

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
  // The rules of the tables this write's foreign-key actions can reach (BoundTarget::cascades).
  void setCascades(const CascadeRules* cascades) { cascades_ = cascades; }

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
    return convertForColumn(std::move(v), c.type, c.name);
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

  // The lens boundary's row-local rules (BoundTableRules::boundary).
  void checkBoundary(const EvalContext& ctx, bool isInsert, bool isDelete) {
    for (const BoundTableRules::BoundaryRule& rule : rules_.boundary) {
      if (!(isDelete ? rule.onDelete : isInsert ? rule.onInsert : rule.onUpdate)) continue;
      if (truthValue(rule.expr->eval(ctx)) == std::optional<bool>(false)) throw Error(ErrorCode::kConstraint, rule.message);
    }
  }

  // CHECK constraints for the operation; false when IGNORE skips the row.
  bool checkRow(const Row& row, const Row* oldRow, bool isInsert, bool isDelete, ExecState& st) {
    const TableSchema& t = schema();
    if (t.checks.empty() && rules_.boundary.empty()) return true;  // most tables: no evaluation row to build
    EvalContext ctx{nullptr, nullptr, &st};
    Row context = isDelete ? ruleRow(*oldRow, oldRow) : ruleRow(row, oldRow);
    ctx.row = &context;
    checkBoundary(ctx, isInsert, isDelete);
    if (rules_.checks.size() != t.checks.size()) return true;  // a writer bound without them
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

  // Resolves PK/UNIQUE conflicts of `row` (which will be stored at its key `pk`, replacing
  // `oldPk` when updating; null for an insert). Returns false when the row is to be skipped
  // (IGNORE).
  // With an upsert handler, a conflict hands the existing row, the key columns of the
  // constraint it violates and the violation message to it instead.
  using ConflictHandler =
      std::function<bool(const Row& existing, const std::vector<KeyColumn>& key, const std::string& violation)>;
  bool resolveConflicts(const Row& row, const std::string& pk, const std::string* oldPk, ExecState& st,
                        const ConflictHandler& onConflict = nullptr) {
    const TableSchema& t = schema();
    TableStore store(*table_, ctx_.txn());
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

  // The row's primary key, as TableStore encodes it.
  std::string primaryKey(const Row& row) const { return encodePrimaryKey(schema(), row); }

  void insertRow(const Row& row, const std::string& pk) {
    TableStore(*table_, ctx_.txn()).insert(row, pk);
    deferChildChecks(row);
  }

  void updateRow(const Row& oldRow, const std::string& oldPk, const Row& newRow, const std::string& newPk,
                 ExecState& st) {
    applyParentActions(oldRow, &newRow, st);
    TableStore(*table_, ctx_.txn()).replace(oldRow, oldPk, newRow, newPk);
    deferChildChecks(newRow);
  }
  void updateRow(const Row& oldRow, const Row& newRow, ExecState& st) {
    updateRow(oldRow, primaryKey(oldRow), newRow, primaryKey(newRow), st);
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

  // The parent-side actions alone, for a row written outside this writer (maintenance).
  void inboundActions(const Row& oldRow, const Row* newRow, ExecState& st) { applyParentActions(oldRow, newRow, st); }

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
  const CascadeRules* cascades_ = nullptr;
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
        static const BoundTableRules kNoRules;  // a child the statement bound nothing for
        auto bound = cascades_ ? cascades_->find(child.get()) : CascadeRules::const_iterator();
        bool hasRules = cascades_ && bound != cascades_->end();
        RowWriter childWriter(ctx_, child, hasRules ? bound->second : kNoRules, ConflictAction::kNone);
        childWriter.parent_ = this;
        childWriter.cascades_ = cascades_;
        TableStore childStore(*child, ctx_.txn());
        for (const Row& r : children) {
          std::string pk = childStore.primaryKey(r);
          if (!childStore.get(pk)) continue;  // removed by an earlier cascade
          if (action == FkAction::kCascade && !newRow && deleteInProgress(child.get(), pk)) continue;
          if (action == FkAction::kCascade && !newRow) {
            if (childWriter.checkRow(r, &r, false, true, st)) childWriter.deleteRow(pk, r, st);
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
          if (childWriter.checkRow(updated, &r, false, false, st)) childWriter.updateRow(r, updated, st);
        }
      }
    }
  }
}

void applyInboundForeignKeyActions(Context& ctx, std::shared_ptr<Table> parent, const Row& oldRow, const Row* newRow) {
  if (!ctx.settings().foreignKeys) return;
  static const BoundTableRules kNoRules;  // the parent's own rules do not run: only its children's actions
  RowWriter writer(ctx, std::move(parent), kNoRules, ConflictAction::kNone);
  std::vector<Value> none;
  ExecState st = engineExecState(ctx, &none);
  writer.inboundActions(oldRow, newRow, st);
}

bool isForeignKeyParent(const Context& ctx, const TableSchema& parent) {
  for (const auto& [sname, s] : ctx.catalog().schemas()) {
    for (const auto& [tname, child] : s.tables) {
      for (const ForeignKey& fk : child->schema().foreignKeys) {
        if (fk.parentSchema == parent.schemaName && lowerName(fk.parentTable) == lowerName(parent.name)) return true;
      }
    }
  }
  return false;
}

void checkDeferredCheck(const TableSchema& table, const CheckConstraint& ck, const BoundExpr& check, const Row& row,
                        const Row* oldRow, const Row& mutationContext, ExecState& state) {
  Row context = rowContext(row, oldRow);
  context.insert(context.end(), mutationContext.begin(), mutationContext.end());
  context.resize(3 * table.columns.size() + table.contextVariables.size());
  EvalContext ctx{&context, nullptr, &state};
  std::optional<bool> ok = truthValue(check.eval(ctx));
  if (ok && !*ok) failConstraint("CHECK constraint failed: " + ck.name + " (" + ck.exprText + ")");
}

void checkForeignKeyParent(Context& ctx, const TableSchema& child, const ForeignKey& fk, const Row& row) {
  std::shared_ptr<Table> parent = ctx.catalog().findTable(fk.parentSchema, fk.parentTable);
  if (!parent) {
    failConstraint("CHECK constraint failed: " + fk.name + " — referenced table '" + fk.parentSchema + "." +
                   fk.parentTable + "' does not exist", fk.name);
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
    if (convertible && parent->rows().contains(TableStore(*parent, ctx.txn()).primaryKey(probe))) return;
  } else {
    for (const Row& r : scanRows(*parent)) {
      if (valuesMatch(r, pcols, row, fk.columns, colls)) return;
    }
  }
  if (child.derivation) {  // only maintenance writes a maintained table's rows: say so (mv-constraints.md)
    failConstraint("FOREIGN KEY constraint failed: " + fk.name + " — row derived into maintained table '" +
                       child.schemaName + "." + child.name + "' references a missing '" + ps.schemaName + "." + ps.name + "'",
                   fk.name);
  }
  failConstraint("CHECK constraint failed: " + fk.name, fk.name);
}


namespace {

Row evalRow(const std::vector<BoundExprPtr>& exprs, const Row& context, ExecState& st) {
  EvalContext ctx{&context, nullptr, &st};
  Row out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) out.push_back(e->eval(ctx));
  return out;
}


// What the three executors share: the context, and the RETURNING columns the plan reports.
class TableWritePlan : public DmlPlan {
 protected:
  TableWritePlan(Context& ctx, const BoundTarget& target) : ctx_(ctx) {
    hasReturning_ = target.hasReturning;
    returning_ = target.returningColumns;
  }
  Context& ctx_;
};

// ---- INSERT ----------------------------------------------------------------------------------

class InsertPlan final : public TableWritePlan {
 public:
  InsertPlan(Context& ctx, BoundInsert bound) : TableWritePlan(ctx, bound.target), bound_(std::move(bound)) {}
  const Operator* readPlan() const override { return bound_.source.get(); }

  std::vector<Row> execute(ExecState& st) override {
    const BoundTarget& target = bound_.target;
    const TableSchema& t = target.table->schema();
    FollowedWrites followed(ctx_, *target.table);
    RowWriter writer(ctx_, target.table, target.rules, bound_.orAction);
    writer.setContext(target.context.evaluate(st));
    writer.setCascades(&target.cascades);
    changes_ = 0;
    std::vector<Row> input;
    if (bound_.source) input = drain(*bound_.source, st, nullptr);
    else input.emplace_back();
    std::vector<Row> out;
    // Row i (0-based) with its defaults and generated columns; nullopt when OR IGNORE skips it.
    // Each input row is prepared once, so its values move into the table row (the whole row
    // when it lists every column in table order).
    bool inTableOrder = bound_.columns.size() == t.columns.size();
    for (size_t c = 0; inTableOrder && c < bound_.columns.size(); ++c) inTableOrder = bound_.columns[c] == static_cast<int>(c);
    auto prepare = [&](size_t i) -> std::optional<Row> {
      st.fn.mutationOrdinal = static_cast<int64_t>(i) + 1;
      Row row;
      if (inTableOrder && input[i].size() == t.columns.size()) {
        row = std::move(input[i]);
      } else {
        row.resize(t.columns.size());
        for (size_t c = 0; c < bound_.columns.size() && c < input[i].size(); ++c) {
          row[bound_.columns[c]] = std::move(input[i][c]);
        }
      }
      if (!writer.prepareRow(row, bound_.cells, st, nullptr)) return std::nullopt;
      return row;
    };
    std::vector<std::optional<Row>> frozen;
    if (bound_.timing == DefaultTiming::kBeforeAnyWrite) {
      for (size_t i = 0; i < input.size(); ++i) frozen.push_back(prepare(i));
    }
    for (size_t i = 0; i < input.size(); ++i) {
      std::optional<Row> prepared =
          bound_.timing == DefaultTiming::kBeforeAnyWrite ? std::move(frozen[i]) : prepare(i);
      if (!prepared) continue;
      st.fn.mutationOrdinal = static_cast<int64_t>(i) + 1;
      Row& row = *prepared;
      if (!writer.checkRow(row, nullptr, true, false, st)) continue;
      std::optional<Upserted> upserted;
      RowWriter::ConflictHandler upsert;  // only with ON CONFLICT: a std::function allocates
      if (!bound_.upserts.empty()) {
        upsert = [&](const Row& existing, const std::vector<KeyColumn>& key, const std::string& violation) {
          return handleUpsert(writer, existing, key, violation, row, st, upserted);
        };
      }
      std::string pk = writer.primaryKey(row);
      bool proceed = writer.resolveConflicts(row, pk, nullptr, st, upsert);
      if (upserted) {
        ++changes_;
        if (hasReturning_) out.push_back(evalRow(target.returning, rowContext(upserted->after, &upserted->before), st));
        continue;
      }
      if (!proceed) continue;
      writer.insertRow(row, pk);
      ++changes_;
      if (hasReturning_) out.push_back(evalRow(target.returning, rowContext(row, nullptr), st));
    }
    return out;
  }

 private:
  // A conflict under ON CONFLICT: the first clause whose target matches the violated
  // constraint `key` (or has no target) decides. Returns false (row not inserted as new).
  // A row a DO UPDATE arm rewrote: RETURNING reads `old.*` from before and `new.*` from after.
  struct Upserted {
    Row before, after;
  };
  bool handleUpsert(RowWriter& writer, const Row& existing, const std::vector<KeyColumn>& key,
                    const std::string& violation, const Row& proposed, ExecState& st, std::optional<Upserted>& upserted) {
    for (BoundUpsert& u : bound_.upserts) {
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
      std::string oldPk = writer.primaryKey(existing);
      std::string newPk = writer.primaryKey(updated);
      if (!writer.resolveConflicts(updated, newPk, &oldPk, st)) return false;
      upserted = Upserted{existing, updated};
      writer.updateRow(existing, oldPk, updated, newPk, st);
      return false;
    }
    // No clause matched this conflict: it is an ordinary constraint violation.
    writer.raise(ConflictAction::kAbort, violation);
  }

  // A conflict target names the violated constraint when every target column is one of its
  // key columns, in any order (a partial target matches any UNIQUE involving its columns).
  static bool targetMatches(const std::vector<int>& target, const std::vector<KeyColumn>& key) {
    return std::all_of(target.begin(), target.end(), [&](int c) {
      return std::any_of(key.begin(), key.end(), [c](const KeyColumn& k) { return k.column == c; });
    });
  }

  BoundInsert bound_;
};

// ---- UPDATE / DELETE -------------------------------------------------------------------------

class UpdatePlan final : public TableWritePlan {
 public:
  UpdatePlan(Context& ctx, BoundUpdate bound) : TableWritePlan(ctx, bound.target), bound_(std::move(bound)) {}
  const Operator* readPlan() const override { return bound_.rows.get(); }

  std::vector<Row> execute(ExecState& st) override {
    const BoundTarget& target = bound_.target;
    FollowedWrites followed(ctx_, *target.table);
    changes_ = 0;
    std::vector<Row> targets = drain(*bound_.rows, st, nullptr);
    RowWriter writer(ctx_, target.table, target.rules, ConflictAction::kNone);
    writer.setContext(target.context.evaluate(st));
    writer.setCascades(&target.cascades);
    std::vector<Row> out;
    int64_t ordinal = 0;
    Row context, updated;  // refilled for each row
    for (const Row& old : targets) {
      st.fn.mutationOrdinal = ++ordinal;
      assignRowContext(context, old, &old);
      EvalContext ctx{&context, nullptr, &st};
      updated.assign(old.begin(), old.end());
      for (auto& [col, expr] : bound_.set) updated[col] = expr->eval(ctx);
      if (!writer.prepareRow(updated, bound_.cells, st, &old)) continue;
      if (!writer.checkRow(updated, &old, false, false, st)) continue;
      std::string oldPk = writer.primaryKey(old);
      std::string newPk = writer.primaryKey(updated);
      if (!writer.resolveConflicts(updated, newPk, &oldPk, st)) continue;
      writer.updateRow(old, oldPk, updated, newPk, st);
      ++changes_;
      if (hasReturning_) out.push_back(evalRow(target.returning, rowContext(updated, &old), st));
    }
    return out;
  }

 private:
  BoundUpdate bound_;
};

class DeletePlan final : public TableWritePlan {
 public:
  DeletePlan(Context& ctx, BoundDelete bound) : TableWritePlan(ctx, bound.target), bound_(std::move(bound)) {}
  const Operator* readPlan() const override { return bound_.rows.get(); }

  std::vector<Row> execute(ExecState& st) override {
    const BoundTarget& target = bound_.target;
    FollowedWrites followed(ctx_, *target.table);
    changes_ = 0;
    std::vector<Row> targets = drain(*bound_.rows, st, nullptr);
    RowWriter writer(ctx_, target.table, target.rules, ConflictAction::kNone);
    writer.setContext(target.context.evaluate(st));
    writer.setCascades(&target.cascades);
    TableStore store(*target.table, ctx_.txn());
    std::vector<Row> out;
    for (const Row& old : targets) {
      std::string pk = store.primaryKey(old);
      if (!store.get(pk)) continue;  // already removed by a cascade
      if (!writer.checkRow(old, &old, false, true, st)) continue;
      writer.deleteRow(pk, old, st);
      ++changes_;
      if (hasReturning_) out.push_back(evalRow(target.returning, rowContext(old, &old), st));
    }
    return out;
  }

 private:
  BoundDelete bound_;
};

}  // namespace

std::unique_ptr<DmlPlan> makeInsertPlan(Context& ctx, BoundInsert bound) {
  return std::make_unique<InsertPlan>(ctx, std::move(bound));
}
std::unique_ptr<DmlPlan> makeUpdatePlan(Context& ctx, BoundUpdate bound) {
  return std::make_unique<UpdatePlan>(ctx, std::move(bound));
}
std::unique_ptr<DmlPlan> makeDeletePlan(Context& ctx, BoundDelete bound) {
  return std::make_unique<DeletePlan>(ctx, std::move(bound));
}

}  // namespace optic
