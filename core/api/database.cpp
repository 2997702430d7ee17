// Database and Statement (database.h): parse, bind, run, with statement and transaction
// boundaries. This is the only layer that catches optic::Error to restore a consistent state
// before rethrowing it to the caller.
#include "core/api/database.h"

#include <chrono>

#include "core/api/engine.h"
#include "core/api/watch.h"
#include "core/catalog/alter.h"
#include "core/catalog/assertion.h"
#include "core/catalog/ddl.h"
#include "core/catalog/materialized_view.h"
#include "core/maintenance/mv_maintenance.h"
#include "core/common/value_ops.h"
#include "core/execution/dml.h"
#include "core/execution/operator.h"
#include "core/execution/committed_scan.h"
#include "core/execution/schema_diff.h"
#include "core/parser/ddl_printer.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/change_scope.h"
#include "core/planner/dml_source.h"
#include "core/planner/mv_plan.h"
#include "core/storage/file_store.h"
#include "core/storage/store_layout.h"
#include "core/storage/store_load.h"
#include "core/storage/store_module.h"

namespace optic {

// One prepared statement: the AST, its bound form (re-bound when the catalog changed), the
// parameters and the cursor state.
class PreparedPlan {
 public:
  PreparedPlan(Engine& engine, std::shared_ptr<const ast::Statement> stmt) : engine_(engine), stmt_(std::move(stmt)) {
    bind();
  }

  void bind() {
    query_.root.reset();
    query_.columns.clear();
    dml_.reset();
    effects_.clear();
    Binder binder(engine_);
    switch (stmt_->kind) {
      case ast::StatementKind::kSelect:
        query_ = binder.bindQuery(*stmt_->select, nullptr);
        for (const auto& c : query_.columns) columns_.push_back(c.name);
        break;
      case ast::StatementKind::kInsert:
        dml_ = bindInsert(binder, *stmt_->insert);
        break;
      case ast::StatementKind::kUpdate:
        dml_ = bindUpdate(binder, *stmt_->update);
        break;
      case ast::StatementKind::kDelete:
        dml_ = bindDelete(binder, *stmt_->del);
        break;
      default:
        break;
    }
    columns_.clear();
    if (stmt_->kind == ast::StatementKind::kSelect) {
      for (const auto& c : query_.columns) columns_.push_back(c.name);
    } else if (dml_) {
      for (const auto& c : dml_->returningColumns()) columns_.push_back(c.name);
    } else if (stmt_->kind == ast::StatementKind::kPragma) {
      columns_ = {"name", "value"};
    } else if (stmt_->kind == ast::StatementKind::kAnalyze) {
      columns_ = {"table", "rows"};
    } else if (stmt_->kind == ast::StatementKind::kSchemaCommand) {
      columns_ = schemaCommandColumns(*stmt_->schemaCommand);
    }
    effects_ = binder.effects();
    paramCount_ = binder.parameterCount();
    paramNames_ = binder.parameterNames();
    params_.resize(paramCount_);
    bound_.resize(paramCount_);
    reads_ = std::move(binder.reads());
    reads_.finish();
    boundVersion_ = engine_.catalog().version();
  }

