// Embind bindings over core/api (Database, Statement). Only wasm/ has Emscripten headers.
//
// Hot entry points (run, stepBatch, bindEncoded: statement_binding.h, compiled at -O3 apart from
// this file, which compiles for size) return an int status and move values through
// per-statement byte buffers in wasm memory (wasm/wire.h), so a row or a parameter list costs one
// boundary crossing, not one per value. Failures never escape as exceptions: an exception's
// message does not cross Embind, so every entry point catches, stores the error and returns
// kFailed; JS then reads lastError() ({code, message, line, column, …}: core/api/error_report.h).
// The JS package (js/src/) owns every handle and is the only caller; users never see this layer.
//
// Byte lists cross in the commit-batch format (WriteBatch::rep(), core/storage/write_batch.h;
// js/src/write_batch.ts is the TypeScript codec): each commit's batch as the engine made it,
// stored entries as a batch of puts, key ranges as a batch of eraseRange operations.
// Names are the engine's (core/api/database.h), so one act has one name from C++ to JS.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/database.h"
#include "core/api/error_report.h"
#include "core/api/json_text.h"
#include "core/api/value_text.h"
#include "wasm/error_slot.h"
#include "wasm/statement_binding.h"
#include "wasm/wire.h"

using emscripten::val;

namespace optic::wasm {
namespace {

// Bytes to JS as a Uint8Array of their own: a copy, since a view into wasm memory goes stale when
// the memory grows.
val bytesToJs(std::string_view bytes) {
  return val(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())))
      .call<val>("slice");
}

// A JS Uint8Array's bytes.
std::string bytesFromJs(const val& bytes) {
  std::string block(bytes["length"].as<size_t>(), '\0');
  val(emscripten::typed_memory_view(block.size(), reinterpret_cast<uint8_t*>(block.data()))).call<void>("set", bytes);
  return block;
}

std::vector<std::string> stringsFromJs(const val& array) {
  std::vector<std::string> out;
  const size_t n = array["length"].as<size_t>();
  for (size_t i = 0; i < n; ++i) out.push_back(array[i].as<std::string>());
  return out;
}

// ---- JS values for callbacks (cold paths: UDF arguments and results) -----------------------
// Same mapping as the wire format, as JS values; the JS side wraps bigint as {bigint: text},
// JSON as {json: text} and blobs as Uint8Array before handing a value back.
val toJs(const Value& v) {
  constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;
  switch (v.kind()) {
    case ValueKind::kNull: return val::null();
    case ValueKind::kInteger: {
      int64_t i = v.asInt();
      if (i >= -kMaxSafe && i <= kMaxSafe) return val(static_cast<double>(i));
      return val::global("BigInt")(val(integerText(v)));
    }
    case ValueKind::kBigInt: return val::global("BigInt")(val(integerText(v)));
    case ValueKind::kReal: return val(v.asReal());
    case ValueKind::kText: return val(v.asText());
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      return val(emscripten::typed_memory_view(b.size(), b.data())).call<val>("slice");
    }
    case ValueKind::kBoolean: return val(v.asBool());
    case ValueKind::kJson: {
      val o = val::object();
      o.set("json", jsonValueText(v));
      return o;
    }
  }
  return val::null();
}

Value fromJs(const val& x) {
  if (x.isNull() || x.isUndefined()) return Value::null();
  std::string type = x.typeOf().as<std::string>();
  if (type == "boolean") return Value::boolean(x.as<bool>());
  if (type == "string") return Value::text(x.as<std::string>());
  if (type == "number") {
    double d = x.as<double>();
    if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d)))
      return Value::integer(static_cast<int64_t>(d));
    return Value::real(d);
  }
  if (x.instanceof(val::global("Uint8Array"))) {
    Bytes b(x["length"].as<size_t>());
    val(emscripten::typed_memory_view(b.size(), b.data())).call<void>("set", x);
    return Value::blob(std::move(b));
  }
  if (type == "object" && x.hasOwnProperty("error"))
    throw Error(ErrorCode::kError, x["error"].as<std::string>());
  if (type == "object" && x.hasOwnProperty("bigint")) {
    std::optional<Value> b = integerFromText(x["bigint"].as<std::string>());
    if (!b) throw Error(ErrorCode::kMisuse, "malformed bigint value");
    return std::move(*b);
  }
  if (type == "object" && x.hasOwnProperty("json")) return jsonValueFromText(x["json"].as<std::string>());
  throw Error(ErrorCode::kMisuse, "unsupported value type: " + type);
}

