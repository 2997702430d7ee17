// JSON: nlohmann::ordered_json underneath, with the engine's own serializer (JS-style numbers and
// escapes), structural comparison, canonical text and an order-preserving key encoding.
//
// Numbers compare and hash as doubles (the JS number model), so 1 and 1.0 are the same JSON
// value everywhere: compareJson, hashJson, canonicalJson and encodeJsonKey agree on that.
#include "core/common/json.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "core/common/bigint.h"
#include "core/common/key_codec.h"
#include "core/common/utf8.h"
#include "core/common/value_ops.h"

namespace optic {

namespace {

int typeRank(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return 0;
    case Json::value_t::boolean: return 1;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return 2;
    case Json::value_t::string: return 3;
    case Json::value_t::array: return 4;
    case Json::value_t::object: return 5;
    default: return 0;  // discarded / binary: never produced by parseJson
  }
}

void appendNumber(const Json& j, std::string& out) {
  switch (j.type()) {
    case Json::value_t::number_integer: out += std::to_string(j.get<int64_t>()); return;
    case Json::value_t::number_unsigned: out += std::to_string(j.get<uint64_t>()); return;
    default: {
      double d = j.get<double>();
      out += std::isfinite(d) ? formatReal(d) : "null";  // JSON.stringify(NaN) === "null"
    }
  }
}

// Object members in sorted key order (byte order of the UTF-8 keys).
std::vector<const Json::object_t::value_type*> sortedMembers(const Json& obj) {
  std::vector<const Json::object_t::value_type*> m;
  m.reserve(obj.size());
  for (const auto& kv : obj.get_ref<const Json::object_t&>()) m.push_back(&kv);
  std::sort(m.begin(), m.end(), [](auto* x, auto* y) { return x->first < y->first; });
  return m;
}

void serialize(const Json& j, std::string& out, bool sortKeys) {
  switch (j.type()) {
    case Json::value_t::null: out += "null"; return;
    case Json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case Json::value_t::string: appendJsonString(j.get_ref<const std::string&>(), out); return;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : j) {
        if (!first) out += ',';
        first = false;
        serialize(e, out, sortKeys);
      }
      out += ']';
      return;
    }
    case Json::value_t::object: {
      out += '{';
      auto member = [&](const std::string& k, const Json& v, bool first) {
        if (!first) out += ',';
        appendJsonString(k, out);
        out += ':';
        serialize(v, out, sortKeys);
      };
      bool first = true;
      if (sortKeys) {
        for (auto* kv : sortedMembers(j)) member(kv->first, kv->second, std::exchange(first, false));
      } else {
        for (const auto& kv : j.items()) member(kv.key(), kv.value(), std::exchange(first, false));
      }
      out += '}';
      return;
    }
    default: appendNumber(j, out); return;
  }
}

int sign(double a, double b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

std::shared_ptr<const JsonDoc> parseJson(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return nullptr;
  return std::make_shared<const JsonDoc>(JsonDoc{std::move(j)});
}

std::shared_ptr<const JsonDoc> makeJson(Json j) {
  return std::make_shared<const JsonDoc>(JsonDoc{std::move(j)});
}

void appendJsonString(std::string_view s, std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void serializeJson(const Json& j, std::string& out) { serialize(j, out, false); }

std::string serializeJson(const Json& j) {
  std::string out;
  serialize(j, out, false);
  return out;
}

std::string canonicalJson(const Json& j) {
  std::string out;
  serialize(j, out, true);
  return out;
}

int compareJson(const Json& a, const Json& b) {
  int ra = typeRank(a), rb = typeRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0: return 0;
    case 1: return static_cast<int>(a.get<bool>()) - static_cast<int>(b.get<bool>());
    case 2: return sign(a.get<double>(), b.get<double>());
    case 3: {
      int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 4: {
      size_t n = std::min(a.size(), b.size());
      for (size_t i = 0; i < n; ++i)
        if (int c = compareJson(a[i], b[i])) return c;
      return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
    }
    default: {
      auto ma = sortedMembers(a), mb = sortedMembers(b);
      size_t n = std::min(ma.size(), mb.size());
      for (size_t i = 0; i < n; ++i) {
        int c = ma[i]->first.compare(mb[i]->first);
        if (c != 0) return c < 0 ? -1 : 1;
        if (int v = compareJson(ma[i]->second, mb[i]->second)) return v;
      }
      return ma.size() < mb.size() ? -1 : (ma.size() > mb.size() ? 1 : 0);
    }
  }
}

// Each element starts with its rank byte (1..6); containers end with 00, which sorts before any
// element, so a prefix sorts first. Object members are 01 + key + value for the same reason
// (an empty key must not look like the end marker).
void encodeJsonKey(const Json& j, std::string& out) {
  int r = typeRank(j);
  out += static_cast<char>(r + 1);
  switch (r) {
    case 0: return;
    case 1: out += j.get<bool>() ? '\1' : '\0'; return;
    case 2: appendSortableDouble(j.get<double>(), out); return;
    case 3: appendEscapedBytes(j.get_ref<const std::string&>(), out); return;
    case 4:
      for (const auto& e : j) encodeJsonKey(e, out);
      out += '\0';
      return;
    default:
      for (auto* kv : sortedMembers(j)) {
        out += '\1';
        appendEscapedBytes(kv->first, out);
        encodeJsonKey(kv->second, out);
      }
      out += '\0';
      return;
  }
}

size_t hashJson(const Json& j) { return std::hash<std::string>()(canonicalJson(j)); }

Value jsonToValue(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return Value::null();
    case Json::value_t::boolean: return Value::boolean(j.get<bool>());
    case Json::value_t::number_integer: return Value::integer(j.get<int64_t>());
    case Json::value_t::number_unsigned: {
      uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::integer(static_cast<int64_t>(u));
      return Value::fromBigInt(*BigInt::parse(std::to_string(u)));
    }
    case Json::value_t::number_float: return Value::real(j.get<double>());
    case Json::value_t::string: return Value::text(j.get<std::string>());
    default: return Value::json(makeJson(j));
  }
}

Json valueToJson(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return Json(nullptr);
    case ValueKind::kInteger: return Json(v.asInt());
    case ValueKind::kBigInt: return Json(v.asBigInt().toDouble());
    case ValueKind::kReal: return Json(v.asReal());
    case ValueKind::kText: return Json(v.asText());
    case ValueKind::kBlob: return Json(toText(v));
    case ValueKind::kBoolean: return Json(v.asBool());
    case ValueKind::kJson: return v.asJson().doc;
  }
  return Json(nullptr);
}

}  // namespace optic