  bool step();
  const Row& row() const { return row_; }
  void reset();
  void bindParam(int position, Value v) {
    if (position < 1) throw Error(ErrorCode::kMisuse, "parameter index out of range: " + std::to_string(position));
    if (static_cast<size_t>(position) > params_.size()) params_.resize(position);
    if (static_cast<size_t>(position) > bound_.size()) bound_.resize(position);
    params_[position - 1] = std::move(v);
    bound_[position - 1] = true;
  }
  void bindParam(std::string_view name, Value v) {
    for (size_t i = 0; i < paramNames_.size(); ++i) {
      if (paramNames_[i] == name) {
        params_[i] = std::move(v);
        bound_[i] = true;
        return;
      }
    }
    throw Error(ErrorCode::kMisuse, "no such parameter: " + std::string(name));
  }
  void clearBindings() {
    std::fill(params_.begin(), params_.end(), Value());
    std::fill(bound_.begin(), bound_.end(), false);
  }
  // The statement's change scope with its current bindings (and `extra`) applied.
  ChangeScope changeScope(const std::map<ParamIndex, Value>& extra) {
    if (phase_ == Phase::kIdle && boundVersion_ != engine_.catalog().version()) bind();
    ScopeStatement st;
    st.dml = dml_ != nullptr;
    st.returning = dml_ && dml_->hasReturning();
    st.paramNames = paramNames_;
    std::map<ParamIndex, Value> values = extra;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (i >= bound_.size() || !bound_[i]) continue;
      ParamIndex idx = i < paramNames_.size() && !paramNames_[i].empty() ? ParamIndex(paramNames_[i])
                                                                        : ParamIndex(static_cast<int64_t>(i + 1));
      values.emplace(idx, params_[i]);
    }
    return bindParameters(buildChangeScope(reads_, st), values);
  }
  int parameterCount() const { return paramCount_; }
  const std::vector<std::string>& parameterNames() const { return paramNames_; }
  const std::vector<std::string>& columnNames() const { return columns_; }
  const ast::Statement& statement() const { return *stmt_; }
  Engine& engine() const { return engine_; }

 private:
  void start();
  void runOther();
  std::vector<Row> analyze(const ast::Analyze& a);
  void finish(bool ok);

  Engine& engine_;
  std::shared_ptr<const ast::Statement> stmt_;
  QueryPlan query_;
  std::unique_ptr<DmlPlan> dml_;
  // DML relations of the statement (data-modifying CTEs, `from (delete … returning …)`): they
  // run first, in order, each exactly once; the main body replays their rows (dml_source.h).
  std::vector<std::shared_ptr<DmlSource>> effects_;
  std::vector<std::string> columns_;
  std::vector<Value> params_;
  std::vector<bool> bound_;  // which slots were bound (a bound NULL is still bound)
  ReadRecorder reads_;
  std::vector<std::string> paramNames_;
  int paramCount_ = 0;
  uint64_t boundVersion_ = 0;

  ExecState state_;
  enum class Phase { kIdle, kRows, kDone } phase_ = Phase::kIdle;
  std::vector<Row> buffered_;
  size_t bufferedPos_ = 0;
  bool inStatement_ = false;
  Row row_;
};

namespace {
int64_t nowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

bool parseBool(const Value& v) {
  if (v.kind() == ValueKind::kBoolean) return v.asBool();
  if (v.isNumeric()) return v.toDouble() != 0;
  std::string s = lowerName(toText(v));
  if (s == "on" || s == "true" || s == "yes" || s == "1") return true;
  if (s == "off" || s == "false" || s == "no" || s == "0") return false;
  fail("Invalid boolean value for pragma: " + toText(v));
}
}  // namespace

void PreparedPlan::start() {
  if (boundVersion_ != engine_.catalog().version() && stmt_->kind != ast::StatementKind::kTransaction) bind();
  state_ = ExecState{};
  state_.engine = &engine_;
  state_.params = &params_;
  state_.fn.statementTimeMs = nowMs();
  state_.fn.randomState = engine_.randomState();
  state_.fn.engine = &engine_;
  state_.runId = engine_.nextRunId();
  engine_.beginStatement();
  inStatement_ = true;
}

void PreparedPlan::finish(bool ok) {
  if (!inStatement_) return;
  inStatement_ = false;
  if (query_.root && phase_ == Phase::kRows) query_.root->close();
  engine_.endStatement(ok);
}

bool PreparedPlan::step() {
  if (phase_ == Phase::kDone) return false;
  try {
    if (phase_ == Phase::kIdle) {
      start();
      phase_ = Phase::kRows;
      if (!effects_.empty()) {
        runEffects(effects_, state_);
        if (stmt_->kind == ast::StatementKind::kSelect) engine_.materializedViews().maintain();
      }
      if (stmt_->kind == ast::StatementKind::kSelect) {
        query_.root->open(state_, nullptr);
      } else if (dml_) {
        buffered_ = dml_->execute(state_);
        bufferedPos_ = 0;
        engine_.materializedViews().maintain();
      } else {
        runOther();
        if (inStatement_) engine_.materializedViews().maintain();
      }
    }
    if (stmt_->kind == ast::StatementKind::kSelect) {
      if (query_.root->next(row_)) return true;
    } else if (bufferedPos_ < buffered_.size()) {
      row_ = std::move(buffered_[bufferedPos_++]);
      return true;
    }
    phase_ = Phase::kDone;
    finish(true);
    return false;
  } catch (...) {
    phase_ = Phase::kDone;
    try {
      finish(false);
    } catch (...) {
    }
    throw;
  }
}