val argsToJs(Args args) {
  val a = val::array();
  for (const Value& v : args) a.call<void>("push", toJs(v));
  return a;
}

// A JS aggregate: the accumulator is a JS value; step(acc, ...args) returns the next one.
class JsAggregateState final : public AggregateState {
 public:
  JsAggregateState(val step, val finish, val initial)
      : step_(std::move(step)), finish_(std::move(finish)), acc_(std::move(initial)) {}
  void step(Args args) override {
    val r = step_(acc_, argsToJs(args));
    if (r.typeOf().as<std::string>() == "object" && !r.isNull() && r.hasOwnProperty("error"))
      throw Error(ErrorCode::kError, r["error"].as<std::string>());
    acc_ = r["acc"];
  }
  Value finish() override { return fromJs(finish_(acc_)); }

 private:
  val step_, finish_, acc_;
};

// ---- Statement -------------------------------------------------------------------------------
// ---- persistence (the C++ half of js/src/indexeddb.ts and js/src/filestore.ts) ---------------
// Hands each commit's batch to JS as it is (WriteBatch::rep()) through `write`: the IndexedDB
// bridge applies it in one IndexedDB transaction and settles the statement's promise when that
// completes; the file store appends it to its file at once. The batch counts as stored later
// (storesLater): JS acknowledges it once stored (acknowledgeStored), and when one fails calls
// revertUnstored, which takes memory back to what storage holds and keeps the database usable.
class JsSink final : public PersistenceSink {
 public:
  explicit JsSink(val write) : write_(std::move(write)) {}
  bool storesLater() const override { return true; }
  void write(const WriteBatch& batch) override { write_(bytesToJs(batch.rep())); }

 private:
  val write_;
};

// A batch JS hands over (stored entries as puts, another tab's commit); throws on malformed bytes.
WriteBatch batchFromJs(const val& bytes) { return WriteBatch::fromRep(bytesFromJs(bytes)); }

// Key ranges [begin, end) to and from JS, as the eraseRange operations of a batch.
std::vector<KeyRange> rangesFromJs(const val& ranges) {
  struct Collect final : WriteBatch::Handler {
    std::vector<KeyRange> out;
    void put(std::string_view, std::string_view) override {}
    void erase(std::string_view) override {}
    void eraseRange(std::string_view b, std::string_view e) override { out.emplace_back(std::string(b), std::string(e)); }
  } c;
  batchFromJs(ranges).iterate(c);
  return std::move(c.out);
}
val rangesToJs(const std::vector<KeyRange>& ranges) {
  WriteBatch batch;
  for (const auto& [begin, end] : ranges) batch.eraseRange(begin, end);
  return bytesToJs(batch.rep());
}

// `lazy`: contents holds the catalog only and tables load on demand (the IndexedDB bridge);
// else contents is the whole store and every table opens loaded (the Node file store).
DatabaseOptions databaseOptions(const val& contents, const val& write, bool lazy) {
  DatabaseOptions o;
  if (write.isNull() || write.isUndefined()) return o;
  o.contents = storeOf(batchFromJs(contents));
  o.sink = std::make_shared<JsSink>(write);
  o.lazyLoad = lazy;
  return o;
}

// ---- Database --------------------------------------------------------------------------------
class JsDatabase {
 public:
  // contents/write null: an in-memory database. Else a persistent one (default module `store`)
  // hydrated from contents, a batch of puts (lazily: see databaseOptions), each commit's batch
  // handed to write.
  JsDatabase(val contents, val write, bool lazy) {
    errors_.guard([&] {
      db_ = std::make_unique<Database>(databaseOptions(contents, write, lazy));
      return 0;
    });
  }
  // false when opening failed (then lastError()).
  bool opened() const { return db_ != nullptr; }
  // Catalog entries that could not be loaded on open, one message each.
  val loadErrors() const { return stringArray(db_->loadErrors()); }
  // What opening restored (Rehydration): { views, materializedViews, adopted, refilled, errors,
  // unconfirmedKeys }.
  val rehydration() const {
    const Rehydration& r = db_->rehydration();
    val o = val::object();
    o.set("views", stringArray(r.views));
    o.set("materializedViews", stringArray(r.materializedViews));
    o.set("adopted", stringArray(r.adopted));
    o.set("refilled", stringArray(r.refilled));
    o.set("errors", stringArray(r.errors));
    o.set("unconfirmedKeys", stringArray(r.unconfirmedKeys));
    return o;
  }
  // Clean shutdown: the clean-shutdown marker goes to the store as the last batch.
  int close() { return errors_.guard([&] { db_->close(); return 0; }); }

