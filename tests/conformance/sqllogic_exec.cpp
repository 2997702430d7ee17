// Block execution against the engine; see sqllogic_exec.h for the per-kind semantics.
// Every engine call is wrapped so that any exception becomes a block failure with its message:
// the reference catches any thrown error, and so must we.
#include "tests/conformance/sqllogic_exec.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include "core/api/database.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "tests/conformance/sqllogic_rows.h"

namespace optic::sqllogic {

namespace {

constexpr size_t kDisplayLimit = 300;

std::string shown(const JsValue& v) { return truncateForDisplay(toDisplay(v), kDisplayLimit / 2); }

// The outcome of one block: nullopt when it matched, else what differed.
using BlockResult = std::optional<std::string>;

// Runs fn, turning any exception into its message.
template <typename Fn>
std::optional<std::string> capture(Fn&& fn) {
  try {
    fn();
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown non-std exception");
  }
}

void bindParams(Statement& stmt, const JsValue& params) {
  if (params.kind() == JsValue::Kind::kArray) {
    for (size_t i = 0; i < params.items().size(); ++i) stmt.bind(static_cast<int>(i + 1), jsToBindValue(params.items()[i]));
    return;
  }
  if (params.kind() != JsValue::Kind::kObject) throw std::runtime_error("params must be a JSON array or object");
  for (size_t i = 0; i < params.keys().size(); ++i) {
    const std::string& key = params.keys()[i];
    bool numeric = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
    // {"1": 2} binds :1 / $1, which the API addresses by position.
    if (numeric) stmt.bind(std::stoi(key), jsToBindValue(params.items()[i]));
    else stmt.bind(key, jsToBindValue(params.items()[i]));
  }
}

// Prepares `sql`, binds, steps to the end; returns the converted rows.
std::vector<JsValue> collectRows(Database& db, const std::string& sql, const std::optional<JsValue>& params) {
  std::unique_ptr<Statement> stmt = db.prepare(sql);
  if (params && params->kind() != JsValue::Kind::kNull) bindParams(*stmt, *params);
  std::vector<JsValue> rows;
  std::vector<std::string> names;
  while (stmt->step()) {
    if (rows.empty()) names = stmt->columnNames();
    std::vector<JsValue> cells;
    for (const Value& v : stmt->row()) cells.push_back(valueToJs(v));
    rows.push_back(makeRow(names, std::move(cells)));
  }
  return rows;
}

BlockResult runSetup(Database& db, const Block& block) {
  if (auto err = capture([&] { db.exec(block.sql); })) return "setup failed: " + *err;
  return std::nullopt;
}

BlockResult compareRows(const std::vector<JsValue>& actual, const std::string& expectedText) {
  std::string parseError;
  std::optional<JsValue> expected = parseJson(expectedText, &parseError);
  if (!expected) return "invalid expected JSON (" + parseError + "): " + expectedText;
  if (expected->kind() != JsValue::Kind::kArray) return "expected JSON is not an array: " + expectedText;
  JsValue actualArray = JsValue::array(actual);
  if (expected->items().size() != actual.size()) {
    return "row count: expected " + std::to_string(expected->items().size()) + ", got " +
           std::to_string(actual.size()) + "; expected " + shown(*expected) + " actual " + shown(actualArray);
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    if (!deepEqual(actual[i], expected->items()[i])) {
      return "row " + std::to_string(i) + ": expected " + shown(expected->items()[i]) + " actual " + shown(actual[i]);
    }
  }
  return std::nullopt;
}

BlockResult runResult(Database& db, const Block& block) {
  std::vector<std::string> stmts = splitStatements(block.sql);
  for (size_t i = 0; i + 1 < stmts.size(); ++i) {
    if (auto err = capture([&] { db.exec(stmts[i]); })) return "error in statement " + std::to_string(i + 1) + ": " + *err;
  }
  std::vector<JsValue> rows;
  if (!stmts.empty()) {
    if (auto err = capture([&] { rows = collectRows(db, stmts.back(), block.params); })) return "unexpected error: " + *err;
  }
  return compareRows(rows, block.expected);
}

BlockResult runError(Database& db, const Block& block) {
  std::vector<std::string> stmts = splitStatements(block.sql);
  std::optional<std::string> err = capture([&] {
    if (stmts.size() > 1) {
      std::string setup;
      for (size_t i = 0; i + 1 < stmts.size(); ++i) setup += (i ? ";\n" : "") + stmts[i];
      db.exec(setup + ";");
    }
    if (!stmts.empty()) collectRows(db, stmts.back(), std::nullopt);
  });
  std::string quotedExpected = "\"" + block.expected + "\"";
  if (!err) return "expected error containing " + quotedExpected + " but the block succeeded";
  if (asciiLower(*err).find(asciiLower(block.expected)) == std::string::npos) {
    return "expected error containing " + quotedExpected + ", got \"" + *err + "\"";
  }
  return std::nullopt;
}

BlockResult runBlock(Database& db, const Block& block) {
  switch (block.kind) {
    case BlockKind::kSetup: return runSetup(db, block);
    case BlockKind::kResult: return runResult(db, block);
    case BlockKind::kError: return runError(db, block);
    case BlockKind::kMalformed: return block.expected;
  }
  return "unknown block kind";
}

JsValue blobToJs(const Bytes& bytes) {
  JsValue obj = JsValue::object();
  for (size_t i = 0; i < bytes.size(); ++i) obj.set(std::to_string(i), JsValue::number(bytes[i]));
  return obj;
}

// Structural, not via text: serialization prints numbers like JS String(x), which would turn
// a -0 inside a document into 0.
JsValue jsonToJs(const Json& j) {
  switch (j.type()) {
    case Json::value_t::boolean: return JsValue::boolean(j.get<bool>());
    case Json::value_t::number_integer: return JsValue::number(static_cast<double>(j.get<int64_t>()));
    case Json::value_t::number_unsigned: return JsValue::number(static_cast<double>(j.get<uint64_t>()));
    case Json::value_t::number_float: return JsValue::number(j.get<double>());
    case Json::value_t::string: return JsValue::string(j.get<std::string>());
    case Json::value_t::binary: return blobToJs(Bytes(j.get_binary().begin(), j.get_binary().end()));
    case Json::value_t::array: {
      JsValue arr = JsValue::array();
      for (const Json& item : j) arr.push(jsonToJs(item));
      return arr;
    }
    case Json::value_t::object: {
      JsValue obj = JsValue::object();
      for (auto it = j.begin(); it != j.end(); ++it) obj.set(it.key(), jsonToJs(it.value()));
      return obj;
    }
    default: return JsValue::null();
  }
}

Json jsToJson(const JsValue& v) {
  switch (v.kind()) {
    case JsValue::Kind::kNull: return nullptr;
    case JsValue::Kind::kBool: return v.asBool();
    case JsValue::Kind::kNumber: return v.asNumber();
    case JsValue::Kind::kString: return v.asString();
    case JsValue::Kind::kArray: {
      Json arr = Json::array();
      for (const JsValue& item : v.items()) arr.push_back(jsToJson(item));
      return arr;
    }
    case JsValue::Kind::kObject: {
      Json obj = Json::object();
      for (size_t i = 0; i < v.keys().size(); ++i) obj[v.keys()[i]] = jsToJson(v.items()[i]);
      return obj;
    }
  }
  return nullptr;
}

}  // namespace

JsValue valueToJs(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return JsValue::null();
    case ValueKind::kInteger: return JsValue::number(static_cast<double>(v.asInt()));
    case ValueKind::kBigInt: return JsValue::number(v.toDouble());
    case ValueKind::kReal: return JsValue::number(v.asReal());
    case ValueKind::kText: return JsValue::string(v.asText());
    case ValueKind::kBlob: return blobToJs(v.asBlob());
    case ValueKind::kBoolean: return JsValue::boolean(v.asBool());
    case ValueKind::kJson: return jsonToJs(v.asJson().doc);
  }
  return JsValue::null();
}

