// Embind bindings over core/api (Database, Statement). The only file with Emscripten headers.
//
// Hot entry points (run, stepBatch, bindEncoded) return an int status and move values through
// per-statement byte buffers in wasm memory (wasm/wire.h), so a row or a parameter list costs one
// boundary crossing, not one per value. Failures never escape as exceptions: an exception's
// message does not cross Embind, so every entry point catches, stores the error and returns
// kFailed; JS then reads lastError() ({code, message, line, column}). The JS package
// (js/src/) owns every handle and is the only caller; users never see this layer.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/api/database.h"
#include "core/api/engine.h"
#include "core/common/bigint.h"
#include "core/common/json.h"
#include "core/execution/function_registry.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/storage/kv_store.h"
#include "core/storage/persistence.h"
#include "core/storage/write_batch.h"
#include "wasm/wire.h"

using emscripten::val;

namespace optic::wasm {
namespace {

constexpr int kFailed = -1;

// The last failure of one handle, as JS reads it.
class ErrorSlot {
 public:
  // Runs f(), which returns an int >= 0; on any exception records it and returns kFailed.
  template <class F>
  int guard(F&& f) {
    try {
      return f();
    } catch (const MutationError& e) {
      set(errorCodeName(e.code()), e.what(), e.line(), e.column());
      diagnostic_ = e.diagnostic();
    } catch (const Error& e) {
      set(errorCodeName(e.code()), e.what(), e.line(), e.column());
    } catch (const std::exception& e) {
      set("internal", e.what(), 0, 0);
    } catch (...) {
      set("internal", "unknown C++ exception", 0, 0);
    }
    return kFailed;
  }
  val get() const {
    val e = val::object();
    e.set("code", code_);
    e.set("message", message_);
    e.set("line", line_);
    e.set("column", column_);
    if (diagnostic_) {
      val d = val::object();
      d.set("reason", diagnostic_->reason);
      d.set("view", diagnostic_->view);
      d.set("column", diagnostic_->column);
      d.set("operation", diagnostic_->operation);
      e.set("mutationDiagnostic", d);
    }
    return e;
  }

 private:
  void set(std::string code, std::string message, int line, int column) {
    diagnostic_.reset();
    code_ = std::move(code);
    message_ = std::move(message);
    line_ = line;
    column_ = column;
  }
  std::string code_, message_;
  int line_ = 0, column_ = 0;
  std::optional<MutationDiagnostic> diagnostic_;  // a rejected write through a view
};

uintptr_t address(const std::string& s) { return reinterpret_cast<uintptr_t>(s.data()); }

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
      return val::global("BigInt")(val(std::to_string(i)));
    }
    case ValueKind::kBigInt: return val::global("BigInt")(val(v.asBigInt().toString()));
    case ValueKind::kReal: return val(v.asReal());
    case ValueKind::kText: return val(v.asText());
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      return val(emscripten::typed_memory_view(b.size(), b.data())).call<val>("slice");
    }
    case ValueKind::kBoolean: return val(v.asBool());
    case ValueKind::kJson: {
      val o = val::object();
      o.set("json", serializeJson(v.asJson().doc));
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
    auto b = BigInt::parse(x["bigint"].as<std::string>());
    if (!b) throw Error(ErrorCode::kMisuse, "malformed bigint value");
    return Value::fromBigInt(*b);
  }
  if (type == "object" && x.hasOwnProperty("json")) return Value::json(parseJson(x["json"].as<std::string>()));
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
class JsStatement {
 public:
  explicit JsStatement(std::unique_ptr<Statement> s) : stmt_(std::move(s)) {}

  // A buffer of at least `size` bytes for the next parameter block; valid until the next call.
  uintptr_t paramBuffer(uint32_t size) {
    if (in_.size() < size) in_.resize(size);
    return address(in_);
  }
  // Binds the parameter block JS wrote into paramBuffer().
  int bindEncoded() {
    return errors_.guard([&] {
      bindBlock();
      return 0;
    });
  }
  int clearBindings() { return errors_.guard([&] { stmt_->clearBindings(); return 0; }); }