  int exec(std::string sql) { return errors_.guard([&] { db_->exec(sql); return 0; }); }
  // What storage tells the engine (core/api/database.h): batches through `through` are stored;
  // or the unstored ones were lost.
  void acknowledgeStored(double through) { db_->acknowledgeStored(static_cast<uint64_t>(through)); }
  int revertUnstored() { return errors_.guard([&] { db_->revertUnstored(); return 0; }); }
  // A batch another tab stored (as JsSink handed it over): memory follows it, its events say
  // remote. Only when idle() (js/src/database.ts queues it until then).
  // `seq`: its commit sequence number (indexeddb.ts), so a table loaded from a read that had it
  // does not apply it twice.
  int applyRemoteBatch(val bytes, double seq) {
    return errors_.guard([&] { db_->applyRemoteBatch(batchFromJs(bytes), static_cast<uint64_t>(seq)); return 0; });
  }
  // Lazy loading (core/persistence/store_load.h): the tables (schema.table) a text's statements need
  // loaded first; null on failure (then lastError()).
  val tablesToLoad(std::string sql) {
    val out = val::null();
    errors_.guard([&] {
      out = stringArray(db_->tablesToLoad(sql));
      return 0;
    });
    return out;
  }
  // Their storage key ranges (rangesToJs).
  val loadRanges(val tables) { return rangesToJs(db_->loadRanges(stringsFromJs(tables))); }
  // contents: the entries read from those ranges (a batch of puts, as on open), when storage's
  // commit sequence number was `seq`.
  int loadTables(val tables, val contents, double seq) {
    return errors_.guard([&] {
      db_->loadTables(stringsFromJs(tables), *storeOf(batchFromJs(contents)), static_cast<uint64_t>(seq));
      return 0;
    });
  }
  // A connection that fell behind the commit log: the ranges to read again, then what they held
  // at commit `seq` (Database::resync).
  val resyncRanges() { return rangesToJs(db_->resyncRanges()); }
  int resync(val ranges, val contents, double seq) {
    return errors_.guard([&] {
      db_->resync(rangesFromJs(ranges), *storeOf(batchFromJs(contents)), static_cast<uint64_t>(seq));
      return 0;
    });
  }
  bool tableLoaded(std::string schema, std::string table) const { return db_->tableLoaded(schema, table); }
  double catalogVersion() const { return static_cast<double>(db_->catalogVersion()); }
  // -1 when the text does not parse.
  int statementCount(std::string sql) {
    return errors_.guard([&] { return static_cast<int>(Database::statementCount(sql)); });
  }
  // Database::writes: false too when the text does not parse.
  bool writes(std::string sql) const { return Database::writes(sql); }
  bool idle() const { return db_->idle(); }
  // A statement JS owns (and deletes); null on failure (then lastError()).
  JsStatement* prepare(std::string sql) {
    JsStatement* s = nullptr;
    errors_.guard([&] { s = new JsStatement(db_->prepare(sql)); return 0; });
    return s;
  }
  // Runs all statements but the last; returns the last prepared (JS owns it), null on failure.
  JsStatement* eval(std::string sql) {
    JsStatement* s = nullptr;
    errors_.guard([&] { s = new JsStatement(db_->eval(sql)); return 0; });
    return s;
  }
  bool autocommit() const { return db_->autocommit(); }
  void interrupt() { db_->interrupt(); }
  // Database::setDeadline, `ms` from now (the JS `timeout` left); negative: no deadline.
  void setDeadline(double ms) {
    using namespace std::chrono;
    if (ms < 0) db_->setDeadline(std::nullopt);
    else db_->setDeadline(steady_clock::now() + duration_cast<steady_clock::duration>(duration<double, std::milli>(ms)));
  }
  // Database::setInterruptPoll with a JS function (RunOptions.shouldInterrupt); null: none.
  void setInterruptPoll(val fn) {
    if (fn.isNull() || fn.isUndefined()) db_->setInterruptPoll(nullptr);
    else db_->setInterruptPoll([fn = std::move(fn)] { return fn().as<bool>(); });
  }

