// JSON built-ins: json, json_valid, json_schema, json_type, json_extract, json_array, json_object,
// json_array_length, json_insert, json_replace, json_set, json_remove, json_patch, json_quote,
// the json_group_array/json_group_object aggregates and the json_each/json_tree table functions.
//
// Inputs: a JSON value is used as is, text is parsed (invalid text makes most functions return
// NULL), numbers and booleans are JSON scalars, and a SQL NULL is JSON null for the inspecting
// functions. Values put into a document (json_array, json_object, json_set …) are taken
// literally — text becomes a JSON string — except that blobs and non-finite reals become null,
// as the reference engine does. Paths: `$`, `.key`, `."quoted key"`, `[N]`, `[#-N]`, and `[#]`
// (one past the end) for the writers; an invalid path is skipped by the writers and yields NULL
// for the readers. A writer whose path argument is not text returns NULL. json_patch applies an
// RFC 6902 operation list, as the reference does; anything else (an object too) or any failure is
// NULL. json_quote of a blob or of an integer beyond 2^53 - 1 (a JS bigint) is NULL.
#include <algorithm>
#include <cmath>

#include "core/common/json.h"
#include "core/common/json_type.h"
#include "core/execution/functions/function_util.h"

namespace optic {

namespace {

// ---- values in and out ---------------------------------------------------------------------

// A document to read from: nullopt when the value is text (or a blob) that does not parse.
std::optional<Json> inputJson(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kText:
    case ValueKind::kBlob: {
      std::shared_ptr<const JsonDoc> d = parseJson(toText(v));
      if (!d) return std::nullopt;
      return d->doc;
    }
    default:
      return valueToJson(v);
  }
}

// A SQL value put into a document.
Json memberJson(const Value& v) {
  if (v.kind() == ValueKind::kBlob) return Json(nullptr);
  if (v.kind() == ValueKind::kReal && !std::isfinite(v.asReal())) return Json(nullptr);
  return valueToJson(v);
}

Value jsonResult(Json j) {
  if (j.is_object() || j.is_array()) return Value::json(makeJson(std::move(j)));
  return jsonToValue(j);
}

const char* jsonTypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return j.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: return "real";
    case Json::value_t::string: return "text";
    case Json::value_t::array: return "array";
    case Json::value_t::object: return "object";
    default: return "null";
  }
}

// ---- paths ---------------------------------------------------------------------------------

struct PathStep {
  bool isIndex = false;
  std::string key;
  int64_t index = 0;
  bool fromEnd = false;  // [#-N]: index counts back from the end; [#] is fromEnd with 0
};

