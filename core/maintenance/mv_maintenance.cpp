// Row-time materialized-view maintenance (mv_maintenance.h).
#include "core/maintenance/mv_maintenance.h"

#include <algorithm>

#include "core/catalog/materialized_view.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/execution/dml.h"
#include "core/execution/expression.h"
#include "core/execution/operator.h"
#include "core/maintenance/aggregate_delta.h"
#include "core/maintenance/derived_row_contract.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"
#include "core/planner/expr_binder.h"
#include "core/planner/mv_plan.h"
#include "core/storage/row_codec.h"

namespace optic {

struct MaterializedViewMaintainer::Compiled {
  uint64_t version = 0;
  std::shared_ptr<const TableSchema> schema;
  std::string staleError;  // non-empty: the derivation no longer binds
  bool compatible = false; // the body's shape is the backing's
  MvAnalysis analysis;
  DerivedRowContract contract;  // a declared schema's conversions and NOT NULLs (empty otherwise)
  const DerivedRowContract* rowContract() const { return contract.empty() ? nullptr : &contract; }
  std::shared_ptr<Table> keyedSource;
  // rowProjection: the body's output expressions and WHERE over one source row.
  std::vector<ast::ExprPtr> starColumns;  // `*` expanded to column references
  std::vector<BoundExprPtr> project;
  BoundExprPtr where;
  QueryPlan full;
  ast::SelectPtr residualAst;
  QueryPlan residual;
  std::unique_ptr<AggregateDelta> delta;  // the aggregate-delta state, built on first use
  // The backing holds exactly the body's rows: it was rebuilt, or every change since reached it.
  bool backingExact = false;
  // A row projection whose backing key bytes are its source's: a source row and its derived row
  // sit under one key (follower()).
  bool keyedAlike = false;
  // analysis.sources and keyedSource as indexes into the maintainer's sources_.
  uint64_t indexedAt = ~uint64_t{0};  // the sources_ version they were taken at
  std::vector<size_t> sourceIndex;
  size_t keyedIndex = std::string::npos;
};

namespace {

std::string qualifiedName(const TableSchema& t) { return t.schemaName + "." + t.name; }

// `qualified` ("schema.table", lower-case) names schema.table, compared without building it.
bool namesTable(std::string_view qualified, std::string_view schema, std::string_view table) {
  if (qualified.size() != schema.size() + 1 + table.size() || qualified[schema.size()] != '.') return false;
  return sameName(qualified.substr(0, schema.size()), schema) && sameName(qualified.substr(schema.size() + 1), table);
}

// Writes of derived rows: the backing's declared CHECK, UNIQUE and child-side FOREIGN KEY
// constraints are validated against them, with the failure attributed to the maintained table
// (the failing statement targeted another one).
class BackingWriter {
 public:
  // `contract`: the declared schema's row contract, applied to every row written (null: none).
  BackingWriter(Context& ctx, Table& table, const DerivedRowContract* contract = nullptr)
      : ctx_(ctx), table_(table), store_(table, ctx.txn()), contract_(contract),
        referenced_(ctx.settings().foreignKeys && isForeignKeyParent(ctx, table.schema())) {}

  std::string key(const Row& row) const { return store_.primaryKey(row); }
  void key(const Row& row, std::string& out) const { store_.primaryKey(row, out); }  // appends
  std::optional<Row> get(const std::string& pk) const { return store_.get(pk); }

  // Brings the row at `pk` to `next` (absent: no row) with one lookup of the backing; a
  // value-identical row is not logged.
  void set(const std::string& pk, std::optional<Row> next) {
    if (next && contract_) contract_->apply(*next);
    if (next) validate(*next, &pk);
    if (!referenced_) {
      store_.setRow(pk, std::move(next));
      return;
    }
    std::optional<Row> current = store_.get(pk);
    std::optional<Row> written = next;
    store_.setRow(pk, std::move(next));
    if (current) parentSide(*current, written ? &*written : nullptr);
  }

  // Brings the row at `pk` from `current` to `next` (either may be absent); identical: no write.
  void apply(const std::string& pk, const std::optional<Row>& current, const std::optional<Row>& next) {
    if (current && next) {
      if (encodeRow(*current) == encodeRow(*next)) return;
      validate(*next, &pk);
      store_.replace(*current, pk, *next, pk);  // both rows are at `pk`
      parentSide(*current, &*next);
    } else if (current) {
      store_.erase(pk, *current);
      parentSide(*current, nullptr);
    } else if (next) {
      validate(*next, nullptr);
      store_.insert(*next);
    }
  }

