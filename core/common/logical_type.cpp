// Declared type names and the two conversions to a type: strict (writes, conversion functions)
// and lenient (CAST). sql-core.md §1.2–1.4.
//
// Text → number has two parsers: the strict one accepts only a whole numeric text (parseNumber);
// CAST uses prefix semantics like JS parseInt/parseFloat ('12abc' → 12, '9e18' as integer → 9,
// no digits → 0, empty → NULL). Integer digit runs stay exact past 2^53 (BigInt).
#include "core/common/logical_type.h"

#include <cmath>
#include <cstdlib>

#include "core/common/bigint.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "core/common/temporal.h"
#include "core/common/utf8.h"
#include "core/common/value_ops.h"

namespace optic {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b])) ++b;
  while (e > b && isSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string upperAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return out;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// An integral double as an exact integer value; nullopt for NaN/Infinity.
std::optional<Value> integerFromDouble(double d) {
  if (!std::isfinite(d)) return std::nullopt;
  double t = std::trunc(d);
  if (t >= -9223372036854775808.0 && t < 9223372036854775808.0)
    return Value::integer(static_cast<int64_t>(t));
  return Value::fromBigInt(*BigInt::fromDouble(t));
}

Value integerFromDigits(std::string_view signedDigits) {
  if (signedDigits.size() <= 18) return Value::integer(std::strtoll(std::string(signedDigits).c_str(), nullptr, 10));
  if (signedDigits[0] == '+') signedDigits.remove_prefix(1);
  return Value::fromBigInt(*BigInt::parse(signedDigits));
}

// Length of the leading [+-]digits run (0 when there are no digits).
size_t integerPrefix(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0, d = i;
  while (d < s.size() && s[d] >= '0' && s[d] <= '9') ++d;
  return d == i ? 0 : d;
}

// Length of the longest leading float literal ([+-]digits[.digits][e[+-]digits]), 0 if none.
size_t realPrefix(std::string_view s, bool* sawFraction) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  *sawFraction = false;
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1, frac = 0;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j, ++frac;
    if (digits + frac > 0) {
      i = j;
      digits += frac;
      *sawFraction = true;
    }
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t e = j;
    while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
    if (e > j) {
      i = e;
      *sawFraction = true;
    }
  }
  return i;
}

// parseFloat's other number: a leading [+-]Infinity. Takes non-empty trimmed text.
std::optional<Value> leadingInfinity(std::string_view s) {
  std::string_view unsign = (s[0] == '+' || s[0] == '-') ? s.substr(1) : s;
  if (unsign.substr(0, 8) != "Infinity") return std::nullopt;
  return Value::real(s[0] == '-' ? -INFINITY : INFINITY);
}

// CAST text → INTEGER: parseInt-style. NULL for empty text.
Value castTextToInteger(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) return Value::null();
  size_t n = integerPrefix(s);
  return n == 0 ? Value::integer(0) : integerFromDigits(s.substr(0, n));
}

// CAST text → REAL / NUMERIC: parseFloat-style; NUMERIC keeps an all-digit prefix exact.
Value castTextToNumber(std::string_view text, bool keepInteger) {
  std::string_view s = trim(text);
  if (s.empty()) return Value::null();
  bool fraction = false;
  size_t n = realPrefix(s, &fraction);
  if (n == 0) return leadingInfinity(s).value_or(Value::integer(0));
  if (keepInteger && !fraction) return integerFromDigits(s.substr(0, n));
  return Value::real(std::strtod(std::string(s.substr(0, n)).c_str(), nullptr));
}

// Text converted to a number type strictly (a write, integer(), a typed DEFAULT), as the
// reference's INTEGER / REAL / NUMERIC parse it: trimmed; empty text is NULL; a leading
// numeric run converts with parseInt / parseFloat leniency ('12abc' is 12 as INTEGER, '1.5x'
// is 1.5 as REAL; NUMERIC keeps an all-digit text exact); text with no such run is refused.
std::optional<Value> strictTextToNumber(std::string_view text, LogicalType type) {
  std::string_view s = trim(text);
  if (s.empty()) return Value::null();
  if (type == LogicalType::kInteger || type == LogicalType::kTimestamp) {
    size_t n = integerPrefix(s);
    if (n == 0) return std::nullopt;
    return integerFromDigits(s.substr(0, n));
  }
  if (type == LogicalType::kNumeric && integerPrefix(s) == s.size()) return integerFromDigits(s);
  bool fraction = false;
  size_t n = realPrefix(s, &fraction);
  if (n == 0) return leadingInfinity(s);
  return Value::real(std::strtod(std::string(s.substr(0, n)).c_str(), nullptr));
}