  // Runs to completion discarding rows, then resets; withParams binds the parameter block first.
  int run(bool withParams) {
    return errors_.guard([&] {
      if (withParams) bindBlock();
      struct ResetOnExit {
        Statement& s;
        ~ResetOnExit() { s.reset(); }
      } resetOnExit{*stmt_};
      while (stmt_->step()) {
      }
      return 0;
    });
  }

  // Encodes up to `max` rows into the row buffer (rowsPtr/rowsLen); returns how many. Fewer than
  // max means the statement is done.
  int stepBatch(int max) {
    out_.clear();
    return errors_.guard([&] {
      int n = 0;
      while (n < max && stmt_->step()) {
        for (const Value& v : stmt_->row()) encodeValue(v, out_);
        ++n;
      }
      return n;
    });
  }
  uintptr_t rowsPtr() const { return address(out_); }
  uint32_t rowsLen() const { return static_cast<uint32_t>(out_.size()); }

  int reset() { return errors_.guard([&] { stmt_->reset(); return 0; }); }
  val columnNames() const { return stringArray(stmt_->columnNames()); }
  val parameterNames() const { return stringArray(stmt_->parameterNames()); }
  std::string sql() const { return std::string(stmt_->sql()); }
  // The change scope in its wire form (api-and-watch.md §4) as JSON text, with the current
  // bindings and, when withParams, the parameter block applied; "" on failure (then lastError()).
  std::string changeScope(bool withParams) {
    std::string out;
    errors_.guard([&] {
      std::map<ParamIndex, Value> params;
      if (withParams) decodeParams(in_, [&](int position, Value v) { params[int64_t{position}] = std::move(v); });
      out = serializeJson(serializeChangeScope(stmt_->getChangeScope(params)));
      return 0;
    });
    return out;
  }
  val lastError() const { return errors_.get(); }

 private:
  void bindBlock() {
    decodeParams(in_, [&](int position, Value v) { stmt_->bind(position, std::move(v)); });
  }
  static val stringArray(const std::vector<std::string>& names) {
    val a = val::array();
    for (const auto& n : names) a.call<void>("push", n);
    return a;
  }
  std::unique_ptr<Statement> stmt_;
  std::string in_, out_;
  ErrorSlot errors_;
};

// ---- persistence (the C++ half of js/src/indexeddb.ts and js/src/filestore.ts) ---------------
// Stored entries as JS hands them over on open: repeated [u32 key length][key][u32 value length]
// [value], in any order.
std::shared_ptr<const KVStore> contentsFrom(const std::string& block) {
  auto store = std::shared_ptr<KVStore>(newMemoryKVStore());
  WireReader r(block);
  while (!r.atEnd()) {
    std::string_view key = r.bytes();
    store->put(key, r.bytes());
  }
  return store;
}

// Hands each commit's batch to JS as one Uint8Array: per operation a tag byte (1 put, 2 erase,
// 3 eraseRange) and its u32-length-prefixed byte strings (key [value] / begin end). The IndexedDB
// bridge applies it in one IndexedDB transaction and settles the statement's promise when that
// completes; the file store appends it to its file at once. The batch counts as stored later
// (storesLater): JS acknowledges it once stored (acknowledgeStored), and when one fails calls
// revertUnstored, which takes memory back to what storage holds and keeps the database usable.
class JsSink final : public PersistenceSink {
 public:
  explicit JsSink(val onBatch) : onBatch_(std::move(onBatch)) {}
  bool storesLater() const override { return true; }
  void write(const WriteBatch& batch) override {
    struct Encoder final : WriteBatch::Handler {
      std::string out;
      void str(std::string_view s) {
        uint32_t n = static_cast<uint32_t>(s.size());
        out.append(reinterpret_cast<const char*>(&n), 4);
        out.append(s);
      }
      void put(std::string_view k, std::string_view v) override { out.push_back(1); str(k); str(v); }
      void erase(std::string_view k) override { out.push_back(2); str(k); }
      void eraseRange(std::string_view b, std::string_view e) override { out.push_back(3); str(b); str(e); }
    } enc;
    batch.iterate(enc);
    onBatch_(val(emscripten::typed_memory_view(enc.out.size(), reinterpret_cast<const uint8_t*>(enc.out.data())))
                 .call<val>("slice"));
  }

