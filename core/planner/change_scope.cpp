// Change-scope analysis, canonical form, JSON forms and the scope lattice (change_scope.h).
#include "core/planner/change_scope.h"

#include <algorithm>
#include <functional>

#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/common/bigint.h"
#include "core/common/collation.h"
#include "core/common/error.h"
#include "core/common/logical_type.h"
#include "core/parser/ast.h"
#include "core/planner/binder.h"
#include "core/planner/predicates.h"

namespace optic {

namespace {

constexpr int64_t kMaxSafeInteger = 9007199254740991;  // 2^53 − 1
constexpr size_t kMaxPinnedTuples = 1024;              // more alternatives: watch the table

[[noreturn]] void malformed(const std::string& what) {
  throw Error(ErrorCode::kMisuse, "malformed change scope: " + what);
}

const char* kindName(WatchKind k) {
  switch (k) {
    case WatchKind::kFull: return "full";
    case WatchKind::kRows: return "rows";
    case WatchKind::kGroups: return "groups";
    case WatchKind::kRowsByGroup: return "rowsByGroup";
  }
  return "full";
}

WatchKind kindFromName(const std::string& s) {
  if (s == "full") return WatchKind::kFull;
  if (s == "rows") return WatchKind::kRows;
  if (s == "groups") return WatchKind::kGroups;
  if (s == "rowsByGroup") return WatchKind::kRowsByGroup;
  malformed("unknown scope kind '" + s + "'");
}

bool hasValues(WatchKind k) { return k == WatchKind::kRows || k == WatchKind::kRowsByGroup; }
const char* columnsField(WatchKind k) { return k == WatchKind::kRows ? "key" : "groupBy"; }

Json paramIndexToJson(const ParamIndex& p) {
  if (const int64_t* n = std::get_if<int64_t>(&p)) return Json(*n);
  return Json(std::get<std::string>(p));
}

ParamIndex paramIndexFromJson(const Json& j) {
  if (j.is_number_integer()) return ParamIndex(j.get<int64_t>());
  if (j.is_string()) return ParamIndex(j.get<std::string>());
  malformed("parameter index must be a number or a string");
}

Json typeToJson(const PortableScalarType& t) {
  Json j = Json::object();
  j["typeName"] = t.typeName;
  j["nullable"] = t.nullable;
  if (!t.collationName.empty()) j["collationName"] = t.collationName;
  return j;
}

PortableScalarType typeFromJson(const Json& j) {
  if (!j.is_object() || !j.contains("typeName") || !j["typeName"].is_string()) malformed("parameter type");
  PortableScalarType t;
  t.typeName = j["typeName"].get<std::string>();
  t.nullable = j.value("nullable", true);
  if (j.contains("collationName") && j["collationName"].is_string()) t.collationName = j["collationName"].get<std::string>();
  return t;
}

const char* nonDetKindName(NonDetSource::Kind k) {
  switch (k) {
    case NonDetSource::Kind::kTime: return "time";
    case NonDetSource::Kind::kRandom: return "random";
    case NonDetSource::Kind::kVolatileUdf: return "volatileUdf";
    case NonDetSource::Kind::kParameter: return "parameter";
  }
  return "time";
}

Json nonDetToJson(const NonDetSource& s) {
  Json j = Json::object();
  j["kind"] = nonDetKindName(s.kind);
  if (s.kind == NonDetSource::Kind::kVolatileUdf) j["name"] = s.name;
  if (s.kind == NonDetSource::Kind::kParameter) j["index"] = paramIndexToJson(s.index);
  return j;
}

NonDetSource nonDetFromJson(const Json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) malformed("non-deterministic source");
  std::string k = j["kind"].get<std::string>();
  NonDetSource s;
  if (k == "time") s.kind = NonDetSource::Kind::kTime;
  else if (k == "random") s.kind = NonDetSource::Kind::kRandom;
  else if (k == "volatileUdf") {
    s.kind = NonDetSource::Kind::kVolatileUdf;
    if (!j.contains("name") || !j["name"].is_string()) malformed("volatileUdf without a name");
    s.name = j["name"].get<std::string>();
  } else if (k == "parameter") {
    s.kind = NonDetSource::Kind::kParameter;
    if (!j.contains("index")) malformed("parameter source without an index");
    s.index = paramIndexFromJson(j["index"]);
  } else {
    malformed("unknown non-deterministic source '" + k + "'");
  }
  return s;
}

Json wireValue(const ScopeValue& v) {
  Json j = Json::object();
  if (v.param) {
    j["p"] = paramIndexToJson(v.param->index);
    j["t"] = typeToJson(v.param->type);
  } else {
    j["v"] = scopeValueToJson(v.value);
  }
  return j;
}

ScopeValue wireValueFrom(const Json& j) {
  if (!j.is_object()) malformed("scope value must be {\"v\": …} or {\"p\": …, \"t\": …}");
  if (j.contains("p")) {
    ParamScopeValue p;
    p.index = paramIndexFromJson(j["p"]);
    p.type = j.contains("t") ? typeFromJson(j["t"]) : PortableScalarType{};
    return ScopeValue::placeholder(std::move(p));
  }
  if (!j.contains("v")) malformed("scope value without \"v\" or \"p\"");
  return ScopeValue::literal(scopeValueFromJson(j["v"]));
}

Json liveValue(const ScopeValue& v) {
  if (!v.param) return scopeValueToJson(v.value);
  return Json{{"kind", "param"}, {"index", paramIndexToJson(v.param->index)}, {"type", typeToJson(v.param->type)}};
}

// A watch scope, with values in the live (`wire` false) or the wire encoding.
Json scopeJson(const WatchScope& s, bool wire) {
  Json j = Json::object();
  j["kind"] = kindName(s.kind);
  if (s.kind != WatchKind::kFull) j[columnsField(s.kind)] = s.columns;
  if (hasValues(s.kind)) {
    Json vals = Json::array();
    for (const auto& tuple : s.values) {
      Json t = Json::array();
      for (const ScopeValue& v : tuple) t.push_back(wire ? wireValue(v) : liveValue(v));
      vals.push_back(std::move(t));
    }
    j["values"] = std::move(vals);
  }
  return j;
}

Json wireScope(const WatchScope& s) { return scopeJson(s, true); }

Json watchJson(const TableWatch& w, bool wire) {
  Json j = Json::object();
  j["table"] = Json{{"schema", w.schema}, {"table", w.table}};
  if (w.allColumns) j["columns"] = "all";
  else j["columns"] = Json(std::vector<std::string>(w.columns.begin(), w.columns.end()));
  j["scope"] = scopeJson(w.scope, wire);
  return j;
}

Json scopeDocument(const ChangeScope& s, bool wire) {
  Json j = Json::object();
  Json w = Json::array();
  for (const TableWatch& t : s.watches) w.push_back(watchJson(t, wire));
  j["watches"] = std::move(w);
  Json n = Json::array();
  for (const NonDetSource& x : s.nonDeterministicSources) n.push_back(nonDetToJson(x));
  j["nonDeterministicSources"] = std::move(n);
  Json u = Json::array();
  for (const ParamIndex& p : s.unboundParameters) u.push_back(paramIndexToJson(p));
  j["unboundParameters"] = std::move(u);
  return j;
}

std::string valueKey(const ScopeValue& v) { return canonicalJson(wireValue(v)); }

std::string tupleKey(const std::vector<ScopeValue>& t) {
  std::string out;
  for (const ScopeValue& v : t) {
    out += valueKey(v);
    out += '\x1f';
  }
  return out;
}

std::string paramKey(const ParamIndex& p) {
  // Positions sort before names, positions numerically.
  if (const int64_t* n = std::get_if<int64_t>(&p)) {
    std::string digits = std::to_string(*n);
    return std::string(1, '0') + std::string(20 - std::min<size_t>(20, digits.size()), '0') + digits;
  }
  return "1" + std::get<std::string>(p);
}

void sortValues(std::vector<std::vector<ScopeValue>>& values) {
  std::vector<std::pair<std::string, std::vector<ScopeValue>>> keyed;
  for (auto& t : values) keyed.emplace_back(tupleKey(t), std::move(t));
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  values.clear();
  for (size_t i = 0; i < keyed.size(); ++i) {
    if (i > 0 && keyed[i].first == keyed[i - 1].first) continue;
    values.push_back(std::move(keyed[i].second));
  }
}

void sortParams(std::vector<ParamIndex>& ps) {
  std::sort(ps.begin(), ps.end(), [](const ParamIndex& a, const ParamIndex& b) { return paramKey(a) < paramKey(b); });
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
}

void sortNonDet(std::vector<NonDetSource>& ss) {
  std::vector<std::pair<std::string, NonDetSource>> keyed;
  for (auto& s : ss) {
    std::string k = canonicalJson(nonDetToJson(s));
    if (s.kind == NonDetSource::Kind::kParameter) k = "parameter:" + paramKey(s.index);
    keyed.emplace_back(std::move(k), std::move(s));
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ss.clear();
  for (size_t i = 0; i < keyed.size(); ++i) {
    if (i > 0 && keyed[i].first == keyed[i - 1].first) continue;
    ss.push_back(std::move(keyed[i].second));
  }
}

std::string watchSortKey(const TableWatch& w) {
  return w.schema + '\x1f' + w.table + '\x1f' + kindName(w.scope.kind) + '\x1f' + canonicalJson(wireScope(w.scope));
}

void mergeColumns(TableWatch& into, const TableWatch& from) {
  if (into.allColumns || from.allColumns) {
    into.allColumns = true;
    into.columns.clear();
    return;
  }
  into.columns.insert(from.columns.begin(), from.columns.end());
}

void collapseToFull(TableWatch& w) {
  w.scope.kind = WatchKind::kFull;
  w.scope.columns.clear();
  w.scope.values.clear();
}

bool isSubset(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::all_of(a.begin(), a.end(), [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

// The widening of two watches of one table.
void unionInto(TableWatch& into, const TableWatch& from) {
  mergeColumns(into, from);
  WatchScope& a = into.scope;
  const WatchScope& b = from.scope;
  if (a.kind == WatchKind::kFull) return;
  if (b.kind == WatchKind::kFull || a.kind != b.kind) return collapseToFull(into);
  if (a.kind == WatchKind::kGroups) {
    if (isSubset(b.columns, a.columns)) a.columns = b.columns;
    else if (!isSubset(a.columns, b.columns)) collapseToFull(into);
    return;
  }
  if (a.columns != b.columns) return collapseToFull(into);
  a.values.insert(a.values.end(), b.values.begin(), b.values.end());
  sortValues(a.values);
}

// The narrowing of two watches of one table; false when nothing is left to watch.
bool intersectInto(TableWatch& into, const TableWatch& from) {
  if (into.allColumns) {
    into.allColumns = from.allColumns;
    into.columns = from.columns;
  } else if (!from.allColumns) {
    std::set<std::string> both;
    std::set_intersection(into.columns.begin(), into.columns.end(), from.columns.begin(), from.columns.end(),
                          std::inserter(both, both.begin()));
    into.columns = std::move(both);
  }
  WatchScope& a = into.scope;
  const WatchScope& b = from.scope;
  if (b.kind == WatchKind::kFull) return true;
  if (a.kind == WatchKind::kFull) {
    a = b;
    return true;
  }
  if (a.kind != b.kind || a.columns != b.columns) return false;
  if (!hasValues(a.kind)) return true;
  std::set<std::string> theirs;
  for (const auto& t : b.values) theirs.insert(tupleKey(t));
  std::vector<std::vector<ScopeValue>> kept;
  for (auto& t : a.values) if (theirs.count(tupleKey(t))) kept.push_back(std::move(t));
  a.values = std::move(kept);
  return !a.values.empty();
}

std::vector<TableWatch> mergeByTable(std::vector<TableWatch> watches) {
  std::map<std::pair<std::string, std::string>, TableWatch> byTable;
  for (TableWatch& w : watches) {
    auto key = std::make_pair(w.schema, w.table);
    auto it = byTable.find(key);
    if (it == byTable.end()) byTable.emplace(key, std::move(w));
    else unionInto(it->second, w);
  }
  std::vector<TableWatch> out;
  for (auto& [k, w] : byTable) out.push_back(std::move(w));
  return out;
}

ParamIndex indexOfSlot(int slot, const std::vector<std::string>& names) {
  if (slot >= 1 && static_cast<size_t>(slot) <= names.size() && !names[slot - 1].empty()) {
    return ParamIndex(names[slot - 1]);
  }
  return ParamIndex(static_cast<int64_t>(slot));
}

PortableScalarType portableTypeOf(const ColumnSchema& c) {
  PortableScalarType t;
  t.typeName = std::string(logicalTypeName(c.type));
  std::transform(t.typeName.begin(), t.typeName.end(), t.typeName.begin(), [](unsigned char ch) { return std::toupper(ch); });
  t.nullable = !c.notNull;
  if (c.collation != Collation::kBinary) t.collationName = std::string(collationName(c.collation));
  return t;
}


// A pin value: a literal or a parameter, else nullopt.
std::optional<TableRead::Pinned> pinValueOf(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::kLiteral) return TableRead::Pinned{e.value, nullptr, 0};
  if (e.kind == ast::ExprKind::kParam) return TableRead::Pinned{Value(), &e, 0};
  return std::nullopt;
}

}  // namespace

// ---- JSON ------------------------------------------------------------------------------------

Json scopeValueToJson(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return Json(nullptr);
    case ValueKind::kInteger: {
      int64_t n = v.asInt();
      if (n > kMaxSafeInteger || n < -kMaxSafeInteger) return Json{{"$bigint", std::to_string(n)}};
      return Json(n);
    }
    case ValueKind::kBigInt: return Json{{"$bigint", v.asBigInt().toString()}};
    case ValueKind::kReal: return Json(v.asReal());
    case ValueKind::kText: return Json(v.asText());
    case ValueKind::kBoolean: return Json(v.asBool());
    case ValueKind::kBlob: {
      static const char* kHex = "0123456789abcdef";
      std::string hex;
      for (uint8_t b : v.asBlob()) {
        hex += kHex[b >> 4];
        hex += kHex[b & 15];
      }
      return Json{{"$blob", hex}};
    }
    case ValueKind::kJson: return v.asJson().doc;
  }
  return Json(nullptr);
}

Value scopeValueFromJson(const Json& j) {
  if (j.is_object() && j.size() == 1 && j.contains("$bigint") && j["$bigint"].is_string()) {
    std::optional<BigInt> b = BigInt::parse(j["$bigint"].get<std::string>());
    if (!b) malformed("bad $bigint");
    return Value::fromBigInt(*b);
  }
  if (j.is_object() && j.size() == 1 && j.contains("$blob") && j["$blob"].is_string()) {
    const std::string& hex = j["$blob"].get_ref<const std::string&>();
    if (hex.size() % 2) malformed("bad $blob");
    Bytes out;
    auto nib = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      malformed("bad $blob");
    };
    for (size_t i = 0; i < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(nib(hex[i]) * 16 + nib(hex[i + 1])));
    return Value::blob(std::move(out));
  }
  if (j.is_number_integer()) return Value::integer(j.get<int64_t>());
  return jsonToValue(j);
}

Json tableWatchToJson(const TableWatch& w) { return watchJson(w, false); }
Json changeScopeToJson(const ChangeScope& s) { return scopeDocument(s, false); }
Json serializeChangeScope(const ChangeScope& s) { return scopeDocument(s, true); }

ChangeScope deserializeChangeScope(const Json& j) {
  if (!j.is_object()) malformed("expected an object");
  ChangeScope s;
  if (j.contains("watches")) {
    if (!j["watches"].is_array()) malformed("watches must be an array");
    for (const Json& x : j["watches"]) {
      if (!x.is_object() || !x.contains("table") || !x["table"].is_object()) malformed("watch without a table");
      TableWatch w;
      const Json& t = x["table"];
      if (!t.contains("table") || !t["table"].is_string()) malformed("watch table name");
      w.schema = lowerName(t.value("schema", std::string("main")));
      w.table = lowerName(t["table"].get<std::string>());
      const Json cols = x.value("columns", Json("all"));
      if (cols.is_string() && cols.get<std::string>() == "all") {
        w.allColumns = true;
      } else if (cols.is_array()) {
        w.allColumns = false;
        for (const Json& c : cols) {
          if (!c.is_string()) malformed("column names must be strings");
          w.columns.insert(lowerName(c.get<std::string>()));
        }
      } else {
        malformed("columns must be \"all\" or an array");
      }
      const Json sc = x.value("scope", Json{{"kind", "full"}});
      if (!sc.is_object() || !sc.contains("kind") || !sc["kind"].is_string()) malformed("watch scope");
      w.scope.kind = kindFromName(sc["kind"].get<std::string>());
      if (w.scope.kind != WatchKind::kFull) {
        const char* field = columnsField(w.scope.kind);
        if (!sc.contains(field) || !sc[field].is_array()) malformed(std::string("scope without ") + field);
        for (const Json& c : sc[field]) {
          if (!c.is_string()) malformed("key column names must be strings");
          w.scope.columns.push_back(lowerName(c.get<std::string>()));
        }
      }
      if (hasValues(w.scope.kind)) {
        if (!sc.contains("values") || !sc["values"].is_array()) malformed("scope without values");
        for (const Json& tuple : sc["values"]) {
          if (!tuple.is_array() || tuple.size() != w.scope.columns.size()) malformed("value tuple width");
          std::vector<ScopeValue> vs;
          for (const Json& v : tuple) vs.push_back(wireValueFrom(v));
          w.scope.values.push_back(std::move(vs));
        }
      }
      s.watches.push_back(std::move(w));
    }
  }
  if (j.contains("nonDeterministicSources")) {
    if (!j["nonDeterministicSources"].is_array()) malformed("nonDeterministicSources must be an array");
    for (const Json& x : j["nonDeterministicSources"]) s.nonDeterministicSources.push_back(nonDetFromJson(x));
  }
  if (j.contains("unboundParameters")) {
    if (!j["unboundParameters"].is_array()) malformed("unboundParameters must be an array");
    for (const Json& x : j["unboundParameters"]) s.unboundParameters.push_back(paramIndexFromJson(x));
  }
  canonicalize(s);
  return s;
}

// ---- helpers ---------------------------------------------------------------------------------

void canonicalize(ChangeScope& s) {
  for (TableWatch& w : s.watches) {
    if (!w.allColumns && w.columns.empty()) w.allColumns = true;  // reads no column: the whole row
    if (w.allColumns) w.columns.clear();
    if (hasValues(w.scope.kind)) sortValues(w.scope.values);
  }
  std::vector<std::pair<std::string, TableWatch>> keyed;
  for (TableWatch& w : s.watches) {
    std::string k = watchSortKey(w);
    if (!w.allColumns) for (const std::string& c : w.columns) k += '\x1f' + c;
    keyed.emplace_back(std::move(k), std::move(w));
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  s.watches.clear();
  for (size_t i = 0; i < keyed.size(); ++i) {
    if (i > 0 && keyed[i].first == keyed[i - 1].first) continue;
    s.watches.push_back(std::move(keyed[i].second));
  }
  sortNonDet(s.nonDeterministicSources);
  sortParams(s.unboundParameters);
}

ChangeScope bindParameters(const ChangeScope& in, const std::map<ParamIndex, Value>& bound) {
  ChangeScope s = in;
  for (TableWatch& w : s.watches) {
    for (auto& tuple : w.scope.values) {
      for (ScopeValue& v : tuple) {
        if (!v.param) continue;
        auto it = bound.find(v.param->index);
        if (it == bound.end()) continue;
        v = ScopeValue::literal(it->second);
      }
    }
  }
  std::erase_if(s.unboundParameters, [&](const ParamIndex& p) { return bound.count(p) > 0; });
  std::erase_if(s.nonDeterministicSources, [&](const NonDetSource& n) {
    return n.kind == NonDetSource::Kind::kParameter && bound.count(n.index) > 0;
  });
  canonicalize(s);
  return s;
}

ChangeScope unionScopes(const ChangeScope& a, const ChangeScope& b) {
  ChangeScope s;
  s.watches = a.watches;
  s.watches.insert(s.watches.end(), b.watches.begin(), b.watches.end());
  s.watches = mergeByTable(std::move(s.watches));
  s.nonDeterministicSources = a.nonDeterministicSources;
  s.nonDeterministicSources.insert(s.nonDeterministicSources.end(), b.nonDeterministicSources.begin(),
                                   b.nonDeterministicSources.end());
  s.unboundParameters = a.unboundParameters;
  s.unboundParameters.insert(s.unboundParameters.end(), b.unboundParameters.begin(), b.unboundParameters.end());
  canonicalize(s);
  return s;
}

ChangeScope intersectScopes(const ChangeScope& a, const ChangeScope& b) {
  std::vector<TableWatch> left = mergeByTable(a.watches);
  std::vector<TableWatch> right = mergeByTable(b.watches);
  ChangeScope s;
  for (TableWatch& w : left) {
    for (const TableWatch& o : right) {
      if (o.schema != w.schema || o.table != w.table) continue;
      if (intersectInto(w, o)) s.watches.push_back(std::move(w));
      break;
    }
  }
  ChangeScope ca = a, cb = b;
  canonicalize(ca);
  canonicalize(cb);
  std::set<std::string> rightSources;
  for (const NonDetSource& n : cb.nonDeterministicSources) rightSources.insert(canonicalJson(nonDetToJson(n)));
  for (const NonDetSource& n : ca.nonDeterministicSources) {
    if (rightSources.count(canonicalJson(nonDetToJson(n)))) s.nonDeterministicSources.push_back(n);
  }
  for (const ParamIndex& p : ca.unboundParameters) {
    if (std::find(cb.unboundParameters.begin(), cb.unboundParameters.end(), p) != cb.unboundParameters.end()) {
      s.unboundParameters.push_back(p);
    }
  }
  canonicalize(s);
  return s;
}

bool isEmpty(const ChangeScope& s) {
  return s.watches.empty() && s.nonDeterministicSources.empty() && s.unboundParameters.empty();
}

bool describesEverything(const ChangeScope& s) {
  return std::all_of(s.watches.begin(), s.watches.end(),
                     [](const TableWatch& w) { return w.scope.kind == WatchKind::kFull && w.allColumns; });
}

std::string scopeHash(const ChangeScope& in) {
  ChangeScope s = in;
  canonicalize(s);
  std::string text = canonicalJson(serializeChangeScope(s));
  uint32_t h = 5381;
  for (unsigned char c : text) h = h * 33 + c;
  static const char* kAlphabet = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  for (int i = 0; i < 6; ++i) {
    out += kAlphabet[h & 31];
    h >>= 5;
  }
  return out;
}

NonDetSource nonDetSourceOf(const std::string& functionName) {
  static const std::set<std::string> kTime = {"now",      "current_timestamp", "date",    "time",         "datetime",
                                              "julianday", "epoch_s",          "epoch_ms", "epoch_s_frac", "strftime",
                                              "current_date", "current_time"};
  static const std::set<std::string> kRandom = {"random", "randomblob"};
  std::string n = lowerName(functionName);
  NonDetSource s;
  if (kTime.count(n)) s.kind = NonDetSource::Kind::kTime;
  else if (kRandom.count(n)) s.kind = NonDetSource::Kind::kRandom;
  else {
    s.kind = NonDetSource::Kind::kVolatileUdf;
    s.name = n;
  }
  return s;
}

// ---- recorder --------------------------------------------------------------------------------

int ReadRecorder::addTable(std::shared_ptr<Table> table) {
  TableRead r;
  r.table = std::move(table);
  reads_.push_back(std::move(r));
  return static_cast<int>(reads_.size()) - 1;
}

int ReadRecorder::addDerived(std::shared_ptr<Table> view) {
  TableRead r;
  r.table = std::move(view);
  derived_.push_back(std::move(r));
  return -1 - static_cast<int>(derived_.size());
}

TableRead* ReadRecorder::readOf(int read) {
  if (read >= 0) return static_cast<size_t>(read) < reads_.size() ? &reads_[read] : nullptr;
  size_t d = static_cast<size_t>(-2 - read);
  return read <= -2 && d < derived_.size() ? &derived_[d] : nullptr;
}

void ReadRecorder::readColumn(int read, int column) {
  if (TableRead* r = readOf(read)) r->columns.insert(column);
}

void ReadRecorder::readAll(int read) {
  if (TableRead* r = readOf(read)) r->allColumns = true;
}

void ReadRecorder::pinKey(int read, std::vector<std::vector<TableRead::Pinned>> pins) {
  if (read >= 0 && static_cast<size_t>(read) < reads_.size()) reads_[read].keyPins = std::move(pins);
}

void ReadRecorder::parameter(int slot, const ast::Expr* node) { params_.emplace_back(slot, node); }

void ReadRecorder::nonDeterministic(const std::string& functionName) { nondet_.push_back(lowerName(functionName)); }

void ReadRecorder::finish() {
  std::map<const ast::Expr*, int> slotOf;
  for (const auto& [slot, node] : params_) {
    slotOf[node] = slot;
    slots_.insert(slot);
  }
  std::set<const ast::Expr*> pinned;
  for (TableRead& r : reads_) {
    bool resolved = true;
    for (auto& alternatives : r.keyPins) {
      for (TableRead::Pinned& p : alternatives) {
        if (!p.param) continue;
        auto it = slotOf.find(p.param);
        if (it == slotOf.end()) {
          resolved = false;  // the pin's parameter was never bound: do not trust the pin
          continue;
        }
        pinned.insert(p.param);
        p.slot = it->second;
        p.param = nullptr;
      }
    }
    if (!resolved) r.keyPins.clear();
  }
  for (const auto& [slot, node] : params_) {
    if (!pinned.count(node)) freeSlots_.insert(slot);
  }
  params_.clear();
}

void recordKeyPins(ReadRecorder& r, int read, const Table& table, const std::string& qualifier, const ast::Expr* where) {
  const TableSchema& ts = table.schema();
  if (!where || ts.primaryKey.empty()) return;
  std::vector<const ast::Expr*> conjuncts = conjunctsOf(where);
  std::vector<std::vector<TableRead::Pinned>> pins(ts.primaryKey.size());
  auto keySlot = [&](const ast::Expr& e) -> int {
    if (e.kind != ast::ExprKind::kColumn || !e.schema.empty()) return -1;
    if (!e.table.empty() && !sameName(e.table, qualifier)) return -1;
    for (size_t k = 0; k < ts.primaryKey.size(); ++k) {
      if (sameName(ts.columns[ts.primaryKey[k].column].name, e.name)) return static_cast<int>(k);
    }
    return -1;
  };
  for (const ast::Expr* c : conjuncts) {
    if (isEquality(*c)) {
      for (int side = 0; side < 2; ++side) {
        int k = keySlot(*c->args[side]);
        if (k < 0 || !pins[k].empty()) continue;
        if (auto v = pinValueOf(*c->args[1 - side])) {
          pins[k].push_back(*v);
          break;
        }
      }
    } else if (c->kind == ast::ExprKind::kInList && !c->negated && !c->args.empty()) {
      int k = keySlot(*c->args[0]);
      if (k < 0 || !pins[k].empty()) continue;
      std::vector<TableRead::Pinned> alts;
      bool ok = true;
      for (size_t i = 1; i < c->args.size() && ok; ++i) {
        auto v = pinValueOf(*c->args[i]);
        if (v) alts.push_back(*v);
        else ok = false;
      }
      if (ok && !alts.empty()) pins[k] = std::move(alts);
    }
  }
  size_t tuples = 1;
  for (const auto& p : pins) {
    if (p.empty()) return;
    tuples *= p.size();
    if (tuples > kMaxPinnedTuples) return;
  }
  r.pinKey(read, std::move(pins));
}

void recordMaterializedViewSources(ReadRecorder& r, Context& ctx, const std::shared_ptr<Table>& mv) {
  const TableSchema& ts = mv->schema();
  std::vector<std::shared_ptr<Table>> sources;
  try {
    if (!ts.derivation || !ts.derivation->body) throw Error(ErrorCode::kInternal, "materialized view without a body");
    Binder inner(ctx);
    inner.setHomeSchema(ts.schemaName);
    inner.bindQuery(*ts.derivation->body, nullptr);
    for (const TableRead& source : inner.reads().reads()) sources.push_back(source.table);
  } catch (const Error&) {
    // A body that no longer binds (a dropped source): the MV's own rows are all there is to watch.
    sources = {mv};
  }
  for (const auto& t : sources) r.readAll(r.addTable(t));
}

ChangeScope buildChangeScope(const ReadRecorder& r, const ScopeStatement& st) {
  ChangeScope s;
  for (int slot : r.parameterSlots()) s.unboundParameters.push_back(indexOfSlot(slot, st.paramNames));
  for (const std::string& fn : r.nonDeterministicCalls()) s.nonDeterministicSources.push_back(nonDetSourceOf(fn));
  if (st.dml && !st.returning) {
    // A write that returns nothing surfaces no table state: nothing to watch (§4).
    canonicalize(s);
    return s;
  }
  for (int slot : r.freeParameterSlots()) {
    NonDetSource n;
    n.kind = NonDetSource::Kind::kParameter;
    n.index = indexOfSlot(slot, st.paramNames);
    s.nonDeterministicSources.push_back(std::move(n));
  }
  std::vector<TableWatch> watches;
  for (const TableRead& read : r.reads()) {
    const TableSchema& ts = read.table->schema();
    TableWatch w;
    w.schema = lowerName(ts.schemaName);
    w.table = lowerName(ts.name);
    w.allColumns = read.allColumns || read.columns.empty();
    if (!w.allColumns) {
      for (int c : read.columns) w.columns.insert(lowerName(ts.columns[c].name));
    }
    if (!read.keyPins.empty()) {
      w.scope.kind = WatchKind::kRows;
      for (const KeyColumn& k : ts.primaryKey) w.scope.columns.push_back(lowerName(ts.columns[k.column].name));
      std::vector<std::vector<ScopeValue>> tuples{{}};
      for (size_t k = 0; k < read.keyPins.size(); ++k) {
        const ColumnSchema& col = ts.columns[ts.primaryKey[k].column];
        std::vector<std::vector<ScopeValue>> next;
        for (const auto& prefix : tuples) {
          for (const TableRead::Pinned& p : read.keyPins[k]) {
            std::vector<ScopeValue> t = prefix;
            if (p.slot > 0) t.push_back(ScopeValue::placeholder(ParamScopeValue{indexOfSlot(p.slot, st.paramNames), portableTypeOf(col)}));
            else t.push_back(ScopeValue::literal(p.literal));
            next.push_back(std::move(t));
          }
        }
        tuples = std::move(next);
      }
      w.scope.values = std::move(tuples);
    }
    watches.push_back(std::move(w));
  }
  for (const auto& t : r.targets()) {
    TableWatch w;
    w.schema = lowerName(t->schema().schemaName);
    w.table = lowerName(t->schema().name);
    watches.push_back(std::move(w));
  }
  s.watches = mergeByTable(std::move(watches));
  canonicalize(s);
  return s;
}

}  // namespace optic