Value jsToBindValue(const JsValue& v) {
  switch (v.kind()) {
    case JsValue::Kind::kNull: return Value::null();
    case JsValue::Kind::kBool: return Value::boolean(v.asBool());
    case JsValue::Kind::kNumber: {
      double d = v.asNumber();
      // JS has one number type; an integral one binds as an integer (2^63 bounds int64).
      if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9223372036854775808.0) {
        return Value::integer(static_cast<int64_t>(d));
      }
      return Value::real(d);
    }
    case JsValue::Kind::kString: return Value::text(v.asString());
    case JsValue::Kind::kArray:
    case JsValue::Kind::kObject: return Value::json(makeJson(jsToJson(v)));
  }
  return Value::null();
}

FileOutcome runBlocks(const std::vector<Block>& blocks, const RunOptions& options,
                      const BlockPassedFn& onBlockPassed) {
  FileOutcome out;
  out.blocksTotal = static_cast<int>(blocks.size());
  auto fail = [&](size_t index, std::string what) {
    out.failedBlock = static_cast<int>(index + 1);
    out.failedLine = blocks[index].line;
    out.failure = truncateForDisplay(std::move(what), kDisplayLimit);
    return out;
  };
  std::unique_ptr<Database> db;
  DatabaseOptions dbOptions{options.defaultModule};
  if (!options.storePath.empty()) {
    // Relaxed: a commit still goes through the file store's log, without an fsync each.
    dbOptions.storage = Storage::kFile;
    dbOptions.path = options.storePath;
    dbOptions.durability = Durability::kRelaxed;
  }
  if (auto err = capture([&] { db = std::make_unique<Database>(dbOptions); })) {
    out.failure = "cannot open database: " + *err;
    return out;
  }
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < blocks.size(); ++i) {
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (options.timeoutSeconds > 0 && elapsed.count() > options.timeoutSeconds) {
      return fail(i, "timeout: file exceeded " + std::to_string(static_cast<int>(options.timeoutSeconds)) + " s");
    }
    if (BlockResult r = runBlock(*db, blocks[i])) return fail(i, std::move(*r));
    ++out.blocksPassed;
    if (onBlockPassed) onBlockPassed(out.blocksPassed);
  }
  out.passed = true;
  return out;
}

std::string describeFailure(const FileOutcome& outcome) {
  if (outcome.failedBlock == 0) return outcome.failure;
  return "block " + std::to_string(outcome.failedBlock) + " (line " + std::to_string(outcome.failedLine) +
         "): " + outcome.failure;
}

}  // namespace optic::sqllogic