 private:
  val onBatch_;
};

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

// The batch of a JsSink-encoded block (another tab's commit, received over BroadcastChannel).
WriteBatch batchFromJs(const val& bytes) {
  std::string block = bytesFromJs(bytes);
  WriteBatch batch;
  WireReader r(block);
  while (!r.atEnd()) {
    uint8_t tag = r.u8();
    std::string_view key = r.bytes();
    if (tag == 1) batch.put(key, r.bytes());
    else if (tag == 2) batch.erase(key);
    else if (tag == 3) batch.eraseRange(key, r.bytes());
    else throw Error(ErrorCode::kMisuse, "malformed write batch (tag " + std::to_string(tag) + ")");
  }
  return batch;
}

// `lazy`: contents holds the catalog only and tables load on demand (the IndexedDB bridge);
// else contents is the whole store and every table opens loaded (the Node file store).
DatabaseOptions databaseOptions(const val& contents, const val& onBatch, bool lazy) {
  DatabaseOptions o;
  if (onBatch.isNull() || onBatch.isUndefined()) return o;
  o.contents = contentsFrom(bytesFromJs(contents));
  o.sink = std::make_shared<JsSink>(onBatch);
  o.lazyLoad = lazy;
  return o;
}

// ---- Database --------------------------------------------------------------------------------
class JsDatabase {
 public:
  // contents/onBatch null: an in-memory database. Else a persistent one (default module
  // `store`) hydrated from contents (lazily: see databaseOptions), each commit's batch handed
  // to onBatch.
  JsDatabase(val contents, val onBatch, bool lazy) {
    errors_.guard([&] {
      db_ = std::make_unique<Database>(databaseOptions(contents, onBatch, lazy));
      return 0;
    });
  }
  // false when opening failed (then lastError()).
  bool opened() const { return db_ != nullptr; }
  // Catalog entries that could not be loaded on open, one message each.
  val loadErrors() const {
    val a = val::array();
    for (const auto& e : db_->loadErrors()) a.call<void>("push", e);
    return a;
  }

