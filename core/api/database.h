// The engine's public surface: Database and Statement. The CLI, the conformance runner and the
// wasm bindings use only this header (plus Value); the bindings add the other headers of
// core/api (error_report.h, json_text.h, value_text.h) and nothing else of core/. Everything here
// throws optic::Error on failure and leaves the database usable afterwards: a failed statement
// changes nothing beyond what its conflict clause allows.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/api/live_query.h"
#include "core/api/watch.h"
#include "core/common/error.h"
#include "core/common/value.h"
#include "core/execution/function_registry.h"
#include "core/persistence/rehydration.h"
#include "core/planner/change_scope.h"
#include "core/storage/persistence.h"

namespace optic {

class Engine;          // core/api/engine.h: catalog, storage, transaction state
class PreparedPlan;    // core/api/statement.cpp

class KVStore;

// A range [begin, end) of the persistent key space (core/catalog/store_layout.h).
using KeyRange = std::pair<std::string, std::string>;

// The store holding what `batch` puts (applied in order to an empty store): how an embedder hands
// stored entries over in the commit-batch format (DatabaseOptions::contents, loadTables).
std::shared_ptr<const KVStore> storeOf(const WriteBatch& batch);

enum class Storage : uint8_t { kMemory, kFile };

struct DatabaseOptions {
  // pragma default_vtab_module; "" = `store` for a persistent database, else `memory`.
  std::string defaultModule;
  // kFile: a crash-safe file store at `path` (created when absent), reopened with its catalog
  // and data (core/storage/file_store.h).
  Storage storage = Storage::kMemory;
  std::string path;
  Durability durability = Durability::kStrict;
  // A persistence of the caller's own (the IndexedDB bridge, tests), in place of `storage`:
  // opening hydrates from `contents` (may be null: empty), each commit's batch goes to `sink`.
  std::shared_ptr<PersistenceSink> sink;
  std::shared_ptr<const KVStore> contents;
  // With `sink`: `contents` may hold just the catalog; store tables open not loaded and are
  // loaded on demand through loadTables() (core/persistence/store_load.h; the IndexedDB bridge).
  bool lazyLoad = false;
};

class Statement;

class Database {
 public:
  explicit Database(DatabaseOptions options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Parses the whole text first (a syntax error runs nothing), then runs each statement in
  // order, each autocommitting unless inside an explicit transaction. Rows are discarded.
  void exec(std::string_view sql);

  // Prepares the first statement of the text (an error if there is none; trailing statements
  // are an error too).
  std::unique_ptr<Statement> prepare(std::string_view sql);

  // Runs every statement of the text but the last (as exec does) and returns the last one
  // prepared, for its rows (the JS `eval`). A syntax error anywhere runs nothing.
  std::unique_ptr<Statement> eval(std::string_view sql);

  // ---- stopping statements (core/execution/interrupt.h) ----------------------------------------
  // The statements running now fail with kInterrupt ("interrupted") within a few thousand rows
  // of work: each is rolled back as a failing statement is (an explicit transaction stays open
  // without it) and the database stays usable. Safe from any thread and from a signal handler;
  // a request made while no statement runs is dropped when the next one starts.
  void interrupt();
  // Statements still running at `deadline` fail the same way; nullopt: none. For the thread that
  // runs the statements (set it before a call, clear it after).
  void setDeadline(std::optional<std::chrono::steady_clock::time_point> deadline);
  // Statements fail the same way when `poll` returns true; it is called every few thousand rows
  // of work while set (empty: none). For the thread that runs the statements, as setDeadline.
  void setInterruptPoll(std::function<bool()> poll);

  bool autocommit() const;  // true when no explicit transaction is open
  bool persistent() const { return persistent_; }
  // Catalog entries that could not be loaded when the database was opened (skipped, store.md §5),
  // and those of remote batches since.
  const std::vector<std::string>& loadErrors() const { return loadErrors_; }
  // What opening restored: views, materialized views adopted or to be refilled, errors.
  const Rehydration& rehydration() const { return rehydration_; }
  // Clean shutdown of a persistent database (store.md §4): rolls back an open transaction, then
  // writes the clean-shutdown marker as the last batch, so the next open adopts the stored
  // materialized-view rows instead of refilling them. Without it (a crash) they are refilled.
  // The database stays usable; its next commit takes the marker away again.
  void close();
  Engine& engine() { return *engine_; }

  // ---- functions an embedder defines --------------------------------------------------------
  // `name` is case-insensitive; numArgs -1 takes any number of arguments. An implementation
  // fails the statement by throwing optic::Error. Only deterministic scalars may appear in
  // CHECK, DEFAULT and materialized views.
  void createScalarFunction(std::string_view name, int numArgs, bool deterministic, std::function<Value(Args)> impl);
  // `create` makes the state of one group or window frame.
  void createAggregateFunction(std::string_view name, int numArgs,
                               std::function<std::unique_ptr<AggregateState>()> create);

  // ---- a sink that stores later (PersistenceSink::storesLater, the IndexedDB bridge) --------
  // Commits are numbered by the batch they sent (1, 2, …). acknowledgeStored(n): batches up to
  // n are stored. revertUnstored(): storage lost every later batch (a failed write), so memory
  // goes back to what storage holds, an open transaction is rolled back, and every watch and
  // live query re-runs as if each table changed; the database stays usable.
  void acknowledgeStored(uint64_t through);
  void revertUnstored();
  // A batch another connection to the same storage stored (Engine::applyRemoteBatch): memory
  // follows it and watches, events (remote: true) and live queries see it as a commit. Only
  // when idle() (no statement running, no explicit transaction); throws kMisuse otherwise.
  // Catalog entries of it that did not load are added to loadErrors().
  // `seq`: the batch's commit sequence number across connections (0 = unknown), so that a
  // table loaded from a read that already had it does not apply it twice.
  void applyRemoteBatch(const WriteBatch& batch, uint64_t seq = 0);
  // For a connection that missed commits no remote batch can give it any more: the storage key
  // ranges to read (the catalog, and the rows of the tables it has loaded), then memory made
  // what they held at commit `seq` (`contents`, the entries of those `ranges`), seen by watches
  // and live queries as one remote commit; tables created or altered meanwhile are loaded again
  // on their next use. Only when idle(). Catalog entries that did not load are added to
  // loadErrors().
  std::vector<KeyRange> resyncRanges() const;
  void resync(const std::vector<KeyRange>& ranges, const KVStore& contents, uint64_t seq);
  bool idle() const;

  // ---- lazy loading (DatabaseOptions::lazyLoad, core/persistence/store_load.h) ------------------
  // The storage key range holding the catalog: all that opening lazily needs in `contents`.
  static KeyRange catalogRange();
  // The catalog keys ({schema}.{table}) of the not-loaded store tables the statements of `sql`
  // may touch; empty when nothing needs loading (or the text does not parse: running it says why).
  // A statement that reaches one anyway fails with kNotLoaded naming it (Error::tablesToLoad).
  std::vector<std::string> tablesToLoad(std::string_view sql) const;
  // The storage key ranges holding those tables' rows and index entries.
  std::vector<KeyRange> loadRanges(const std::vector<std::string>& tables) const;
  // Fills those tables from `contents` (flat storage keys, read when the commit sequence was at
  // `seq`) and marks them loaded. Allowed while statements are open and inside a transaction:
  // nothing running can have reached a table that was not loaded.
  void loadTables(const std::vector<std::string>& tables, const KVStore& contents, uint64_t seq);
  bool tableLoaded(std::string_view schema, std::string_view table) const;
  // Changes whenever a table, view or index comes or goes (so does what tablesToLoad() answers).
  uint64_t catalogVersion() const;
  // How many statements `sql` holds; throws its syntax error.
  static size_t statementCount(std::string_view sql);
  // Whether running `sql` may store a commit, so that a connection sharing its storage with others
  // must first take their common write lock (js/src/write_lock.ts): every statement but a query
  // (SELECT, VALUES, WITH … SELECT), a PRAGMA (connection-local) and a schema DIFF or EXPLAIN.
  // BEGIN and SAVEPOINT count: a transaction's reads must see the commits its writes build on.
  // False when the text does not parse (running it fails without writing).
  static bool writes(std::string_view sql);

  // ---- reactivity (api-and-watch.md §5–8); delivered after each successful commit ----------
  // Registers `handler` for commits that intersect `scope`; returns the subscription id
  // ('watch:<hash>:<nonce>'). Throws on unbound parameters or a missing table/column.
  std::string watch(const ChangeScope& scope, WatchHandler handler);
  bool unwatch(const std::string& subscriptionId);  // idempotent
  ListenerId onDataChange(DataChangeListener l);
  ListenerId onSchemaChange(SchemaChangeListener l);
  ListenerId onTransactionCommit(TransactionCommitListener l);
  bool removeListener(ListenerId id);
  // Fires the watches of schema.table ("" = first schema of the path) as if it all changed.
  void notifyExternalChange(const std::string& table, const std::string& schema = "");
  ChangeNotifier& notifier() { return *notifier_; }
  // A live query (core/api/live_query.h): `onResult` gets the first result now and a new result
  // with its diff after each commit that changes it. Returns an id for stopLive.
  std::string live(std::string_view sql, std::vector<Value> params, LiveHandler onResult);
  bool stopLive(const std::string& id);  // idempotent

 private:
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ChangeNotifier> notifier_;
  std::map<std::string, std::shared_ptr<LiveQuery>> lives_;
  uint64_t nextLive_ = 0;
  bool persistent_ = false;
  std::vector<std::string> loadErrors_;
  Rehydration rehydration_;
};

class Statement {
 public:
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters: 1-based positions for `?` / `:1`, names (without the sigil) for `:name`/`$name`.
  void bind(int position, Value v);
  void bind(std::string_view name, Value v);
  void clearBindings();
  int parameterCount() const;
  std::vector<std::string> parameterNames() const;  // "" for positional slots