 private:
  // A derived row another table's foreign key references was deleted or rewritten: that key's
  // RESTRICT fails the writing statement, its CASCADE / SET NULL / SET DEFAULT follow, as for a
  // DELETE / UPDATE of the table (mv-constraints.md, parent-side referential enforcement).
  void parentSide(const Row& oldRow, const Row* newRow) {
    if (!referenced_) return;
    std::shared_ptr<Table> self = ctx_.catalog().findTable(table_.schema().schemaName, table_.schema().name);
    if (self) applyInboundForeignKeyActions(ctx_, self, oldRow, newRow);
  }

  void validate(const Row& row, const std::string* exceptPk) {
    checkDeclaredChecks(row);
    checkUnique(row, exceptPk);
    deferForeignKeys(row);
  }

  // Whether maintenance inserts or updates a row is an artifact of key movement, so every CHECK
  // an insert or an update would run applies, evaluated insert-shaped (no old row). A delete
  // writes no row image.
  void checkDeclaredChecks(const Row& row) {
    const TableSchema& ts = table_.schema();
    if (ts.checks.empty()) return;
    if (checks_.empty()) {
      Binder binder(ctx_);
      for (const CheckConstraint& ck : ts.checks) checks_.push_back(bindCheck(binder, ts, ck));
    }
    Row context = rowContext(row, nullptr);
    context.resize(3 * ts.columns.size() + ts.contextVariables.size());
    std::vector<Value> none;
    ExecState st = engineExecState(ctx_, &none);
    EvalContext ectx{&context, nullptr, &st};
    for (size_t i = 0; i < ts.checks.size(); ++i) {
      const CheckConstraint& ck = ts.checks[i];
      if (!ck.onInsert && !ck.onUpdate) continue;
      if (truthValue(checks_[i]->eval(ectx)) != false) continue;  // NULL passes, as in SQL
      throw Error(ErrorCode::kConstraint, "CHECK constraint failed: " + ck.name + " (" + ck.exprText +
                                              ") — row derived into maintained table '" + qualifiedName(ts) +
                                              "' violates its declared constraint");
    }
  }

  // Child-side foreign keys are checked at COMMIT against the final state, as any written row's
  // are (MATCH SIMPLE: a NULL key column exempts the row).
  void deferForeignKeys(const Row& row) {
    const TableSchema& ts = table_.schema();
    if (ts.foreignKeys.empty() || !ctx_.settings().foreignKeys) return;
    for (const ForeignKey& fk : ts.foreignKeys) {
      bool anyNull = std::any_of(fk.columns.begin(), fk.columns.end(), [&](int c) { return row[c].isNull(); });
      if (!anyNull) ctx_.txn().recordDeferred(DeferredCheck{ts.schemaName, ts.name, fk.name, row});
    }
  }

  void checkUnique(const Row& row, const std::string* exceptPk) {
    const TableSchema& ts = table_.schema();
    for (size_t i = 0; i < ts.indexes.size(); ++i) {
      const IndexSchema& ix = ts.indexes[i];
      if (!ix.unique) continue;
      if (ix.where && !inScope(ix, row)) continue;
      bool hasNull = std::any_of(ix.columns.begin(), ix.columns.end(), [&](const KeyColumn& k) { return row[k.column].isNull(); });
      if (hasNull) continue;
      if (store_.findIndexConflict(i, TableStore::indexKey(ts, ix, row), exceptPk)) throw uniqueViolation(ix, row);
    }
  }

  // The reference's wording: "UNIQUE constraint failed: <name> (<cols>) — row derived into
  // maintained table '<schema>.<table>' collides on its declared UNIQUE constraint (key: <values>)",
  // a text value quoted, a blob elided.
  Error uniqueViolation(const IndexSchema& ix, const Row& row) const {
    const TableSchema& ts = table_.schema();
    std::string cols, key;
    for (const KeyColumn& k : ix.columns) {
      const Value& v = row[k.column];
      cols += (cols.empty() ? "" : ", ") + ts.columns[k.column].name;
      key += key.empty() ? "" : ", ";
      if (v.isText()) key += "'" + v.asText() + "'";
      else if (v.kind() == ValueKind::kBlob) key += "x'…'";
      else key += v.isNull() ? "null" : toText(v);
    }
    std::string name = ix.constraintName.empty() ? ix.name : ix.constraintName;
    return Error(ErrorCode::kConstraint, "UNIQUE constraint failed: " + name + " (" + cols +
                                             ") — row derived into maintained table '" + qualifiedName(ts) +
                                             "' collides on its declared UNIQUE constraint (key: " + key + ")");
  }