  int exec(std::string sql) { return errors_.guard([&] { db_->exec(sql); return 0; }); }
  // The bridge's acknowledgements (core/api/database.h): batches through `batch` are stored;
  // or the unstored ones were lost.
  void acknowledgeStored(double batch) { db_->acknowledgeStored(static_cast<uint64_t>(batch)); }
  int revertUnstored() { return errors_.guard([&] { db_->revertUnstored(); return 0; }); }
  // A batch another tab stored (JsSink's encoding): memory follows it, its events say remote.
  // Only when idle() (js/src/database.ts queues it until then).
  // `seq`: its commit sequence number (indexeddb.ts), so a table loaded from a read that had it
  // does not apply it twice.
  int applyRemote(val bytes, double seq) {
    return errors_.guard([&] { db_->applyRemoteBatch(batchFromJs(bytes), static_cast<uint64_t>(seq)); return 0; });
  }
  // Lazy loading (core/persistence/store_load.h): the tables (schema.table) a text's statements need
  // loaded first; null on failure (then lastError()).
  val tablesToLoad(std::string sql) {
    val out = val::null();
    errors_.guard([&] {
      out = val::array();
      for (const std::string& t : db_->tablesToLoad(sql)) out.call<void>("push", t);
      return 0;
    });
    return out;
  }
  // Their storage key ranges, packed as [u32 length][begin][u32 length][end]… (begin inclusive,
  // end exclusive).
  val loadRanges(val tables) {
    std::string out;
    auto str = [&](const std::string& s) {
      uint32_t n = static_cast<uint32_t>(s.size());
      out.append(reinterpret_cast<const char*>(&n), 4);
      out.append(s);
    };
    for (const auto& [begin, end] : db_->loadRanges(stringsFromJs(tables))) {
      str(begin);
      str(end);
    }
    return val(emscripten::typed_memory_view(out.size(), reinterpret_cast<const uint8_t*>(out.data()))).call<val>("slice");
  }
  // contents: the entries read from those ranges (packed as on open), when storage's commit
  // sequence number was `seq`.
  int loadTables(val tables, val contents, double seq) {
    return errors_.guard([&] {
      db_->loadTables(stringsFromJs(tables), *contentsFrom(bytesFromJs(contents)), static_cast<uint64_t>(seq));
      return 0;
    });
  }
  bool tableLoaded(std::string schema, std::string table) const { return db_->tableLoaded(schema, table); }
  double catalogVersion() const { return static_cast<double>(db_->catalogVersion()); }
  // -1 when the text does not parse.
  int statementCount(std::string sql) {
    return errors_.guard([&] { return static_cast<int>(Database::statementCount(sql)); });
  }
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

  // fn(argsArray) returns the result value as fromJs takes it, or {error: message}.
  int createScalarFunction(std::string name, int numArgs, bool deterministic, val fn) {
    return errors_.guard([&] {
      ScalarFunction f;
      f.name = lower(name);
      f.minArgs = numArgs < 0 ? 0 : numArgs;
      f.maxArgs = numArgs;
      f.deterministic = deterministic;
      f.impl = [fn](Args args, FunctionContext&) { return fromJs(fn(argsToJs(args))); };
      db_->engine().functions().addScalar(std::move(f));
      return 0;
    });
  }
  // step(acc, argsArray) returns {acc} or {error}; finish(acc) returns the result value.
  int createAggregateFunction(std::string name, int numArgs, val step, val finish, val initial) {
    return errors_.guard([&] {
      AggregateFunction f;
      f.name = lower(name);
      f.minArgs = numArgs < 0 ? 0 : numArgs;
      f.maxArgs = numArgs;
      f.create = [step, finish, initial](Collation, LogicalType) { return std::make_unique<JsAggregateState>(step, finish, initial); };
      db_->engine().functions().addAggregate(std::move(f));
      return 0;
    });
  }

