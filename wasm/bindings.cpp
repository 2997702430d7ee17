// Embind bindings over core/api (Database, Statement). The only file with Emscripten headers.
// Every entry point catches: an exception's message does not cross Embind, so each call returns
// {ok, value, error} with error = {code, message, line, column}. Values cross as JS values:
// integers as number within ±(2^53−1) else bigint, booleans, strings, Uint8Array, JSON as a
// JSON text tagged {json: text} (the JS layer parses it), null.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>

#include "core/api/database.h"
#include "core/common/bigint.h"
#include "core/common/json.h"

using emscripten::val;

namespace optic::wasm {
namespace {

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;

val errorObject(const std::string& code, const std::string& message, int line, int column) {
  val e = val::object();
  e.set("code", code);
  e.set("message", message);
  e.set("line", line);
  e.set("column", column);
  return e;
}

val okResult(val value) {
  val r = val::object();
  r.set("ok", true);
  r.set("value", value);
  return r;
}

val errResult(val error) {
  val r = val::object();
  r.set("ok", false);
  r.set("error", error);
  return r;
}

// Runs f(); turns any exception into an {ok:false} result so nothing opaque reaches JS.
template <class F>
val guarded(F&& f) {
  try {
    return okResult(f());
  } catch (const Error& e) {
    return errResult(errorObject(errorCodeName(e.code()), e.what(), e.line(), e.column()));
  } catch (const std::exception& e) {
    return errResult(errorObject("internal", e.what(), 0, 0));
  } catch (...) {
    return errResult(errorObject("internal", "unknown C++ exception", 0, 0));
  }
}

val toJs(const Value& v) {
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
      return val(emscripten::typed_memory_view(b.size(), reinterpret_cast<const uint8_t*>(b.data())))
          .call<val>("slice");
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

// JS → Value. The JS layer normalises first: bigint arrives as {bigint: decimal text}, JSON as
// {json: text}, blobs as Uint8Array.
Value fromJs(const val& x) {
  std::string type = x.typeOf().as<std::string>();
  if (x.isNull() || x.isUndefined()) return Value::null();
  if (type == "boolean") return Value::boolean(x.as<bool>());
  if (type == "string") return Value::text(x.as<std::string>());
  if (type == "number") {
    double d = x.as<double>();
    if (d == static_cast<double>(static_cast<int64_t>(d)) && d >= -9.2e18 && d <= 9.2e18 &&
        val::global("Number").call<bool>("isInteger", x))
      return Value::integer(static_cast<int64_t>(d));
    return Value::real(d);
  }
  if (x.instanceof(val::global("Uint8Array"))) {
    size_t n = x["length"].as<size_t>();
    Bytes b(n);
    val(emscripten::typed_memory_view(n, reinterpret_cast<uint8_t*>(b.data()))).call<void>("set", x);
    return Value::blob(std::move(b));
  }
  if (type == "object" && x.hasOwnProperty("bigint")) {
    auto b = BigInt::parse(x["bigint"].as<std::string>());
    if (!b) throw Error(ErrorCode::kError, "bad bigint text");
    return Value::fromBigInt(*b);
  }
  if (type == "object" && x.hasOwnProperty("json"))
    return Value::json(parseJson(x["json"].as<std::string>()));
  throw Error(ErrorCode::kError, "unsupported value type: " + type);
}

class JsStatement {
 public:
  explicit JsStatement(std::unique_ptr<Statement> s) : stmt_(std::move(s)) {}

  val bindIndex(int position, val v) {
    return guarded([&] { stmt_->bind(position, fromJs(v)); return val::undefined(); });
  }
  val bindName(std::string name, val v) {
    return guarded([&] { stmt_->bind(std::string_view(name), fromJs(v)); return val::undefined(); });
  }
  val clearBindings() { return guarded([&] { stmt_->clearBindings(); return val::undefined(); }); }

  // Up to `max` rows as an array of arrays; fewer means the statement is done.
  val stepBatch(int max) {
    return guarded([&] {
      val rows = val::array();
      for (int i = 0; i < max && stmt_->step(); ++i) {
        const Row& r = stmt_->row();
        val row = val::array();
        for (const Value& v : r) row.call<void>("push", toJs(v));
        rows.call<void>("push", row);
      }
      return rows;
    });
  }
  val columnNames() {
    return guarded([&] {
      val a = val::array();
      for (const auto& n : stmt_->columnNames()) a.call<void>("push", n);
      return a;
    });
  }
  val parameters() {
    return guarded([&] {
      val a = val::array();
      for (const auto& n : stmt_->parameterNames()) a.call<void>("push", n);
      return a;
    });
  }
  val reset() { return guarded([&] { stmt_->reset(); return val::undefined(); }); }
  std::string sql() const { return std::string(stmt_->sql()); }

 private:
  std::unique_ptr<Statement> stmt_;
};

class JsDatabase {
 public:
  JsDatabase() : db_(std::make_unique<Database>()) {}
  val exec(std::string sql) { return guarded([&] { db_->exec(sql); return val::undefined(); }); }
  // value: a JsStatement the JS side owns (and must delete()).
  val prepare(std::string sql) {
    return guarded([&] { return val(new JsStatement(db_->prepare(sql)), emscripten::allow_raw_pointers()); });
  }
  bool autocommit() const { return db_->autocommit(); }

 private:
  std::unique_ptr<Database> db_;
};

}  // namespace
}  // namespace optic::wasm

EMSCRIPTEN_BINDINGS(opticdb) {
  using namespace optic::wasm;
  emscripten::class_<JsStatement>("Statement")
      .function("bindIndex", &JsStatement::bindIndex)
      .function("bindName", &JsStatement::bindName)
      .function("clearBindings", &JsStatement::clearBindings)
      .function("stepBatch", &JsStatement::stepBatch)
      .function("columnNames", &JsStatement::columnNames)
      .function("parameters", &JsStatement::parameters)
      .function("reset", &JsStatement::reset)
      .function("sql", &JsStatement::sql);
  emscripten::class_<JsDatabase>("Database")
      .constructor<>()
      .function("exec", &JsDatabase::exec)
      .function("prepare", &JsDatabase::prepare)
      .function("autocommit", &JsDatabase::autocommit);
}