  // A partial UNIQUE constrains only the rows its predicate selects.
  bool inScope(const IndexSchema& ix, const Row& row) {
    Scope scope;
    for (const ColumnSchema& c : table_.schema().columns) {
      ScopeColumn sc;
      sc.table = table_.schema().name;
      sc.name = c.name;
      sc.type = c.type;
      sc.collation = c.collation;
      scope.columns.push_back(sc);
    }
    Binder binder(ctx_);
    BoundExprPtr pred = ExprBinder(binder, scope).bind(*ix.where);
    std::vector<Value> none;
    ExecState st = engineExecState(ctx_, &none);
    EvalContext ctx{&row, nullptr, &st};
    return truthValue(pred->eval(ctx)) == true;
  }

  Context& ctx_;
  Table& table_;
  TableStore store_;
  const DerivedRowContract* contract_;
  bool referenced_;                   // another table's foreign key names this one
  std::vector<BoundExprPtr> checks_;  // per declared CHECK, bound on first use
};

// True when the backing's key encodes exactly as the source's: key column for key column, the
// backing's is a projected source key column with its type, collation and direction.
bool keyedAlike(const TableSchema& backing, const TableSchema& source, const MvAnalysis& a) {
  if (backing.primaryKey.size() != source.primaryKey.size() || a.key.size() != a.keySourceColumns.size()) return false;
  for (size_t i = 0; i < backing.primaryKey.size(); ++i) {
    const KeyColumn& b = backing.primaryKey[i];
    const KeyColumn& s = source.primaryKey[i];
    auto k = std::find(a.key.begin(), a.key.end(), b.column);
    if (k == a.key.end() || a.keySourceColumns[k - a.key.begin()] != s.column) return false;
    if (b.collation != s.collation || b.desc != s.desc) return false;
    if (backing.columns[b.column].type != source.columns[s.column].type) return false;
  }
  return true;
}

// True when the rows hold the same integers / texts / NULLs in `columns`, so their keys encode
// alike (other kinds are not compared: the caller encodes).
bool sameKeyValues(const Row& a, const Row& b, const std::vector<int>& columns) {
  for (int col : columns) {
    const Value& x = a[col];
    const Value& y = b[col];
    if (x.kind() != y.kind()) return false;
    switch (x.kind()) {
      case ValueKind::kNull: break;
      case ValueKind::kInteger: if (x.asInt() != y.asInt()) return false; break;
      case ValueKind::kText: if (x.asText() != y.asText()) return false; break;
      default: return false;
    }
  }
  return true;
}

}  // namespace

// The per-row inverse projection: output expressions and WHERE bound over the source's row.
void MaterializedViewMaintainer::bindProjection(Compiled& c, const ast::Select& body, const TableSchema& src) {
  Scope scope;
  for (const ColumnSchema& col : src.columns) {
    ScopeColumn sc;
    sc.table = c.analysis.keyedQualifier;
    sc.name = col.name;
    sc.type = col.type;
    sc.collation = col.collation;
    sc.collationRank = col.collationDeclared ? 2 : 0;
    scope.columns.push_back(sc);
  }
  Binder binder(ctx_);
  binder.setHomeSchema(src.schemaName);
  for (const ast::ResultColumn& rc : body.columns) {
    if (rc.kind == ast::ResultColumn::Kind::kExpr) {
      c.project.push_back(ExprBinder(binder, scope).bind(*rc.expr));
      continue;
    }
    for (const ColumnSchema& col : src.columns) {
      auto ref = std::make_unique<ast::Expr>();
      ref->kind = ast::ExprKind::kColumn;
      ref->name = col.name;
      c.project.push_back(ExprBinder(binder, scope).bind(*ref));
      c.starColumns.push_back(std::move(ref));
    }
  }
  if (body.where) c.where = ExprBinder(binder, scope).bind(*body.where);
  if (c.project.size() != c.analysis.columns.size()) c.analysis.rowProjection = false;
}

MaterializedViewMaintainer::MaterializedViewMaintainer(Context& ctx) : ctx_(ctx) {}
MaterializedViewMaintainer::~MaterializedViewMaintainer() = default;

void MaterializedViewMaintainer::beginStatement() { cursor_ = ctx_.txn().changes().size(); }

MaterializedViewMaintainer::Compiled& MaterializedViewMaintainer::compiled(const std::shared_ptr<Table>& table) {
  std::unique_ptr<Compiled>& slot = cache_[table.get()];
  uint64_t version = ctx_.catalog().version();
  if (slot && slot->version == version && slot->schema == table->schemaPtr()) return *slot;
  // The same derivation, maintained while the old plans stood: no change slipped past the backing
  // or the delta state, so both carry over (the delta checks its source's shape on use).
  bool carry = slot && slot->staleError.empty() && slot->compatible &&
               slot->schema->derivation == table->schema().derivation;
  std::unique_ptr<Compiled> previous = std::move(slot);
  slot = std::make_unique<Compiled>();
  Compiled& c = *slot;
  if (carry) {
    c.backingExact = previous->backingExact;
    c.delta = std::move(previous->delta);
  }
  c.version = version;
  c.schema = table->schemaPtr();
  const TableSchema& ts = table->schema();
  const MaterializedView& d = *ts.derivation;
  try {
    std::vector<std::string> names;
    for (const ColumnSchema& col : ts.columns) names.push_back(col.name);
    // A declared primary key the analysis no longer proves still keys the backing (re-plan).
    const std::vector<int>* declaredKey =
        d.schemaDeclared && !d.declaredKeys.empty() && d.declaredKeys.front().primary ? &d.declaredKeys.front().columns
                                                                                     : nullptr;
    c.analysis = analyseMaterializedBody(ctx_, *d.body, ts.schemaName, ts.name,
                                         d.columnNames.empty() ? std::vector<std::string>{} : d.columnNames, declaredKey);
    Binder binder(ctx_);
    binder.setHomeSchema(ts.schemaName);
    c.full = binder.bindQuery(*d.body, nullptr);
  } catch (const Error& e) {
    c.staleError = e.what();
    return c;
  }
  // A source change the body observes (a projected column's type) freezes the snapshot until
  // a refresh reshapes it.
  c.compatible = c.analysis.columns.size() == ts.columns.size() &&
                 (d.sourceSignature.empty() || d.sourceSignature == c.analysis.sourceSignature);
  for (size_t i = 0; c.compatible && !d.schemaDeclared && i < ts.columns.size(); ++i) {
    LogicalType t = c.analysis.columns[i].type;
    c.compatible = t == LogicalType::kAny || ts.columns[i].type == LogicalType::kAny || t == ts.columns[i].type;
  }
  if (d.schemaDeclared) {
    c.compatible = c.compatible && DerivedRowContract::compatible(ts, c.analysis);
    c.contract = DerivedRowContract(ts, c.analysis);
    // The aggregate delta keeps its state in the derived types: converted outputs recompute.
    if (c.contract.converts()) c.analysis.aggregateDelta = false;
  }
  if (c.compatible && !c.analysis.keyedSource.empty()) {
    // The keyed strategy diffs per logical key: the backing's key must be exactly it.
    bool sameKey = c.analysis.physicalKey.size() == ts.primaryKey.size();
    for (size_t i = 0; sameKey && i < ts.primaryKey.size(); ++i) {
      sameKey = ts.primaryKey[i].column == c.analysis.physicalKey[i].column;
    }
    size_t dot = c.analysis.keyedSource.find('.');
    std::shared_ptr<Table> src = ctx_.catalog().findTable(c.analysis.keyedSource.substr(0, dot),
                                                             c.analysis.keyedSource.substr(dot + 1));
    c.keyedSource = src;
    if (sameKey && src && c.analysis.rowProjection) bindProjection(c, *d.body, src->schema());
    c.keyedAlike = sameKey && src && c.analysis.rowProjection && keyedAlike(ts, src->schema(), c.analysis);
    if (sameKey && src) {
      c.residualAst = residualQuery(*d.body, c.analysis, src->schema());
      Binder binder(ctx_);
      binder.setHomeSchema(ts.schemaName);
      c.residual = binder.bindQuery(*c.residualAst, nullptr);
    } else {
      c.analysis.keyedSource.clear();
    }
  }
  return c;
}

const KVStore* MaterializedViewMaintainer::follower(const Table& source) {
  for (const std::shared_ptr<Table>& t : maintainedTables()) {
    Compiled& c = compiled(t);
    if (t->needsRefill()) continue;
    if (c.keyedAlike && c.staleError.empty() && c.compatible && c.keyedSource.get() == &source) return &t->rows();
  }
  return nullptr;
}

void MaterializedViewMaintainer::requireCurrent(const std::shared_ptr<Table>& table) {
  if (!table->schema().derivation) return;
  Compiled& c = compiled(table);
  if (!c.staleError.empty()) {
    fail("materialized view '" + table->schema().name + "' is stale: " + c.staleError +
         " (refresh it, or drop and recreate it)");
  }
}

std::vector<std::shared_ptr<Table>> MaterializedViewMaintainer::refillInputs(const Compiled& c) const {
  std::vector<std::shared_ptr<Table>> out;
  for (const std::string& source : c.analysis.sources) {
    size_t dot = source.find('.');
    if (std::shared_ptr<Table> t = ctx_.catalog().findTable(source.substr(0, dot), source.substr(dot + 1))) out.push_back(t);
  }
  return out;
}

void MaterializedViewMaintainer::refillPending() {
  // Upstream first: a table waits while one of its sources still awaits its own refill.
  for (bool progress = true; progress;) {
    progress = false;
    std::vector<std::shared_ptr<Table>> tables = maintainedTables();  // a copy: rebuilds may re-list
    for (const std::shared_ptr<Table>& t : tables) {
      if (!t->needsRefill() || !t->loaded()) continue;
      Compiled& c = compiled(t);
      if (!c.staleError.empty() || !c.compatible) continue;
      bool ready = true;
      for (const std::shared_ptr<Table>& source : refillInputs(c)) ready = ready && source->loaded() && !source->needsRefill();
      if (!ready) continue;
      rebuild(*t, false);
      progress = true;
    }
  }
}

void MaterializedViewMaintainer::rebuild(Table& table, bool strict) {
  std::shared_ptr<Table> shared;
  const TableSchema& ts = table.schema();
  if (Schema* s = ctx_.catalog().findSchema(ts.schemaName)) {
    auto it = s->tables.find(lowerName(ts.name));
    if (it != s->tables.end() && it->second.get() == &table) shared = it->second;
  }
  if (!shared) return;
  Compiled& c = compiled(shared);
  if (!c.staleError.empty()) fail(c.staleError);
  if (table.needsRefill()) {
    table.setNeedsRefill(false);
    ctx_.txn().recordUndo([shared] { shared->setNeedsRefill(true); });
  }
  std::vector<Value> params;
  ExecState st = engineExecState(ctx_, &params);
  std::vector<Row> rows = drain(*c.full.root, st, nullptr);
  BackingWriter w(ctx_, table);
  if (const DerivedRowContract* contract = c.rowContract()) {
    for (Row& r : rows) contract->apply(r);
  }
  std::map<std::string, Row> next;
  for (Row& r : rows) {
    std::string pk = w.key(r);
    auto [it, fresh] = next.emplace(pk, r);
    if (!fresh) {
      if (c.analysis.keyUnproven) {
        throw Error(ErrorCode::kConstraint,
                    "UNIQUE constraint failed: " + ts.name + " — rows derived into materialized view '" +
                        qualifiedName(ts) + "' repeat its declared primary key, which its body no longer proves");
      }
      if (strict) {
        fail("materialized view '" + ts.name + "' cannot be materialized: duplicate rows for primary key " +
             "(its rows must be a set under the backing's key)");
      }
      // A coarsened key merges last-writer-wins: the candidate that is not already stored is
      // the row this statement wrote.
      std::optional<Row> stored = w.get(pk);
      if (!stored || encodeRow(*stored) != encodeRow(r)) it->second = std::move(r);
    }
  }
  std::vector<std::pair<std::string, Row>> current;
  {
    auto it = table.rows().newIterator();
    for (it->seekToFirst(); it->valid(); it->next()) current.emplace_back(std::string(it->key()), decodeRow(it->value()));
  }
  for (auto& [pk, row] : current) {
    auto n = next.find(pk);
    if (n == next.end()) {
      w.apply(pk, row, std::nullopt);
    } else {
      w.apply(pk, row, n->second);
      next.erase(n);
    }
  }
  for (auto& [pk, row] : next) w.apply(pk, std::nullopt, row);
  c.backingExact = true;
  ++fullRebuilds_;
}

const std::vector<std::shared_ptr<Table>>& MaterializedViewMaintainer::maintainedTables() {
  if (maintainedVersion_ != ctx_.catalog().version()) {
    maintained_.clear();
    for (const auto& [sname, schema] : ctx_.catalog().schemas()) {
      for (const auto& [tname, t] : schema.tables) if (t->schema().derivation) maintained_.push_back(t);
    }
    maintainedVersion_ = ctx_.catalog().version();
    sources_.clear();
    for (const std::shared_ptr<Table>& t : maintained_) {
      for (const std::string& s : compiled(t).analysis.sources) {
        if (std::find(sources_.begin(), sources_.end(), s) == sources_.end()) sources_.push_back(s);
      }
    }
  }
  return maintained_;
}


size_t MaterializedViewMaintainer::sourceOf(const RowChange& change) const {
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (namesTable(sources_[i], change.schema, change.table)) return i;
  }
  return std::string::npos;
}