  // Runs to the next row. false when done (then the statement has completed and committed, in
  // autocommit). The first step executes; DML runs fully on its first step.
  bool step();
  const Row& row() const;  // valid after step() returned true
  std::vector<std::string> columnNames() const;
  void reset();  // back to before the first step; bindings kept
  // Ends an execution that has rows pending as failed: rolled back as a failing statement is
  // (a DML statement's writes too, which reset() would keep); the next step() throws kInterrupt
  // until reset(). A no-op when the statement is not executing. For the thread that runs it
  // (the JS AbortSignal between row batches); Database::interrupt stops it from elsewhere.
  void interrupt();
  // The rows the last execution's INSERT, UPDATE or DELETE changed (DmlPlan::changes: its
  // target's rows, a view's rows when written through one); 0 for other statements. Kept
  // across reset() until the next execution starts.
  size_t changes() const;

  std::string_view sql() const;

  // What the statement reads (api-and-watch.md §4), canonical, with the current bindings and
  // `params` applied (positions 1-based; names without the sigil). Parameters bound nowhere stay
  // placeholders and are listed in unboundParameters.
  ChangeScope getChangeScope(const std::map<ParamIndex, Value>& params = {});
  ChangeScope getChangeScope(const std::vector<Value>& params);
  // The output columns of the result's smallest provable unique key (a query's plan properties,
  // core/planner/mv_plan.h provableKey); {} = at most one row; nullopt when rows may repeat or the
  // statement is not a query.
  std::optional<std::vector<int>> resultKey() const;

 private:
  friend class Database;
  explicit Statement(std::unique_ptr<PreparedPlan> plan);
  std::unique_ptr<PreparedPlan> plan_;
};

}  // namespace optic