void PreparedPlan::reset() {
  if (inStatement_) {
    // An unfinished read completes as it stands; an unfinished write already ran in full.
    finish(true);
  }
  phase_ = Phase::kIdle;
  buffered_.clear();
  bufferedPos_ = 0;
}

namespace {

// `schema.` as the canonical DDL of schema-change events qualifies names.
std::string qualifier(const std::string& schema) { return printIdent(schema) + "."; }

// The §7 announcement of a DDL statement on a table, resolved before it runs (a dropped table is
// gone afterwards); nullopt for DDL that announces nothing. Its `ddl` is the statement re-printed
// canonically with schema-qualified names (core/parser/ddl_printer.h).
std::optional<SchemaChangeEvent> schemaChangeOf(Engine& engine, const ast::Statement& s) {
  using Ev = SchemaChangeEvent;
  auto schemaOf = [&](const ast::QualifiedName& n) -> std::string {
    if (!n.schema.empty()) return lowerName(n.schema);
    try {
      return Binder(engine).resolveTableSchema(n, false);
    } catch (const Error&) {
      return engine.searchPath().front();
    }
  };
  Ev e;
  switch (s.kind) {
    case ast::StatementKind::kCreateTable: {
      const ast::CreateTable& c = *s.createTable;
      e.schemaName = c.name.schema.empty() ? engine.searchPath().front() : lowerName(c.name.schema);
      if (engine.catalog().findTable(e.schemaName, c.name.name)) return std::nullopt;  // if not exists
      e.objectName = c.name.name;
      e.ddl = printCreateTable(c, qualifier(e.schemaName), "");
      return e;
    }
    case ast::StatementKind::kCreateIndex: {
      const ast::CreateIndex& c = *s.createIndex;
      e.objectType = Ev::Object::kIndex;
      e.schemaName = schemaOf(c.table);
      if (engine.catalog().findIndex(e.schemaName, c.name.name).first) return std::nullopt;
      e.objectName = c.name.name;
      e.ddl = printCreateIndex(c, qualifier(e.schemaName));
      return e;
    }
    case ast::StatementKind::kDrop: {
      const ast::Drop& d = *s.drop;
      e.type = Ev::Type::kDrop;
      e.objectName = d.name.name;
      if (d.kind == ast::Drop::Kind::kTable) {
        e.schemaName = schemaOf(d.name);
        if (!engine.catalog().findTable(e.schemaName, d.name.name)) return std::nullopt;
        e.ddl = "drop table " + qualifier(e.schemaName) + printIdent(d.name.name);
        e.disposesSchema = e.schemaName;
        e.disposesTable = lowerName(d.name.name);
        return e;
      }
      if (d.kind == ast::Drop::Kind::kIndex) {
        e.objectType = Ev::Object::kIndex;
        e.schemaName = d.name.schema.empty() ? engine.searchPath().front() : lowerName(d.name.schema);
        if (!engine.catalog().findIndex(e.schemaName, d.name.name).first) return std::nullopt;
        e.ddl = "drop index " + qualifier(e.schemaName) + printIdent(d.name.name);
        return e;
      }
      return std::nullopt;
    }
    case ast::StatementKind::kAlterTable: {
      const ast::AlterTable& a = *s.alterTable;
      using A = ast::AlterTable::Action;
      e.type = Ev::Type::kAlter;
      e.schemaName = schemaOf(a.table);
      e.objectName = a.table.name;
      e.disposesSchema = e.schemaName;
      e.disposesTable = lowerName(a.table.name);
      e.ddl = printAlterTable(a, qualifier(e.schemaName));
      switch (a.action) {
        case A::kRenameTable:
          e.oldObjectName = a.table.name;
          e.objectName = a.newName;
          return e;
        case A::kRenameColumn:
          e.objectType = Ev::Object::kColumn;
          e.columnName = a.newName;
          e.oldColumnName = a.column;
          return e;
        case A::kAddColumn:
          e.objectType = Ev::Object::kColumn;
          if (a.columnDef) e.columnName = a.columnDef->name;
          return e;
        case A::kDropColumn:
          e.type = Ev::Type::kDrop;
          e.objectType = Ev::Object::kColumn;
          e.columnName = a.column;
          return e;
        case A::kAlterColumn:
          e.objectType = Ev::Object::kColumn;
          e.columnName = a.column;
          return e;
        case A::kAlterPrimaryKey:
        case A::kAddConstraint:
        case A::kDropConstraint:
        case A::kRenameConstraint:
          return e;
        default:
          return std::nullopt;  // tag edits and set/drop maintained announce nothing
      }
    }
    default:
      return std::nullopt;
  }
}

// The name of a module-dispatching DDL statement (sql-core.md §6: the statements
// `pragma ddl_transaction_policy = 'strict'` refuses inside an explicit transaction), or null.
const char* moduleDdlVerb(const ast::Statement& s) {
  using K = ast::StatementKind;
  switch (s.kind) {
    case K::kCreateTable: return "CREATE TABLE";
    case K::kCreateIndex: return "CREATE INDEX";
    case K::kCreateView: return s.createView->materialized ? "CREATE MATERIALIZED VIEW" : nullptr;
    case K::kRefreshMaterializedView: return "REFRESH MATERIALIZED VIEW";
    case K::kAlterTable: return "ALTER TABLE";
    case K::kSchemaCommand: return s.schemaCommand->kind == ast::SchemaCommand::Kind::kApply ? "APPLY SCHEMA" : nullptr;
    case K::kDrop:
      switch (s.drop->kind) {
        case ast::Drop::Kind::kTable: return "DROP TABLE";
        case ast::Drop::Kind::kIndex: return "DROP INDEX";
        case ast::Drop::Kind::kMaterializedView: return "DROP MATERIALIZED VIEW";
        default: return nullptr;
      }
    default: return nullptr;
  }
}

// DROP of a name that resolves to nothing fails (or is a no-op) as it would outside a
// transaction: the policy gate concerns only DDL that would reach a module.
bool dropResolves(Engine& engine, const ast::Drop& d) {
  std::vector<std::string> path = d.name.schema.empty() ? engine.searchPath() : std::vector<std::string>{lowerName(d.name.schema)};
  for (const std::string& sc : path) {
    if (d.kind == ast::Drop::Kind::kIndex) {
      auto [t, i] = engine.catalog().findIndex(sc, d.name.name);
      if (t && !t->schema().indexes[i].implicit) return true;
    } else if (engine.catalog().findTable(sc, d.name.name)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void PreparedPlan::runOther() {
  const ast::Statement& s = *stmt_;
  if (engine_.settings().strictDdlTransactions && engine_.inExplicitTransaction()) {
    const char* verb = moduleDdlVerb(s);
    if (verb && (s.kind != ast::StatementKind::kDrop || dropResolves(engine_, *s.drop))) {
      fail(std::string(verb) + " is not allowed inside a transaction (ddl_transaction_policy = strict): "
           "commit or roll back first, or set pragma ddl_transaction_policy = 'permissive'");
    }
  }
  std::optional<SchemaChangeEvent> announce = schemaChangeOf(engine_, s);
  struct Announce {
    Engine& engine;
    std::optional<SchemaChangeEvent>& event;
    void done() {
      if (!event) return;
      if (event->type != SchemaChangeEvent::Type::kDrop || event->objectType == SchemaChangeEvent::Object::kColumn) {
        const std::string& name = event->objectType == SchemaChangeEvent::Object::kIndex ? "" : event->objectName;
        if (auto t = name.empty() ? nullptr : engine.catalog().findTable(event->schemaName, name)) {
          event->moduleName = t->schema().module;
        }
      }
      if (event->moduleName.empty()) event->moduleName = engine.settings().defaultModule;
      engine.noteSchemaChange(std::move(*event));
    }
  } note{engine_, announce};
  switch (s.kind) {
    case ast::StatementKind::kCreateTable:
      executeCreateTable(engine_, stmt_);
      note.done();
      return;
    case ast::StatementKind::kCreateIndex:
      executeCreateIndex(engine_, stmt_);
      note.done();
      return;
    case ast::StatementKind::kCreateView:
      if (s.createView->materialized) executeCreateMaterializedView(engine_, stmt_);
      else executeCreateView(engine_, stmt_);
      return;
    case ast::StatementKind::kCreateAssertion:
      executeCreateAssertion(engine_, stmt_);
      return;
    case ast::StatementKind::kRefreshMaterializedView:
      executeRefreshMaterializedView(engine_, *s.refresh);
      return;
    case ast::StatementKind::kDrop:
      executeDrop(engine_, *s.drop);
      note.done();
      return;
    case ast::StatementKind::kAlterTable:
      executeAlterTable(engine_, stmt_);
      note.done();
      return;
    case ast::StatementKind::kTransaction: {
      // Transaction control runs outside the statement boundary logic.
      const ast::Transaction& t = *s.transaction;
      engine_.endStatement(true);
      inStatement_ = false;
      switch (t.kind) {
        case ast::Transaction::Kind::kBegin: engine_.begin(); break;
        case ast::Transaction::Kind::kCommit: engine_.commit(); break;
        case ast::Transaction::Kind::kRollback: engine_.rollback(); break;
        case ast::Transaction::Kind::kSavepoint: engine_.savepoint(t.savepoint); break;
        case ast::Transaction::Kind::kRelease: engine_.release(t.savepoint); break;
        case ast::Transaction::Kind::kRollbackTo: engine_.rollbackTo(t.savepoint); break;
      }
      return;
    }
    case ast::StatementKind::kPragma: {
      const ast::Pragma& p = *s.pragma;
      std::string name = lowerName(p.name.name);  // echoed as written
      // The option it sets: an alias names the same one.
      const std::string option = name == "allow_nondeterministic_schema_expressions" ? "nondeterministic_schema" : name;
      Settings& st = engine_.settings();
      if (p.value) {
        const Value& v = *p.value;
        if (option == "foreign_keys") st.foreignKeys = parseBool(v);
        else if (auto flag = st.plannerFlags.find(option); flag != st.plannerFlags.end()) flag->second = parseBool(v);
        else if (option == "default_column_nullability") st.defaultNullable = lowerName(toText(v)) == "nullable";
        else if (option == "nondeterministic_schema") st.nondeterministicSchema = parseBool(v);
        else if (option == "default_vtab_module") st.defaultModule = lowerName(toText(v));
        else if (option == "ddl_transaction_policy") st.strictDdlTransactions = lowerName(toText(v)) == "strict";
        else if (option == "default_collation") {
          std::optional<Collation> c = collationFromName(toText(v));
          if (!c) fail("no such collation sequence: " + toText(v));
          st.defaultCollation = *c;
          st.defaultCollationSpelling = toText(v);
        } else if (option == "schema_path" || option == "search_path") {
          st.schemaPath.clear();
          std::string text = toText(v);
          size_t start = 0;
          while (start <= text.size()) {
            size_t comma = text.find(',', start);
            std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            while (!part.empty() && part.front() == ' ') part.erase(part.begin());
            while (!part.empty() && part.back() == ' ') part.pop_back();
            if (!part.empty()) st.schemaPath.push_back(lowerName(part));
            if (comma == std::string::npos) break;
            start = comma + 1;
          }
        }
        return;
      }
      Value value;
      if (option == "foreign_keys") value = Value::boolean(st.foreignKeys);
      else if (auto flag = st.plannerFlags.find(option); flag != st.plannerFlags.end()) value = Value::boolean(flag->second);
      else if (option == "default_vtab_module") value = Value::text(st.defaultModule);
      else if (option == "default_column_nullability") value = Value::text(st.defaultNullable ? "nullable" : "not_null");
      else if (option == "nondeterministic_schema") value = Value::boolean(st.nondeterministicSchema);
      else if (option == "schema_path" || option == "search_path") {
        std::string path;
        for (const auto& x : st.schemaPath) path += (path.empty() ? "" : ",") + x;
        value = Value::text(path);
      } else if (option == "ddl_transaction_policy") value = Value::text(st.strictDdlTransactions ? "strict" : "permissive");
      else if (option == "default_collation") value = Value::text(st.defaultCollationSpelling);
      else fail("Unknown pragma: " + p.name.name);
      buffered_.push_back(Row{Value::text(name), value});
      bufferedPos_ = 0;
      return;
    }
    case ast::StatementKind::kAnalyze:
      buffered_ = analyze(*s.analyze);
      bufferedPos_ = 0;
      return;
    case ast::StatementKind::kDeclareSchema:
      executeDeclareSchema(engine_, stmt_);
      return;
    case ast::StatementKind::kSchemaCommand:
      buffered_ = executeSchemaCommand(engine_, *s.schemaCommand);
      bufferedPos_ = 0;
      return;
    default:
      throw Error(ErrorCode::kUnsupported, "not supported yet: " + s.text.substr(0, std::min<size_t>(s.text.size(), 40)),
                  s.pos.line, s.pos.column);
  }
}

// ANALYZE [t | s.t | s.*]: one {table, rows} row per table (statistics are the row counts).
std::vector<Row> PreparedPlan::analyze(const ast::Analyze& a) {
  Catalog& cat = engine_.catalog();
  std::vector<std::shared_ptr<Table>> tables;
  const ast::QualifiedName& n = a.target;
  auto addSchema = [&](const std::string& schema) {
    for (const auto& [key, t] : cat.schema(schema).tables) tables.push_back(t);
  };
  if (n.name.empty()) {
    for (const auto& [name, schema] : cat.schemas()) addSchema(name);
  } else if (n.name == "*") {
    if (!cat.findSchema(n.schema)) fail("Schema not found: " + n.schema);
    addSchema(lowerName(n.schema));
  } else {
    std::string schema;
    // committed.<name> names the same stored object as <name> through the search path.
    bool committed = isCommittedName(cat, n);
    if (!n.schema.empty() && !committed) {
      schema = lowerName(n.schema);
      if (!cat.findTable(schema, n.name) && !cat.findView(schema, n.name)) {
        throw Error(ErrorCode::kNotFound, "Table not found: " + n.schema + "." + n.name);
      }
    } else {
      ast::QualifiedName unqualified = n;
      unqualified.schema.clear();
      schema = Binder(engine_).resolveTableSchema(unqualified);
    }
    if (cat.findView(schema, n.name)) {
      fail("Cannot ANALYZE view '" + schema + "." + n.name + "': a view has no stored rows to collect statistics from.");
    }
    tables.push_back(cat.findTable(schema, n.name));
  }
  std::vector<Row> rows;
  for (const auto& t : tables) {
    rows.push_back(Row{Value::text(t->schema().name), Value::integer(static_cast<int64_t>(t->rows().size()))});
  }
  return rows;
}

// ---- Database --------------------------------------------------------------------------------

std::shared_ptr<const KVStore> storeOf(const WriteBatch& batch) {
  std::shared_ptr<KVStore> store = newMemoryKVStore();
  applyBatch(batch, *store);
  return store;
}

Database::Database(DatabaseOptions options)
    : engine_(std::make_unique<Engine>()), notifier_(std::make_unique<ChangeNotifier>(*engine_)) {
  std::shared_ptr<PersistenceSink> sink = std::move(options.sink);
  std::shared_ptr<const KVStore> contents = std::move(options.contents);
  if (!sink && options.storage == Storage::kFile) {
    FileStoreOptions fo;
    fo.durability = options.durability;
    std::shared_ptr<FileStore> file = FileStore::open(options.path, fo);
    contents = std::shared_ptr<const KVStore>(file, &file->contents());
    sink = std::move(file);
  }
  persistent_ = sink != nullptr;
  engine_->settings().defaultModule =
      !options.defaultModule.empty() ? options.defaultModule : persistent_ ? "store" : "memory";
  if (persistent_) {
    auto store = std::make_shared<StoreModule>(std::move(sink));
    if (contents) loadErrors_ = store->hydrate(*engine_, *contents, options.lazyLoad);
    engine_->setStoreModule(std::move(store));
  }
}

Database::~Database() {
  // Live queries hold statements on this database: stop them while everything is still here.
  for (auto& [id, q] : lives_) q->stop();
  lives_.clear();
}

std::string Database::live(std::string_view sql, std::vector<Value> params, LiveHandler onResult) {
  std::shared_ptr<LiveQuery> q = LiveQuery::start(*this, sql, std::move(params), std::move(onResult));
  std::string id = "live:" + std::to_string(++nextLive_);
  lives_[id] = std::move(q);
  return id;
}

bool Database::stopLive(const std::string& id) {
  auto it = lives_.find(id);
  if (it == lives_.end()) return false;
  std::shared_ptr<LiveQuery> q = std::move(it->second);
  lives_.erase(it);
  q->stop();
  return true;
}

bool Database::autocommit() const { return !engine_->inExplicitTransaction(); }

std::string Database::watch(const ChangeScope& scope, WatchHandler handler) {
  return notifier_->watch(scope, std::move(handler));
}
bool Database::unwatch(const std::string& subscriptionId) { return notifier_->unwatch(subscriptionId); }
ListenerId Database::onDataChange(DataChangeListener l) { return notifier_->onDataChange(std::move(l)); }
ListenerId Database::onSchemaChange(SchemaChangeListener l) { return notifier_->onSchemaChange(std::move(l)); }
ListenerId Database::onTransactionCommit(TransactionCommitListener l) {
  return notifier_->onTransactionCommit(std::move(l));
}
bool Database::removeListener(ListenerId id) { return notifier_->removeListener(id); }
void Database::notifyExternalChange(const std::string& table, const std::string& schema) {
  notifier_->notifyExternalChange(table, schema);
}

void Database::acknowledgeStored(uint64_t through) { engine_->acknowledgeStored(through); }

void Database::applyRemoteBatch(const WriteBatch& batch, uint64_t seq) {
  std::vector<std::string> errors = engine_->applyRemoteBatch(batch, seq);
  loadErrors_.insert(loadErrors_.end(), errors.begin(), errors.end());
}

std::vector<std::string> Database::tablesToLoad(std::string_view sql) const {
  const StoreModule* store = engine_->storeModule();
  if (!store || store->notLoadedCount() == 0) return {};
  std::vector<ast::StatementPtr> stmts;
  try {
    stmts = parseSql(sql);
  } catch (const Error&) {
    return {};
  }
  return optic::tablesToLoad(engine_->catalog(), stmts);
}

KeyRange Database::catalogRange() { return {storePrefix(kCatalogStoreName), storePrefixEnd(kCatalogStoreName)}; }

std::vector<KeyRange> Database::loadRanges(const std::vector<std::string>& tables) const {
  const StoreModule* store = engine_->storeModule();
  return store ? store->loadRanges(tables) : std::vector<KeyRange>{};
}

void Database::loadTables(const std::vector<std::string>& tables, const KVStore& contents, uint64_t seq) {
  if (StoreModule* store = engine_->storeModule()) store->loadTables(tables, contents, seq);
}

uint64_t Database::catalogVersion() const { return engine_->catalog().version(); }

size_t Database::statementCount(std::string_view sql) { return parseSql(sql).size(); }

bool Database::tableLoaded(std::string_view schema, std::string_view table) const {
  std::shared_ptr<Table> t = engine_->catalog().findTable(schema, table);
  return t && t->loaded();
}

bool Database::idle() const { return engine_->idle(); }

void Database::createScalarFunction(std::string_view name, int numArgs, bool deterministic,
                                    std::function<Value(Args)> impl) {
  ScalarFunction f;
  f.name = std::string(name);
  f.minArgs = numArgs < 0 ? 0 : numArgs;
  f.maxArgs = numArgs;
  f.deterministic = deterministic;
  f.impl = [impl = std::move(impl)](Args args, FunctionContext&) { return impl(args); };
  engine_->functions().addScalar(std::move(f));
}

void Database::createAggregateFunction(std::string_view name, int numArgs,
                                       std::function<std::unique_ptr<AggregateState>()> create) {
  AggregateFunction f;
  f.name = std::string(name);
  f.minArgs = numArgs < 0 ? 0 : numArgs;
  f.maxArgs = numArgs;
  f.create = [create = std::move(create)](Collation, LogicalType) { return create(); };
  engine_->functions().addAggregate(std::move(f));
}

void Database::revertUnstored() {
  engine_->revertUnstored();
  std::vector<std::pair<std::string, std::string>> tables;  // collected first: handlers may run DDL
  for (const auto& [sname, schema] : engine_->catalog().schemas()) {
    for (const auto& [tname, table] : schema.tables) tables.emplace_back(table->schema().schemaName, table->schema().name);
  }
  for (const auto& [schema, table] : tables) notifier_->notifyExternalChange(table, schema);
}

namespace {
// Plans and runs one statement to its end, discarding rows (exec and eval).
void runToEnd(Engine& engine, ast::StatementPtr s) {
  std::shared_ptr<const ast::Statement> shared(std::move(s));
  PreparedPlan plan(engine, shared);
  while (plan.step()) {
  }
}
}  // namespace

void Database::exec(std::string_view sql) {
  for (ast::StatementPtr& s : parseSql(sql)) runToEnd(*engine_, std::move(s));
}

std::unique_ptr<Statement> Database::prepare(std::string_view sql) {
  std::vector<ast::StatementPtr> stmts = parseSql(sql);
  if (stmts.empty()) throw Error(ErrorCode::kMisuse, "no statement to prepare");
  if (stmts.size() > 1) throw Error(ErrorCode::kMisuse, "prepare takes exactly one statement");
  std::shared_ptr<const ast::Statement> shared(std::move(stmts[0]));
  return std::unique_ptr<Statement>(new Statement(std::make_unique<PreparedPlan>(*engine_, shared)));
}

std::unique_ptr<Statement> Database::eval(std::string_view sql) {
  std::vector<ast::StatementPtr> stmts = parseSql(sql);
  if (stmts.empty()) throw Error(ErrorCode::kMisuse, "no statement to prepare");
  for (size_t i = 0; i + 1 < stmts.size(); ++i) runToEnd(*engine_, std::move(stmts[i]));
  std::shared_ptr<const ast::Statement> last(std::move(stmts.back()));
  return std::unique_ptr<Statement>(new Statement(std::make_unique<PreparedPlan>(*engine_, last)));
}

// ---- Statement -------------------------------------------------------------------------------

Statement::Statement(std::unique_ptr<PreparedPlan> plan) : plan_(std::move(plan)) {}
Statement::~Statement() {
  try {
    plan_->reset();
  } catch (...) {
  }
}

void Statement::bind(int position, Value v) { plan_->bindParam(position, std::move(v)); }
void Statement::bind(std::string_view name, Value v) { plan_->bindParam(name, std::move(v)); }
void Statement::clearBindings() { plan_->clearBindings(); }
int Statement::parameterCount() const { return plan_->parameterCount(); }
std::vector<std::string> Statement::parameterNames() const { return plan_->parameterNames(); }
bool Statement::step() { return plan_->step(); }
const Row& Statement::row() const { return plan_->row(); }
std::vector<std::string> Statement::columnNames() const { return plan_->columnNames(); }
void Statement::reset() { plan_->reset(); }
std::string_view Statement::sql() const { return plan_->statement().text; }
ChangeScope Statement::getChangeScope(const std::map<ParamIndex, Value>& params) { return plan_->changeScope(params); }
std::optional<std::vector<int>> Statement::resultKey() const {
  const ast::Statement& s = plan_->statement();
  if (s.kind != ast::StatementKind::kSelect || !s.select) return std::nullopt;
  try {
    return provableKey(plan_->engine(), *s.select, plan_->engine().searchPath().front(), plan_->columnNames().size());
  } catch (const Error&) {
    return std::nullopt;  // a shape the key analysis does not trace: no key, whole-row diffs
  }
}
ChangeScope Statement::getChangeScope(const std::vector<Value>& params) {
  std::map<ParamIndex, Value> byIndex;
  const std::vector<std::string>& names = plan_->parameterNames();
  for (size_t i = 0; i < params.size(); ++i) {
    byIndex.emplace(static_cast<int64_t>(i + 1), params[i]);
    if (i < names.size() && !names[i].empty()) byIndex.emplace(names[i], params[i]);
  }
  return plan_->changeScope(byIndex);
}

}  // namespace optic