void MaterializedViewMaintainer::indexSources(Compiled& c) const {
  auto indexOf = [&](const std::string& name) {
    auto it = std::find(sources_.begin(), sources_.end(), name);
    return it == sources_.end() ? std::string::npos : static_cast<size_t>(it - sources_.begin());
  };
  c.sourceIndex.clear();
  for (const std::string& s : c.analysis.sources) c.sourceIndex.push_back(indexOf(s));
  c.keyedIndex = c.analysis.keyedSource.empty() ? std::string::npos : indexOf(c.analysis.keyedSource);
  c.indexedAt = maintainedVersion_;
}

void ChangedTables::clear(size_t sources) {
  for (size_t i : touched_) runs_[i].clear();
  touched_.clear();
  if (runs_.size() < sources) runs_.resize(sources);
}

std::vector<size_t>& ChangedTables::runFor(size_t source) {
  std::vector<size_t>& run = runs_[source];
  if (run.empty()) touched_.push_back(source);
  return run;
}

void MaterializedViewMaintainer::maintain() {
  Transaction& txn = ctx_.txn();
  if (cursor_ >= txn.changes().size() || maintainedTables().empty()) {
    cursor_ = txn.changes().size();
    return;
  }
  for (int round = 0; cursor_ < txn.changes().size(); ++round) {
    if (round > 64) fail("materialized view maintenance did not converge (derivation cycle?)");
    size_t from = cursor_, to = txn.changes().size();
    cursor_ = to;
    changed_.clear(sources_.size());
    // Changes of tables no materialized view reads (a backing at the end of its chain, most
    // often) are left out, so a round over them ends here.
    std::vector<size_t>* run = nullptr;  // consecutive changes of one table share a lookup
    const RowChange* previous = nullptr;
    for (size_t i = from; i < to; ++i) {
      const RowChange& ch = txn.changes()[i];
      if (!previous || ch.table != previous->table || ch.schema != previous->schema) {
        size_t source = sourceOf(ch);
        run = source == std::string::npos ? nullptr : &changed_.runFor(source);
      }
      if (run) run->push_back(i);
      previous = &ch;
    }
    if (changed_.empty()) continue;
    const std::vector<std::shared_ptr<Table>>& all = maintainedTables();
    round_.assign(all.begin(), all.end());
    for (const std::shared_ptr<Table>& t : round_) {
      if (t->needsRefill()) continue;  // refilled whole before it is read (refillPending)
      Compiled& c = compiled(t);
      if (!c.staleError.empty() || !c.compatible) continue;
      if (c.indexedAt != maintainedVersion_) indexSources(c);
      maintainOne(t, c, changed_);
    }
    round_.clear();
  }
}