  // fn(argsArray) returns the result value as fromJs takes it, or {error: message}.
  int createScalarFunction(std::string name, int numArgs, bool deterministic, val fn) {
    return errors_.guard([&] {
      db_->createScalarFunction(name, numArgs, deterministic, [fn](Args args) { return fromJs(fn(argsToJs(args))); });
      return 0;
    });
  }
  // step(acc, argsArray) returns {acc} or {error}; finish(acc) returns the result value.
  int createAggregateFunction(std::string name, int numArgs, val step, val finish, val initial) {
    return errors_.guard([&] {
      db_->createAggregateFunction(name, numArgs, [step, finish, initial] {
        return std::make_unique<JsAggregateState>(step, finish, initial);
      });
      return 0;
    });
  }

  // Event channels: each delivers the event's JSON text to cb(kind, text) after a commit.
  // Returns the subscription id ("" on failure).
  std::string watch(std::string scopeJson, val cb) {
    std::string id;
    errors_.guard([&] {
      ChangeScope scope = deserializeChangeScopeText(scopeJson);
      id = db_->watch(scope, [cb](const WatchEvent& e) { cb(std::string("watch"), toJsonText(e)); });
      return 0;
    });
    return id;
  }
  bool unwatch(std::string id) { return db_->unwatch(id); }
  // A live query (core/api/live_query.h): cb("live", resultJson) now and after each commit that
  // changes the result. params: a JS array of values as fromJs takes them. "" on failure.
  std::string live(std::string sql, val params, val cb) {
    std::string id;
    errors_.guard([&] {
      std::vector<Value> values;
      const size_t n = params["length"].as<size_t>();
      for (size_t i = 0; i < n; ++i) values.push_back(fromJs(params[i]));
      id = db_->live(sql, std::move(values), [cb](const LiveResult& r) { cb(std::string("live"), toJsonText(r)); });
      return 0;
    });
    return id;
  }
  bool stopLive(std::string id) { return db_->stopLive(id); }
  // Fires the table's watches and live queries coarsely ("" schema: the search path's first).
  int notifyExternalChange(std::string table, std::string schema) {
    return errors_.guard([&] { db_->notifyExternalChange(table, schema); return 0; });
  }
  double onDataChange(val cb) {
    return static_cast<double>(
        db_->onDataChange([cb](const DataChangeEvent& e) { cb(std::string("data"), toJsonText(e)); }));
  }
  double onSchemaChange(val cb) {
    return static_cast<double>(
        db_->onSchemaChange([cb](const SchemaChangeEvent& e) { cb(std::string("schema"), toJsonText(e)); }));
  }
  double onTransactionCommit(val cb) {
    return static_cast<double>(db_->onTransactionCommit(
        [cb](const TransactionCommitEvent& e) { cb(std::string("commit"), toJsonText(e)); }));
  }
  bool removeListener(double id) { return db_->removeListener(static_cast<ListenerId>(id)); }
  val lastError() const { return errors_.get(); }

 private:
  std::unique_ptr<Database> db_;
  ErrorSlot errors_;
};

// The change-scope helpers of api-and-watch.md §4 (unionScopes, intersectScopes, bindParameters,
// isEmpty, describesEverything) over the wire form as JSON text, under the engine's names, so
// js/src/change_scope.ts exposes the engine's one lattice instead of a second copy in TypeScript.
// Each returns {value} or {error: {code, message, …}}: a free function has no handle to keep
// lastError on.
template <class F>
val scopeResult(F&& f) {
  ErrorSlot errors;
  val out = val::object();
  val value = val::undefined();
  if (errors.guard([&] { value = f(); return 0; }) == kFailed) {
    out.set("error", errors.get());
  } else {
    out.set("value", value);
  }
  return out;
}
ChangeScope scopeFromJson(const std::string& text) { return deserializeChangeScopeText(text); }
val scopeToJs(const ChangeScope& s) { return val(serializeChangeScopeText(s)); }

val unionScopesJson(std::string a, std::string b) {
  return scopeResult([&] { return scopeToJs(unionScopes(scopeFromJson(a), scopeFromJson(b))); });
}
val intersectScopesJson(std::string a, std::string b) {
  return scopeResult([&] { return scopeToJs(intersectScopes(scopeFromJson(a), scopeFromJson(b))); });
}
// bound: a JS array of [index, value] pairs, index a number (positional) or a name without its
// sigil, value as fromJs takes it.
val bindParametersJson(std::string scope, val bound) {
  return scopeResult([&] {
    std::map<ParamIndex, Value> params;
    const size_t n = bound["length"].as<size_t>();
    for (size_t i = 0; i < n; ++i) {
      val pair = bound[i];
      val key = pair[0];
      ParamIndex index = key.typeOf().as<std::string>() == "number" ? ParamIndex{static_cast<int64_t>(key.as<double>())}
                                                                    : ParamIndex{key.as<std::string>()};
      params[std::move(index)] = fromJs(pair[1]);
    }
    return scopeToJs(bindParameters(scopeFromJson(scope), params));
  });
}
val isEmptyJson(std::string s) {
  return scopeResult([&] { return val(isEmpty(scopeFromJson(s))); });
}
val describesEverythingJson(std::string s) {
  return scopeResult([&] { return val(describesEverything(scopeFromJson(s))); });
}