std::optional<std::vector<PathStep>> parsePath(std::string_view p) {
  if (p.empty() || p[0] != '$') return std::nullopt;
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < p.size()) {
    PathStep s;
    if (p[i] == '.') {
      ++i;
      if (i < p.size() && p[i] == '"') {
        size_t close = p.find('"', i + 1);
        if (close == std::string_view::npos) return std::nullopt;
        s.key = std::string(p.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        size_t end = i;
        while (end < p.size() && p[end] != '.' && p[end] != '[') ++end;
        if (end == i) return std::nullopt;
        s.key = std::string(p.substr(i, end - i));
        i = end;
      }
    } else if (p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inner = p.substr(i + 1, close - i - 1);
      s.isIndex = true;
      if (!inner.empty() && inner[0] == '#') {
        s.fromEnd = true;
        inner.remove_prefix(1);
        if (!inner.empty()) {
          if (inner[0] != '-') return std::nullopt;
          inner.remove_prefix(1);
          if (inner.empty()) return std::nullopt;
        }
      } else if (inner.empty()) {
        return std::nullopt;
      }
      for (char c : inner) {
        if (c < '0' || c > '9') return std::nullopt;
        s.index = s.index * 10 + (c - '0');
        if (s.index > (int64_t(1) << 40)) return std::nullopt;
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

// The array position a step names, or -1 (may equal size() for [#]).
int64_t resolveIndex(const Json& array, const PathStep& s) {
  int64_t n = static_cast<int64_t>(array.size());
  int64_t i = s.fromEnd ? n - s.index : s.index;
  return i < 0 ? -1 : i;
}

Json* child(Json& node, const PathStep& s) {
  if (s.isIndex) {
    if (!node.is_array()) return nullptr;
    int64_t i = resolveIndex(node, s);
    return i >= 0 && i < static_cast<int64_t>(node.size()) ? &node[static_cast<size_t>(i)] : nullptr;
  }
  if (!node.is_object()) return nullptr;
  auto it = node.find(s.key);
  return it == node.end() ? nullptr : &*it;
}

Json* locate(Json& root, const std::vector<PathStep>& steps, size_t count) {
  Json* node = &root;
  for (size_t k = 0; k < count && node != nullptr; ++k) node = child(*node, steps[k]);
  return node;
}

// Reader: the node at a textual path; nullptr when the path is invalid or misses.
const Json* lookup(const Json& root, const Value& path) {
  if (!path.isText()) return nullptr;
  std::optional<std::vector<PathStep>> steps = parsePath(path.asText());
  if (!steps) return nullptr;
  return locate(const_cast<Json&>(root), *steps, steps->size());
}

enum class WriteMode { kInsert, kReplace, kSet };

// Applies one path/value pair. Missing parents are never created.
void writePath(Json& root, const std::vector<PathStep>& steps, Json value, WriteMode mode) {
  if (steps.empty()) {
    if (mode != WriteMode::kInsert) root = std::move(value);
    return;
  }
  Json* parent = locate(root, steps, steps.size() - 1);
  if (parent == nullptr) return;
  const PathStep& last = steps.back();
  Json* existing = child(*parent, last);
  if (existing != nullptr) {
    if (mode != WriteMode::kInsert) *existing = std::move(value);
    return;
  }
  if (mode == WriteMode::kReplace) return;
  if (last.isIndex) {
    if (!parent->is_array()) return;
    int64_t i = resolveIndex(*parent, last);
    if (i < 0) return;
    // json_insert appends at the end only; json_set pads a gap with nulls.
    if (mode == WriteMode::kInsert && i > static_cast<int64_t>(parent->size())) return;
    while (static_cast<int64_t>(parent->size()) < i) parent->push_back(Json(nullptr));
    parent->push_back(std::move(value));
  } else if (parent->is_object()) {
    (*parent)[last.key] = std::move(value);
  }
}

void removePath(Json& root, const std::vector<PathStep>& steps) {
  if (steps.empty()) return;
  Json* parent = locate(root, steps, steps.size() - 1);
  if (parent == nullptr) return;
  const PathStep& last = steps.back();
  if (last.isIndex) {
    if (!parent->is_array()) return;
    int64_t i = resolveIndex(*parent, last);
    if (i >= 0 && i < static_cast<int64_t>(parent->size())) parent->erase(static_cast<size_t>(i));
  } else if (parent->is_object()) {
    parent->erase(last.key);
  }
}

// ---- scalar implementations ----------------------------------------------------------------

Value jsonValue(Args a, FunctionContext&) { return fn::convertOrThrow(a[0], LogicalType::kJson); }

Value jsonValidValue(Args a, FunctionContext&) {
  if (a[0].isNull()) return Value::boolean(false);
  return Value::boolean(inputJson(a[0]).has_value());
}

// json_schema(doc, type): whether the document fits the type expression (json_type.h). False,
// never an error, for a NULL or unparsable document and for a type that is not text or not valid.
Value jsonSchemaValue(Args a, FunctionContext&) {
  if (a[0].isNull() || !a[1].isText()) return Value::boolean(false);
  std::optional<Json> doc = inputJson(a[0]);
  if (!doc) return Value::boolean(false);
  std::shared_ptr<const JsonType> type = JsonType::parse(a[1].asText());
  return Value::boolean(type && type->matches(*doc));
}

Value jsonTypeValue(Args a, FunctionContext&) {
  std::optional<Json> doc = inputJson(a[0]);
  if (!doc) return Value();
  if (a.size() < 2) return Value::text(jsonTypeName(*doc));
  if (!a[1].isText()) return Value::text("null");
  const Json* node = lookup(*doc, a[1]);
  return node == nullptr ? Value() : Value::text(jsonTypeName(*node));
}

// json_extract(doc, path, …): the first path that resolves wins.
Value jsonExtractValue(Args a, FunctionContext&) {
  if (a[0].isNull()) return Value();
  std::optional<Json> doc = inputJson(a[0]);
  if (!doc) return Value();
  for (size_t i = 1; i < a.size(); ++i) {
    if (const Json* node = lookup(*doc, a[i])) return jsonResult(*node);
  }
  return Value();
}

Value jsonArrayValue(Args a, FunctionContext&) {
  Json out = Json::array();
  for (const Value& v : a) out.push_back(memberJson(v));
  return jsonResult(std::move(out));
}

Value jsonObjectValue(Args a, FunctionContext&) {
  if (a.size() % 2 != 0) return Value();
  Json out = Json::object();
  for (size_t i = 0; i < a.size(); i += 2) {
    if (!a[i].isText()) return Value();
    out[a[i].asText()] = memberJson(a[i + 1]);
  }
  return jsonResult(std::move(out));
}

Value jsonArrayLengthValue(Args a, FunctionContext&) {
  std::optional<Json> doc = inputJson(a[0]);
  if (!doc) return Value();
  const Json* node = &*doc;
  if (a.size() > 1) node = lookup(*doc, a[1]);
  return Value::integer(node != nullptr && node->is_array() ? static_cast<int64_t>(node->size()) : 0);
}

ScalarImpl jsonWriter(WriteMode mode) {
  return [mode](Args a, FunctionContext&) -> Value {
    if (a.size() < 3 || a.size() % 2 == 0 || a[0].isNull()) return Value();
    std::optional<Json> doc = inputJson(a[0]);
    if (!doc) return Value();
    for (size_t i = 1; i < a.size(); i += 2) {
      if (!a[i].isText()) return Value();
      if (std::optional<std::vector<PathStep>> steps = parsePath(a[i].asText())) {
        writePath(*doc, *steps, memberJson(a[i + 1]), mode);
      }
    }
    return jsonResult(std::move(*doc));
  };
}

Value jsonRemoveValue(Args a, FunctionContext&) {
  if (a[0].isNull()) return Value();
  std::optional<Json> doc = inputJson(a[0]);
  if (!doc) return Value();
  for (size_t i = 1; i < a.size(); ++i) {
    if (!a[i].isText()) return Value();
    if (std::optional<std::vector<PathStep>> steps = parsePath(a[i].asText())) removePath(*doc, *steps);
  }
  return jsonResult(std::move(*doc));
}

// RFC 6902 via nlohmann's patch(); it throws on a malformed operation or a missing path.
Value jsonPatchValue(Args a, FunctionContext&) {
  if (fn::anyNull(a)) return Value();
  std::optional<Json> doc = inputJson(a[0]);
  std::optional<Json> patch = inputJson(a[1]);
  if (!doc || !patch) return Value();
  try {
    if (!patch->is_array()) return Value();  // an operation list only, as the reference
    return jsonResult(doc->patch(*patch));
  } catch (const std::exception&) {
    return Value();
  }
}

// A blob has no JSON spelling: NULL, as in the reference (inside a document it becomes null).
// Neither has an integer beyond 2^53 - 1, which the reference holds as a bigint.
Value jsonQuoteValue(Args a, FunctionContext&) {
  constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;
  if (a[0].kind() == ValueKind::kBlob || a[0].kind() == ValueKind::kBigInt) return Value();
  if (a[0].kind() == ValueKind::kInteger && (a[0].asInt() > kMaxSafeInteger || a[0].asInt() < -kMaxSafeInteger)) {
    return Value();
  }
  return Value::text(serializeJson(memberJson(a[0])));
}

// ---- aggregates ----------------------------------------------------------------------------

class GroupArrayState : public AggregateState {
 public:
  void step(Args a) override { out_.push_back(memberJson(a[0])); }
  Value finish() override { return out_.empty() ? Value() : jsonResult(out_); }

 private:
  Json out_ = Json::array();
};

// NULL keys are skipped; a repeated key keeps its first position and takes the last value.
class GroupObjectState : public AggregateState {
 public:
  void step(Args a) override {
    if (a[0].isNull()) return;
    out_[fn::textArg(a[0])] = memberJson(a[1]);
  }
  Value finish() override { return out_.empty() ? Value() : jsonResult(out_); }

 private:
  Json out_ = Json::object();
};

// ---- table functions -----------------------------------------------------------------------

// One json_each/json_tree row: key, value, type, atom, id, parent, fullkey, path. Containers
// report their JSON text as value and NULL as atom.
Row treeRow(Value key, const Json& node, int64_t id, Value parent, std::string fullkey, std::string path) {
  bool container = node.is_object() || node.is_array();
  Value scalar = container ? Value() : jsonToValue(node);
  Value value = container ? Value::text(serializeJson(node)) : scalar;
  return Row{std::move(key), std::move(value), Value::text(jsonTypeName(node)), scalar,
             Value::integer(id), std::move(parent), Value::text(std::move(fullkey)), Value::text(std::move(path))};
}

// The node a table function walks from: the document, or the node at the optional root path.
const Json* tableRoot(Args a, std::optional<Json>& doc, const char* fnName) {
  doc = inputJson(a[0]);
  if (!doc) fail(std::string("Error: Invalid JSON provided to ") + fnName);
  if (a.size() > 1 && a[1].isText() && !a[1].asText().empty()) return lookup(*doc, a[1]);
  return &*doc;
}

// Object members in sorted key order, as the reference walks them.
std::vector<std::string> sortedKeys(const Json& obj) {
  std::vector<std::string> keys;
  for (auto it = obj.begin(); it != obj.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<Row> jsonEach(Args a, FunctionContext&) {
  std::optional<Json> doc;
  const Json* root = tableRoot(a, doc, "json_each");
  std::vector<Row> rows;
  if (root == nullptr) return rows;
  int64_t id = 0;
  if (root->is_array()) {
    for (size_t i = 0; i < root->size(); ++i) {
      rows.push_back(treeRow(Value::integer(static_cast<int64_t>(i)), (*root)[i], id++, Value(),
                             "[" + std::to_string(i) + "]", ""));
    }
  } else if (root->is_object()) {
    for (const std::string& k : sortedKeys(*root)) {
      rows.push_back(treeRow(Value::text(k), (*root)[k], id++, Value(), "." + k, ""));
    }
  } else {
    rows.push_back(treeRow(Value(), *root, id, Value(), "", ""));
  }
  return rows;
}

// Pre-order walk; the root has id 1 and parent 0, children point at their parent's id.
void walkTree(const Json& node, Value key, const std::string& path, int64_t parent, int64_t& nextId,
              std::vector<Row>& rows) {
  std::string fullkey = path;
  if (key.kind() == ValueKind::kInteger) fullkey += "[" + std::to_string(key.asInt()) + "]";
  else if (key.isText()) fullkey += "." + key.asText();
  int64_t id = ++nextId;
  rows.push_back(treeRow(key, node, id, Value::integer(parent), fullkey, path));
  if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      walkTree(node[i], Value::integer(static_cast<int64_t>(i)), fullkey, id, nextId, rows);
    }
  } else if (node.is_object()) {
    for (const std::string& k : sortedKeys(node)) walkTree(node[k], Value::text(k), fullkey, id, nextId, rows);
  }
}

std::vector<Row> jsonTree(Args a, FunctionContext&) {
  std::optional<Json> doc;
  const Json* root = tableRoot(a, doc, "json_tree");
  std::vector<Row> rows;
  int64_t nextId = 0;
  if (root != nullptr) walkTree(*root, Value(), "", 0, nextId, rows);
  return rows;
}

template <typename State>
void addJsonAggregate(FunctionRegistry& r, std::string name, int nargs) {
  AggregateFunction f;
  f.name = std::move(name);
  f.minArgs = f.maxArgs = nargs;
  f.returnType = LogicalType::kJson;
  f.coercesNumericText = false;  // json_* aggregates keep text as text
  f.create = [](Collation, LogicalType) { return std::unique_ptr<AggregateState>(new State()); };
  r.addAggregate(std::move(f));
}

void addTreeFunction(FunctionRegistry& r, std::string name,
                     std::function<std::vector<Row>(Args, FunctionContext&)> impl) {
  TableFunction f;
  f.name = std::move(name);
  f.minArgs = 1;
  f.maxArgs = 2;
  f.columns = {"key", "value", "type", "atom", "id", "parent", "fullkey", "path"};
  f.impl = std::move(impl);
  r.addTable(std::move(f));
}

}  // namespace

void registerJsonFunctions(FunctionRegistry& r) {
  const LogicalType json = LogicalType::kJson;
  fn::addScalar(r, "json", 1, 1, json, jsonValue);
  fn::addScalar(r, "json_valid", 1, 1, LogicalType::kBoolean, jsonValidValue);
  fn::addScalar(r, "json_type", 1, 2, LogicalType::kText, jsonTypeValue);
  fn::addScalar(r, "json_schema", 2, 2, LogicalType::kBoolean, jsonSchemaValue);
  // Deliberately ANY: the result's class depends on the data (06.5.3).
  fn::addScalar(r, "json_extract", 1, -1, LogicalType::kAny, jsonExtractValue);
  fn::addScalar(r, "json_array", 0, -1, json, jsonArrayValue);
  fn::addScalar(r, "json_object", 0, -1, json, jsonObjectValue);
  fn::addScalar(r, "json_array_length", 1, 2, LogicalType::kInteger, jsonArrayLengthValue);
  fn::addScalar(r, "json_insert", 1, -1, json, jsonWriter(WriteMode::kInsert));
  fn::addScalar(r, "json_replace", 1, -1, json, jsonWriter(WriteMode::kReplace));
  fn::addScalar(r, "json_set", 1, -1, json, jsonWriter(WriteMode::kSet));
  fn::addScalar(r, "json_remove", 1, -1, json, jsonRemoveValue);
  fn::addScalar(r, "json_patch", 2, 2, json, jsonPatchValue);
  fn::addScalar(r, "json_quote", 1, 1, LogicalType::kText, jsonQuoteValue);
  addJsonAggregate<GroupArrayState>(r, "json_group_array", 1);
  addJsonAggregate<GroupObjectState>(r, "json_group_object", 2);
  addTreeFunction(r, "json_each", jsonEach);
  addTreeFunction(r, "json_tree", jsonTree);
}

}  // namespace optic