void MaterializedViewMaintainer::maintainOne(const std::shared_ptr<Table>& table, Compiled& c,
                                             const ChangedTables& changed) {
  const MvAnalysis& a = c.analysis;
  bool touched = false, onlyKeyed = true;
  for (size_t s : c.sourceIndex) {
    if (!changed.find(s)) continue;
    touched = true;
    if (s != c.keyedIndex) onlyKeyed = false;
  }
  if (!touched) return;
  if (a.keyedSource.empty() || !onlyKeyed) {
    c.delta.reset();  // its state saw none of these changes
    rebuild(*table, false);
    return;
  }
  if (a.aggregateDelta && c.keyedSource) {
    std::unique_ptr<AggregateDelta>& delta = c.delta;
    const MaterializedView* d = table->schema().derivation.get();
    if (!delta || !delta->matches(d, &c.keyedSource->schema())) {
      delta = std::make_unique<AggregateDelta>(ctx_, a, *d->body, c.keyedSource->schemaPtr(), d, c.backingExact);
    }
    delta->setContract(c.rowContract());
    if (!delta->apply(*table, *changed.find(c.keyedIndex))) rebuild(*table, false);
    return;
  }
  if (a.rowProjection) {
    projectRows(*table, c, *changed.find(c.keyedIndex));
    return;
  }
  // Keyed residual recompute: the distinct keys the changed rows carry, old and new.
  const std::vector<RowChange>& log = ctx_.txn().changes();
  std::map<std::string, std::vector<Value>> keys;
  auto addKey = [&](const Row& row) {
    std::vector<Value> k;
    k.reserve(a.keySourceColumns.size());
    for (int col : a.keySourceColumns) k.push_back(row[col]);
    std::string enc = encodeRow(k);
    keys.emplace(std::move(enc), std::move(k));
  };
  for (size_t i : *changed.find(c.keyedIndex)) {
    if (log[i].oldRow) addKey(*log[i].oldRow);
    if (log[i].newRow) addKey(*log[i].newRow);
  }
  BackingWriter w(ctx_, *table, c.rowContract());
  size_t width = table->schema().columns.size();
  for (auto& [enc, k] : keys) {
    ExecState st = engineExecState(ctx_, &k);
    std::vector<Row> rows = drain(*c.residual.root, st, nullptr);
    Row probe(width);
    for (size_t i = 0; i < a.key.size(); ++i) probe[a.key[i]] = k[i];
    std::string pk = w.key(probe);
    std::optional<Row> next;
    for (Row& r : rows) {
      if (w.key(r) == pk) next = std::move(r);  // a coarsened key merges: last writer wins
    }
    w.set(pk, std::move(next));
  }
}