// The key range of the catalog (rangesToJs): what the IndexedDB bridge reads to open lazily.
val catalogRangeJs() { return rangesToJs({Database::catalogRange()}); }

}  // namespace
}  // namespace optic::wasm

EMSCRIPTEN_BINDINGS(opticdb) {
  using namespace optic::wasm;
  using emscripten::allow_raw_pointers;
  emscripten::function("unionScopes", &unionScopesJson);
  emscripten::function("intersectScopes", &intersectScopesJson);
  emscripten::function("bindParameters", &bindParametersJson);
  emscripten::function("isEmpty", &isEmptyJson);
  emscripten::function("describesEverything", &describesEverythingJson);
  emscripten::function("catalogRange", &catalogRangeJs);
  emscripten::class_<JsStatement>("Statement")
      .function("paramBuffer", &JsStatement::paramBuffer)
      .function("bindEncoded", &JsStatement::bindEncoded)
      .function("clearBindings", &JsStatement::clearBindings)
      .function("run", &JsStatement::run)
      .function("stepBatch", &JsStatement::stepBatch)
      .function("rowsPtr", &JsStatement::rowsPtr)
      .function("rowsLen", &JsStatement::rowsLen)
      .function("reset", &JsStatement::reset)
      .function("interrupt", &JsStatement::interrupt)
      .function("columnNames", &JsStatement::columnNames)
      .function("parameterNames", &JsStatement::parameterNames)
      .function("sql", &JsStatement::sql)
      .function("getChangeScope", &JsStatement::getChangeScope)
      .function("lastError", &JsStatement::lastError);
  emscripten::class_<JsDatabase>("Database")
      .constructor<val, val, bool>()
      .function("opened", &JsDatabase::opened)
      .function("loadErrors", &JsDatabase::loadErrors)
      .function("rehydration", &JsDatabase::rehydration)
      .function("close", &JsDatabase::close)
      .function("exec", &JsDatabase::exec)
      .function("acknowledgeStored", &JsDatabase::acknowledgeStored)
      .function("revertUnstored", &JsDatabase::revertUnstored)
      .function("applyRemoteBatch", &JsDatabase::applyRemoteBatch)
      .function("idle", &JsDatabase::idle)
      .function("tablesToLoad", &JsDatabase::tablesToLoad)
      .function("loadRanges", &JsDatabase::loadRanges)
      .function("loadTables", &JsDatabase::loadTables)
      .function("resyncRanges", &JsDatabase::resyncRanges)
      .function("resync", &JsDatabase::resync)
      .function("tableLoaded", &JsDatabase::tableLoaded)
      .function("catalogVersion", &JsDatabase::catalogVersion)
      .function("statementCount", &JsDatabase::statementCount)
      .function("writes", &JsDatabase::writes)
      .function("prepare", &JsDatabase::prepare, allow_raw_pointers())
      .function("eval", &JsDatabase::eval, allow_raw_pointers())
      .function("autocommit", &JsDatabase::autocommit)
      .function("interrupt", &JsDatabase::interrupt)
      .function("setDeadline", &JsDatabase::setDeadline)
      .function("setInterruptPoll", &JsDatabase::setInterruptPoll)
      .function("createScalarFunction", &JsDatabase::createScalarFunction)
      .function("createAggregateFunction", &JsDatabase::createAggregateFunction)
      .function("watch", &JsDatabase::watch)
      .function("unwatch", &JsDatabase::unwatch)
      .function("live", &JsDatabase::live)
      .function("stopLive", &JsDatabase::stopLive)
      .function("notifyExternalChange", &JsDatabase::notifyExternalChange)
      .function("onDataChange", &JsDatabase::onDataChange)
      .function("onSchemaChange", &JsDatabase::onSchemaChange)
      .function("onTransactionCommit", &JsDatabase::onTransactionCommit)
      .function("removeListener", &JsDatabase::removeListener)
      .function("lastError", &JsDatabase::lastError);
}