std::optional<bool> booleanFromText(std::string_view text) {
  std::string s = upperAscii(trim(text));
  if (s == "TRUE" || s == "YES" || s == "ON" || s == "T" || s == "Y" || s == "1") return true;
  if (s == "FALSE" || s == "NO" || s == "OFF" || s == "F" || s == "N" || s == "0") return false;
  if (auto n = parseNumber(s)) return truthValue(*n);
  return std::nullopt;
}

Value textToBlob(const std::string& s) { return Value::blob(Bytes(s.begin(), s.end())); }

std::optional<std::string> normalizeTemporal(LogicalType type, std::string_view text) {
  switch (type) {
    case LogicalType::kDate: return normalizeDate(text);
    case LogicalType::kTime: return normalizeTime(text);
    case LogicalType::kDateTime: return normalizeDateTime(text);
    default: return normalizeTimespan(text);
  }
}

// Text → JSON: the parsed document; a JSON scalar document becomes the matching SQL value
// (json('null') is NULL, json('"x"') is the text x), as the reference engine stores natives.
std::optional<Value> jsonFromText(std::string_view text) {
  auto doc = parseJson(text);
  if (!doc) return std::nullopt;
  if (doc->doc.is_object() || doc->doc.is_array()) return Value::json(std::move(doc));
  return jsonToValue(doc->doc);
}

// A number into TIME is seconds after midnight, kept to the millisecond and wrapped at 24 hours
// ('01:01:01' for 3661, '00:00:01.5' for 1.5); a negative or non-finite number does not convert.
std::optional<Value> timeOfDayFromSeconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  double totalMs = std::floor(seconds * 1000 + 0.5);
  if (totalMs > 9.0e15) return std::nullopt;
  int64_t ms = static_cast<int64_t>(totalMs);
  CivilTime t;
  t.hour = static_cast<int>(ms / 3600000 % 24);
  t.minute = static_cast<int>(ms % 3600000 / 60000);
  t.second = static_cast<int>(ms % 60000 / 1000);
  t.nanos = ms % 1000 * 1000000;
  return Value::text(formatCanonicalTime(t));
}

}  // namespace

LogicalType logicalTypeFromName(std::string_view declared) {
  std::string name = upperAscii(trim(declared.substr(0, declared.find('('))));
  if (name.empty()) return LogicalType::kBlob;
  struct Named { const char* name; LogicalType type; };
  static const Named kNames[] = {
      {"INTEGER", LogicalType::kInteger}, {"REAL", LogicalType::kReal},
      {"NUMERIC", LogicalType::kNumeric}, {"TEXT", LogicalType::kText},
      {"BLOB", LogicalType::kBlob},       {"BOOLEAN", LogicalType::kBoolean},
      {"BOOL", LogicalType::kBoolean},    {"ANY", LogicalType::kAny},
      {"NULL", LogicalType::kNull},       {"DATE", LogicalType::kDate},
      {"TIME", LogicalType::kTime},       {"DATETIME", LogicalType::kDateTime},
      {"TIMESPAN", LogicalType::kTimespan}, {"TIMESTAMP", LogicalType::kTimestamp},
      {"JSON", LogicalType::kJson},       {"STRING", LogicalType::kText},
      {"DECIMAL", LogicalType::kNumeric}, {"NUMBER", LogicalType::kNumeric},
  };
  for (const auto& n : kNames)
    if (name == n.name) return n.type;
  // SQLite affinity rules, in SQLite's order.
  if (contains(name, "INT")) return LogicalType::kInteger;
  if (contains(name, "CHAR") || contains(name, "CLOB") || contains(name, "TEXT")) return LogicalType::kText;
  if (contains(name, "BLOB")) return LogicalType::kBlob;
  if (contains(name, "REAL") || contains(name, "FLOA") || contains(name, "DOUB")) return LogicalType::kReal;
  return LogicalType::kNumeric;
}

std::string_view logicalTypeName(LogicalType type) {
  switch (type) {
    case LogicalType::kNull: return "NULL";
    case LogicalType::kInteger: return "INTEGER";
    case LogicalType::kReal: return "REAL";
    case LogicalType::kNumeric: return "NUMERIC";
    case LogicalType::kText: return "TEXT";
    case LogicalType::kBlob: return "BLOB";
    case LogicalType::kBoolean: return "BOOLEAN";
    case LogicalType::kAny: return "ANY";
    case LogicalType::kDate: return "DATE";
    case LogicalType::kTime: return "TIME";
    case LogicalType::kDateTime: return "DATETIME";
    case LogicalType::kTimespan: return "TIMESPAN";
    case LogicalType::kTimestamp: return "TIMESTAMP";
    case LogicalType::kJson: return "JSON";
  }
  return "ANY";
}

