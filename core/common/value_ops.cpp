// The value rendering, total order, hash and truthiness every layer shares (sql-core.md §1.5–1.9).
//
// Numbers (int64, BigInt, double, and booleans as 0/1) form one ordered domain compared exactly:
// 9007199254740993 and 9007199254740992.0 are different values. NaN sorts after every other
// number and equals itself, so the order is total (the key codec agrees: NaN bits sort last).
#include "core/common/value_ops.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "core/common/bigint.h"
#include "core/common/json.h"
#include "core/common/utf8.h"

namespace optic {

namespace {

// Shortest decimal digits that round-trip to d (d finite, > 0), and the exponent n with
// d = 0.digits × 10^n. Tries 15, 16 then 17 significant digits: at 15 at most one decimal fits
// in the rounding interval, so trailing zeros stripped from it are the shortest form.
void shortestDigits(double d, std::string& digits, int& n) {
  char buf[40];
  // Subnormals carry fewer significant bits, so the 15-digit argument does not hold: search up.
  int first = d < 2.2250738585072014e-308 ? 1 : 15;
  for (int precision = first; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
    if (precision == 17 || std::strtod(buf, nullptr) == d) break;
  }
  // buf is "D.DDDDe±XX", or "De±XX" at precision 1.
  const char* e = std::strchr(buf, 'e');
  digits.clear();
  for (const char* p = buf; p < e; ++p)
    if (*p != '.') digits += *p;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  n = std::atoi(e + 1) + 1;
}

int compareInt64Double(int64_t i, double d) {
  if (std::isnan(d)) return -1;
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  double t = std::trunc(d);
  int64_t ti = static_cast<int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  return d > t ? -1 : (d < t ? 1 : 0);
}

int compareDoubles(double a, double b) {
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Category rank of the total order: NULL < numbers/booleans < text < blob < JSON.
int orderRank(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return 0;
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kReal:
    case ValueKind::kBoolean: return 1;
    case ValueKind::kText: return 2;
    case ValueKind::kBlob: return 3;
    case ValueKind::kJson: return 4;
  }
  return 0;
}

int compareBlobs(const Bytes& a, const Bytes& b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

size_t hashMix(size_t h) { return h ^ (h >> 31) ^ (h << 7); }

}  // namespace

std::string formatReal(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return "0";  // also -0, as JS String(-0)
  std::string out;
  if (d < 0) {
    out += '-';
    d = -d;
  }
  std::string s;
  int n;
  shortestDigits(d, s, n);
  int k = static_cast<int>(s.size());
  if (k <= n && n <= 21) {  // integer: digits then zeros
    out += s;
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {  // decimal point inside the digits
    out.append(s, 0, static_cast<size_t>(n));
    out += '.';
    out.append(s, static_cast<size_t>(n), std::string::npos);
  } else if (-6 < n && n <= 0) {  // 0.000ddd
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += s;
  } else {  // exponent form: d[.ddd]e±x
    out += s[0];
    if (k > 1) {
      out += '.';
      out.append(s, 1, std::string::npos);
    }
    int e = n - 1;
    out += e < 0 ? "e-" : "e+";
    out += std::to_string(e < 0 ? -e : e);
  }
  return out;
}

std::string toText(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "";
    case ValueKind::kInteger: return std::to_string(v.asInt());
    case ValueKind::kBigInt: return v.asBigInt().toString();
    case ValueKind::kReal: return formatReal(v.asReal());
    case ValueKind::kText: return v.asText();
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      return utf8Sanitize(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    }
    case ValueKind::kBoolean: return v.asBool() ? "true" : "false";
    case ValueKind::kJson: return serializeJson(v.asJson().doc);
  }
  return "";
}

std::optional<Value> parseNumber(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && isSpace(text[b])) ++b;
  while (e > b && isSpace(text[e - 1])) --e;
  std::string_view s = text.substr(b, e - b);
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t intDigits = 0, fracDigits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++intDigits;
  bool isReal = false;
  if (i < s.size() && s[i] == '.') {
    isReal = true;
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++fracDigits;
  }
  if (intDigits + fracDigits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    isReal = true;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t expDigits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++expDigits;
    if (expDigits == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::string buf(s);
  if (isReal) return Value::real(std::strtod(buf.c_str(), nullptr));
  if (intDigits <= 18) return Value::integer(std::strtoll(buf.c_str(), nullptr, 10));
  return Value::fromBigInt(*BigInt::parse(buf[0] == '+' ? buf.substr(1) : buf));
}

int compareNumeric(const Value& a, const Value& b) {
  ValueKind ka = a.kind(), kb = b.kind();
  if (ka == ValueKind::kBoolean) return compareNumeric(Value::integer(a.asBool()), b);
  if (kb == ValueKind::kBoolean) return compareNumeric(a, Value::integer(b.asBool()));
  if (ka == ValueKind::kInteger && kb == ValueKind::kInteger)
    return a.asInt() < b.asInt() ? -1 : (a.asInt() > b.asInt() ? 1 : 0);
  if (ka == ValueKind::kReal && kb == ValueKind::kReal) return compareDoubles(a.asReal(), b.asReal());
  if (ka == ValueKind::kInteger && kb == ValueKind::kReal) return compareInt64Double(a.asInt(), b.asReal());
  if (ka == ValueKind::kReal && kb == ValueKind::kInteger) return -compareInt64Double(b.asInt(), a.asReal());
  if (ka == ValueKind::kBigInt && kb == ValueKind::kReal) return a.asBigInt().compareDouble(b.asReal());
  if (ka == ValueKind::kReal && kb == ValueKind::kBigInt) return -b.asBigInt().compareDouble(a.asReal());
  // At least one BigInt, the other an integer of either width.
  if (ka == ValueKind::kBigInt && kb == ValueKind::kBigInt) return a.asBigInt().compare(b.asBigInt());
  if (ka == ValueKind::kBigInt) return a.asBigInt().sign();  // outside int64, so sign decides
  return -b.asBigInt().sign();
}

int compareValues(const Value& a, const Value& b, Collation c) {
  int ra = orderRank(a), rb = orderRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0: return 0;
    case 1: return compareNumeric(a, b);
    case 2: {
      int r = compareText(a.asText(), b.asText(), c);
      return r < 0 ? -1 : (r > 0 ? 1 : 0);
    }
    case 3: return compareBlobs(a.asBlob(), b.asBlob());
    default: {
      // Two JSON string scalars compare as text, so an explicit COLLATE applies to them.
      const Json& ja = a.asJson().doc;
      const Json& jb = b.asJson().doc;
      if (c != Collation::kBinary && ja.is_string() && jb.is_string()) {
        int r = compareText(ja.get_ref<const std::string&>(), jb.get_ref<const std::string&>(), c);
        return r < 0 ? -1 : (r > 0 ? 1 : 0);
      }
      return compareJson(ja, jb);
    }
  }
}

size_t hashValue(const Value& v, Collation c) {
  switch (v.kind()) {
    case ValueKind::kNull: return static_cast<size_t>(0x9e3779b97f4a7c15ULL);  // size_t is 32-bit in wasm32
    case ValueKind::kInteger: return hashMix(std::hash<int64_t>()(v.asInt()));
    case ValueKind::kBoolean: return hashMix(std::hash<int64_t>()(v.asBool() ? 1 : 0));
    case ValueKind::kBigInt: return hashMix(std::hash<std::string>()(v.asBigInt().toString()));
    case ValueKind::kReal: {
      double d = v.asReal();
      // Integral doubles hash as the integer they equal, so 2.0 and 2 collide as they must.
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d)
        return hashMix(std::hash<int64_t>()(static_cast<int64_t>(d)));
      if (auto big = BigInt::fromDouble(d)) return hashMix(std::hash<std::string>()(big->toString()));
      if (std::isnan(d)) return static_cast<size_t>(0x7ff8000000000000ULL >> 32);
      return hashMix(std::hash<double>()(d));
    }
    case ValueKind::kText:
      if (c == Collation::kBinary) return std::hash<std::string>()(v.asText());
      return std::hash<std::string>()(normalizeText(v.asText(), c));
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      return hashMix(std::hash<std::string_view>()(
          std::string_view(reinterpret_cast<const char*>(b.data()), b.size())));
    }
    case ValueKind::kJson: {
      const Json& j = v.asJson().doc;
      if (c != Collation::kBinary && j.is_string()) return hashMix(hashValue(Value::text(j.get<std::string>()), c) + 0x51);
      return hashMix(hashJson(j) + 0x51);
    }
  }
  return 0;
}

std::optional<bool> truthValue(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return std::nullopt;
    case ValueKind::kInteger: return v.asInt() != 0;
    case ValueKind::kBigInt: return true;  // never zero: zero fits in int64
    case ValueKind::kReal: return v.asReal() != 0 && !std::isnan(v.asReal());
    case ValueKind::kBoolean: return v.asBool();
    case ValueKind::kText: {
      auto n = parseNumber(v.asText());
      return n ? *truthValue(*n) : false;
    }
    case ValueKind::kBlob: return false;
    case ValueKind::kJson: {
      const Json& j = v.asJson().doc;
      if (j.is_null()) return false;
      if (j.is_boolean()) return j.get<bool>();
      if (j.is_number()) return j.get<double>() != 0;
      return true;
    }
  }
  return false;
}

}  // namespace optic