  // Event channels: each delivers the event's JSON text to cb(kind, text) after a commit.
  // Returns the subscription id ("" on failure).
  std::string watch(std::string scopeJson, val cb) {
    std::string id;
    errors_.guard([&] {
      ChangeScope scope = deserializeChangeScope(parseJson(scopeJson)->doc);
      id = db_->watch(scope, [cb](const WatchEvent& e) { cb(std::string("watch"), serializeJson(toJson(e))); });
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
      id = db_->live(sql, std::move(values), [cb](const LiveResult& r) { cb(std::string("live"), serializeJson(toJson(r))); });
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
        db_->onDataChange([cb](const DataChangeEvent& e) { cb(std::string("data"), serializeJson(toJson(e))); }));
  }
  double onSchemaChange(val cb) {
    return static_cast<double>(
        db_->onSchemaChange([cb](const SchemaChangeEvent& e) { cb(std::string("schema"), serializeJson(toJson(e))); }));
  }
  double onTransactionCommit(val cb) {
    return static_cast<double>(db_->onTransactionCommit(
        [cb](const TransactionCommitEvent& e) { cb(std::string("commit"), serializeJson(toJson(e))); }));
  }
  bool removeListener(double id) { return db_->removeListener(static_cast<ListenerId>(id)); }
  val lastError() const { return errors_.get(); }

 private:
  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  std::unique_ptr<Database> db_;
  ErrorSlot errors_;
};

// The change-scope helpers of api-and-watch.md §4 (unionScopes, intersectScopes, bindParameters,
// isEmpty, describesEverything) over the wire form as JSON text, so js/src/change_scope.ts
// exposes the engine's one lattice instead of a second copy in TypeScript. Each returns
// {value} or {error: {code, message, …}}: a free function has no handle to keep lastError on.
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
ChangeScope scopeFromJson(const std::string& text) { return deserializeChangeScope(parseJson(text)->doc); }
val scopeToJs(const ChangeScope& s) { return val(serializeJson(serializeChangeScope(s))); }

val unionScopesJson(std::string a, std::string b) {
  return scopeResult([&] { return scopeToJs(unionScopes(scopeFromJson(a), scopeFromJson(b))); });
}
val intersectScopesJson(std::string a, std::string b) {
  return scopeResult([&] { return scopeToJs(intersectScopes(scopeFromJson(a), scopeFromJson(b))); });
}
// bound: a JS array of [index, value] pairs, index a number (positional) or a name without its
// sigil, value as fromJs takes it.
val bindScopeParametersJson(std::string scope, val bound) {
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
val isEmptyScopeJson(std::string s) {
  return scopeResult([&] { return val(isEmpty(scopeFromJson(s))); });
}
val describesEverythingJson(std::string s) {
  return scopeResult([&] { return val(describesEverything(scopeFromJson(s))); });
}

}  // namespace
}  // namespace optic::wasm

EMSCRIPTEN_BINDINGS(opticdb) {
  using namespace optic::wasm;
  using emscripten::allow_raw_pointers;
  emscripten::function("unionScopes", &unionScopesJson);
  emscripten::function("intersectScopes", &intersectScopesJson);
  emscripten::function("bindScopeParameters", &bindScopeParametersJson);
  emscripten::function("isEmptyScope", &isEmptyScopeJson);
  emscripten::function("describesEverything", &describesEverythingJson);
  emscripten::class_<JsStatement>("Statement")
      .function("paramBuffer", &JsStatement::paramBuffer)
      .function("bindEncoded", &JsStatement::bindEncoded)
      .function("clearBindings", &JsStatement::clearBindings)
      .function("run", &JsStatement::run)
      .function("stepBatch", &JsStatement::stepBatch)
      .function("rowsPtr", &JsStatement::rowsPtr)
      .function("rowsLen", &JsStatement::rowsLen)
      .function("reset", &JsStatement::reset)
      .function("columnNames", &JsStatement::columnNames)
      .function("parameterNames", &JsStatement::parameterNames)
      .function("sql", &JsStatement::sql)
      .function("changeScope", &JsStatement::changeScope)
      .function("lastError", &JsStatement::lastError);
  emscripten::class_<JsDatabase>("Database")
      .constructor<val, val, bool>()
      .function("opened", &JsDatabase::opened)
      .function("loadErrors", &JsDatabase::loadErrors)
      .function("exec", &JsDatabase::exec)
      .function("acknowledgeStored", &JsDatabase::acknowledgeStored)
      .function("revertUnstored", &JsDatabase::revertUnstored)
      .function("applyRemote", &JsDatabase::applyRemote)
      .function("idle", &JsDatabase::idle)
      .function("tablesToLoad", &JsDatabase::tablesToLoad)
      .function("loadRanges", &JsDatabase::loadRanges)
      .function("loadTables", &JsDatabase::loadTables)
      .function("tableLoaded", &JsDatabase::tableLoaded)
      .function("catalogVersion", &JsDatabase::catalogVersion)
      .function("statementCount", &JsDatabase::statementCount)
      .function("prepare", &JsDatabase::prepare, allow_raw_pointers())
      .function("eval", &JsDatabase::eval, allow_raw_pointers())
      .function("autocommit", &JsDatabase::autocommit)
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