bool isTemporal(LogicalType type) {
  return type == LogicalType::kDate || type == LogicalType::kTime || type == LogicalType::kDateTime ||
         type == LogicalType::kTimespan;
}

bool isTextLike(LogicalType type) { return type == LogicalType::kText || isTemporal(type); }

bool acceptsCollation(LogicalType type, Collation collation) {
  return collation == Collation::kBinary || !(isTemporal(type) || type == LogicalType::kJson);
}

LogicalType logicalTypeOf(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return LogicalType::kNull;
    case ValueKind::kInteger:
    case ValueKind::kBigInt: return LogicalType::kInteger;
    case ValueKind::kReal: return LogicalType::kReal;
    case ValueKind::kText: return LogicalType::kText;
    case ValueKind::kBlob: return LogicalType::kBlob;
    case ValueKind::kBoolean: return LogicalType::kBoolean;
    case ValueKind::kJson: return LogicalType::kJson;
  }
  return LogicalType::kAny;
}

std::optional<Value> tryConvertStrict(const Value& v, LogicalType type) {
  if (v.isNull()) return v;
  ValueKind k = v.kind();
  switch (type) {
    case LogicalType::kAny:
    case LogicalType::kNull: return v;
    case LogicalType::kInteger:
    case LogicalType::kTimestamp:
      if (v.isInteger()) return v;
      if (k == ValueKind::kBoolean) return Value::integer(v.asBool() ? 1 : 0);
      if (k == ValueKind::kReal) return integerFromDouble(v.asReal());
      if (k == ValueKind::kText) return strictTextToNumber(v.asText(), type);
      return std::nullopt;
    case LogicalType::kReal:
      if (v.isNumeric() || k == ValueKind::kBoolean) return Value::real(v.toDouble());
      if (k == ValueKind::kText) return strictTextToNumber(v.asText(), type);
      return std::nullopt;
    case LogicalType::kNumeric:
      if (v.isNumeric()) return v;
      if (k == ValueKind::kBoolean) return Value::integer(v.asBool() ? 1 : 0);
      if (k == ValueKind::kText) return strictTextToNumber(v.asText(), type);
      return std::nullopt;
    case LogicalType::kText: return Value::text(toText(v));
    case LogicalType::kBlob:
      if (k == ValueKind::kBlob) return v;
      if (k == ValueKind::kJson) return std::nullopt;
      return textToBlob(toText(v));
    case LogicalType::kBoolean:
      if (k == ValueKind::kBoolean) return v;
      if (v.isNumeric()) return Value::boolean(*truthValue(v));
      if (k == ValueKind::kText) {
        if (auto b = booleanFromText(v.asText())) return Value::boolean(*b);
      }
      return std::nullopt;
    case LogicalType::kJson:
      if (k == ValueKind::kJson) return v;
      if (k == ValueKind::kText) return jsonFromText(v.asText());
      if (k == ValueKind::kBlob) return std::nullopt;
      return v;  // numbers and booleans are JSON scalars already
    case LogicalType::kDate:
    case LogicalType::kTime:
    case LogicalType::kDateTime:
    case LogicalType::kTimespan: {
      if (type == LogicalType::kTime && v.isNumeric()) return timeOfDayFromSeconds(v.toDouble());
      // An integer into DATE or DATETIME is an instant in epoch milliseconds (UTC).
      if (k == ValueKind::kInteger && (type == LogicalType::kDate || type == LogicalType::kDateTime)) {
        CivilTime t = civilFromEpochMs(v.asInt());
        return Value::text(type == LogicalType::kDate ? formatCanonicalDate(t) : formatCanonicalDateTime(t));
      }
      if (k != ValueKind::kText) return std::nullopt;
      auto s = normalizeTemporal(type, v.asText());
      if (!s) return std::nullopt;
      return Value::text(std::move(*s));
    }
  }
  return std::nullopt;
}

Value convertStrict(const Value& v, LogicalType type) {
  if (auto r = tryConvertStrict(v, type)) return std::move(*r);
  std::string why = type == LogicalType::kTime && v.isNumeric()
                        ? ": value must be a non-negative finite number of seconds"
                        : "";
  fail(ErrorCode::kType, "Cannot convert '" + toText(v) + "' to " + std::string(logicalTypeName(type)) + why);
}

bool hasSemanticOrdering(LogicalType type) { return type == LogicalType::kJson || type == LogicalType::kTimespan; }