void MaterializedViewMaintainer::projectRows(Table& table, Compiled& c, const std::vector<size_t>& changes) {
  const MvAnalysis& a = c.analysis;
  BackingWriter w(ctx_, table, c.rowContract());
  std::vector<Value> none;
  ExecState st = engineExecState(ctx_, &none);
  size_t width = table.schema().columns.size();
  // Derive every change's backing keys and row before writing: the backing writes append to the
  // log the changes live in, so references into it do not survive them.
  std::vector<ProjectionStep>& steps = steps_;  // steps[0, n) are this call's; all keep their buffers
  size_t n = changes.size();
  if (steps.size() < n) steps.resize(n);
  const std::vector<RowChange>& log = ctx_.txn().changes();
  Row probe;  // the old row's key columns at their backing positions (deletes and updates only)
  for (size_t i = 0; i < n; ++i) {
    const RowChange& ch = log[changes[i]];
    ProjectionStep& step = steps[i];
    step.hasOld = false;
    step.derived.reset();
    if (ch.newRow) {
      EvalContext ctx{&*ch.newRow, nullptr, &st};
      if (!c.where || truthValue(c.where->eval(ctx)) == true) {
        Row out = ctx_.txn().spareRow();
        out.reserve(width);
        for (const BoundExprPtr& e : c.project) out.push_back(e->eval(ctx));
        step.newPk.clear();
        w.key(out, step.newPk);
        step.derived = std::move(out);
      }
    }
    if (ch.oldRow) {
      step.oldPk.clear();
      if (step.derived && sameKeyValues(*ch.oldRow, *ch.newRow, a.keySourceColumns)) {
        step.oldPk.append(step.newPk);  // the common update keeps its key: one encoding
      } else {
        probe.resize(width);
        for (size_t k = 0; k < a.key.size(); ++k) probe[a.key[k]] = (*ch.oldRow)[a.keySourceColumns[k]];
        w.key(probe, step.oldPk);
      }
      step.hasOld = true;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    ProjectionStep& step = steps[i];
    // The common update keeps its key: one lookup, one write.
    if (step.hasOld && (!step.derived || step.oldPk != step.newPk)) w.set(step.oldPk, std::nullopt);
    if (step.derived) w.set(step.newPk, std::move(step.derived));
  }
  // A bulk statement's scratch is not worth keeping.
  if (steps.capacity() > 256) std::vector<ProjectionStep>().swap(steps);
}

}  // namespace optic
