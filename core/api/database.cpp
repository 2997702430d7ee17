// Database and Statement (database.h): parse, bind, run, with statement and transaction
// boundaries. This is the only layer that catches optic::Error to restore a consistent state
// before rethrowing it to the caller.
#include "core/api/database.h"

#include <chrono>

#include "core/api/engine.h"
#include "core/api/watch.h"
#include "core/catalog/store_layout.h"
#include "core/common/value_ops.h"
#include "core/ddl/schema_diff.h"
#include "core/ddl/schema_statement.h"
#include "core/execution/dml.h"
#include "core/execution/operator.h"
#include "core/maintenance/mv_maintenance.h"
#include "core/parser/parser.h"
#include "core/persistence/store_load.h"
#include "core/persistence/store_load.h"
#include "core/persistence/store_module.h"
#include "core/persistence/store_module.h"
#include "core/planner/binder.h"
#include "core/planner/change_scope.h"
#include "core/planner/dml_binder.h"
#include "core/planner/dml_source.h"
#include "core/planner/mv_plan.h"
#include "core/storage/file_store.h"

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
  size_t changes() const { return changes_; }
  void reset();
  void interrupt();
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
  size_t changes_ = 0;  // of the last execution (DmlPlan::changes)
  bool inStatement_ = false;
  bool interrupted_ = false;  // Statement::interrupt ended the execution; step() fails until reset()
  Row row_;
};

void PreparedPlan::start() {
  if (boundVersion_ != engine_.catalog().version() && stmt_->kind != ast::StatementKind::kTransaction) bind();
  state_ = ExecState{};
  state_.ctx = &engine_;
  state_.params = &params_;
  state_.fn.randomState = engine_.randomState();
  state_.fn.ctx = &engine_;
  state_.runId = engine_.nextRunId();
  changes_ = 0;
  inStatement_ = true;  // first: a refill failing in beginStatement() ends the statement as failed
  engine_.beginStatement();
}

void PreparedPlan::finish(bool ok) {
  if (!inStatement_) return;
  inStatement_ = false;
  if (query_.root && phase_ == Phase::kRows) query_.root->close();
  engine_.endStatement(ok);
}

bool PreparedPlan::step() {
  if (interrupted_) throw Error(ErrorCode::kInterrupt, "interrupted");
  if (phase_ == Phase::kDone) return false;
  try {
    // Between rows too: a request made while the caller read the last row stops the next.
    if (phase_ == Phase::kRows) engine_.interrupt().check();
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
        changes_ = dml_->changes();
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
  interrupted_ = false;
  buffered_.clear();
  bufferedPos_ = 0;
}

void PreparedPlan::interrupt() {
  if (!inStatement_) return;
  interrupted_ = true;
  finish(false);  // closes the query's operators while phase_ still says they are open
  phase_ = Phase::kDone;
}

void PreparedPlan::runOther() {
  const ast::Statement& s = *stmt_;
  if (s.kind == ast::StatementKind::kTransaction) {
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
  TransactionMark before = engine_.txn().mark();
  SchemaStatementResult r = executeSchemaStatement(engine_, stmt_);
  // The pre-flight veto (store.md §4.1): DDL whose stored text the store cannot encode fails
  // here, a clean no-op (even an ALTER, which otherwise re-applies after a rollback), instead of
  // failing its transaction's commit.
  if (const StoreModule* store = engine_.storeModule()) {
    try {
      store->requireStorable(engine_.catalog());
    } catch (...) {
      engine_.txn().abandonTo(before);
      throw;
    }
  }
  if (r.announcement) engine_.noteSchemaChange(std::move(*r.announcement));
  buffered_ = std::move(r.rows);
  bufferedPos_ = 0;
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
    if (contents) {
      rehydration_ = store->hydrate(*engine_, *contents, options.lazyLoad);
      loadErrors_ = rehydration_.errors;
    }
    engine_->setStoreModule(std::move(store));
  }
}

void Database::close() { engine_->closeStore(); }

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

void Database::interrupt() { engine_->interrupt().request(); }
void Database::setDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) {
  engine_->interrupt().setDeadline(deadline);
}
void Database::setInterruptPoll(std::function<bool()> poll) { engine_->interrupt().setPoll(std::move(poll)); }

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

std::vector<KeyRange> Database::resyncRanges() const {
  const StoreModule* store = engine_->storeModule();
  return store ? store->resyncRanges() : std::vector<KeyRange>{};
}

void Database::resync(const std::vector<KeyRange>& ranges, const KVStore& contents, uint64_t seq) {
  std::vector<std::string> errors = engine_->resync(ranges, contents, seq);
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

bool Database::writes(std::string_view sql) {
  std::vector<ast::StatementPtr> statements;
  try {
    statements = parseSql(sql);
  } catch (const Error&) {
    return false;
  }
  for (const ast::StatementPtr& s : statements) {
    switch (s->kind) {
      case ast::StatementKind::kSelect:
      case ast::StatementKind::kPragma:
        continue;
      case ast::StatementKind::kSchemaCommand:
        if (s->schemaCommand->kind != ast::SchemaCommand::Kind::kApply) continue;
        return true;
      default:
        return true;
    }
  }
  return false;
}

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
void Statement::interrupt() { plan_->interrupt(); }
size_t Statement::changes() const { return plan_->changes(); }
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