namespace {

Value jsonComparand(const Value& v, bool typed) {
  std::shared_ptr<const JsonDoc> doc;
  if (v.kind() == ValueKind::kJson) {
    doc = v.jsonPtr();
  } else if (typed || !(v.isText() || v.kind() == ValueKind::kBlob)) {
    doc = makeJson(valueToJson(v));
  } else if (v.isText()) {
    doc = parseJson(v.asText());
    if (!doc) doc = makeJson(Json(v.asText()));
  } else {
    return Value();  // a blob
  }
  if (doc->doc.is_null()) return Value();
  return Value::json(std::move(doc));
}

}  // namespace

Value semanticComparand(const Value& v, LogicalType type, bool typed) {
  if (v.isNull()) return v;
  if (type == LogicalType::kJson) return jsonComparand(v, typed);
  if (type == LogicalType::kTimespan && v.isText()) {
    if (std::optional<double> s = timespanSeconds(v.asText())) return Value::real(*s);
  }
  return v;
}

bool isStoredForm(const Value& v, LogicalType type) {
  ValueKind k = v.kind();
  switch (type) {
    case LogicalType::kAny:
    case LogicalType::kNull: return true;
    case LogicalType::kInteger:
    case LogicalType::kTimestamp: return k == ValueKind::kNull || v.isInteger();
    case LogicalType::kNumeric: return k == ValueKind::kNull || v.isNumeric();
    case LogicalType::kReal: return k == ValueKind::kNull || k == ValueKind::kReal;
    case LogicalType::kText: return k == ValueKind::kNull || k == ValueKind::kText;
    case LogicalType::kBlob: return k == ValueKind::kNull || k == ValueKind::kBlob;
    case LogicalType::kBoolean: return k == ValueKind::kNull || k == ValueKind::kBoolean;
    case LogicalType::kJson: return k == ValueKind::kNull || k == ValueKind::kJson;
    case LogicalType::kDate:
    case LogicalType::kTime:
    case LogicalType::kDateTime:
    case LogicalType::kTimespan: return k == ValueKind::kNull;  // temporal text is normalized
  }
  return false;
}

Value convertForColumn(Value v, LogicalType type, std::string_view column) {
  if (isStoredForm(v, type)) return v;
  try {
    return convertStrict(v, type);
  } catch (const Error& e) {
    throw Error(e.code(), "Type conversion failed for column '" + std::string(column) + "': " + e.what());
  }
}

bool convertsWithoutFailure(LogicalType from, LogicalType to) {
  using L = LogicalType;
  if (from == to || from == L::kNull || to == L::kAny || to == L::kText) return true;
  bool number = from == L::kInteger || from == L::kReal || from == L::kNumeric || from == L::kBoolean;
  switch (to) {
    case L::kReal:
    case L::kBoolean:
    case L::kJson: return number;
    case L::kNumeric: return number;
    case L::kInteger: return from == L::kBoolean;
    case L::kBlob: return from != L::kJson && from != L::kAny;
    default: return false;
  }
}

Value castTo(const Value& v, LogicalType type) {
  if (v.isNull()) return v;
  ValueKind k = v.kind();
  switch (type) {
    case LogicalType::kInteger:
    case LogicalType::kTimestamp:
      if (k == ValueKind::kText) return castTextToInteger(v.asText());
      if (k == ValueKind::kBlob) return castTextToInteger(toText(v));
      if (k == ValueKind::kJson) return Value::null();
      return tryConvertStrict(v, LogicalType::kInteger).value_or(Value::null());
    case LogicalType::kReal:
      if (k == ValueKind::kText || k == ValueKind::kBlob) {
        Value n = castTextToNumber(toText(v), false);
        return n.isNull() ? n : Value::real(n.toDouble());
      }
      if (k == ValueKind::kJson) return Value::null();
      return Value::real(v.toDouble());
    case LogicalType::kNumeric:
      if (k == ValueKind::kText || k == ValueKind::kBlob) return castTextToNumber(toText(v), true);
      if (k == ValueKind::kJson) return Value::null();
      return tryConvertStrict(v, type).value_or(Value::null());
    case LogicalType::kBlob:
      if (k == ValueKind::kBlob) return v;
      return textToBlob(toText(v));  // JSON: its own text as bytes
    case LogicalType::kJson:
      if (k == ValueKind::kText) {
        if (auto j = jsonFromText(v.asText())) return std::move(*j);
        return v;  // not JSON text: the string itself, as a JSON string scalar
      }
      return tryConvertStrict(v, type).value_or(Value::null());
    default:
      return tryConvertStrict(v, type).value_or(Value::null());
  }
}

}  // namespace optic
