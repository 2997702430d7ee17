// String built-ins: length, substr/substring, upper, lower, trim/ltrim/rtrim, replace, instr,
// reverse, lpad, rpad, hex, unhex, char, unicode, like, glob, the split_string table function —
// and likeMatch/globMatch (pattern.h).
//
// Text is UTF-8; positions and lengths count code points (core/common/utf8.h). NULL arguments
// propagate except where the reference engine says otherwise (substr's NULL length is 0, a NULL
// trim set means whitespace). upper/lower/reverse return NULL for non-text input, as the
// reference does; the other functions render non-text arguments through toText (§1.6).
#include <algorithm>
#include <string>
#include <vector>

#include "core/common/utf8.h"
#include "core/common/value_limits.h"
#include "core/execution/functions/function_util.h"
#include "core/execution/functions/pattern.h"

namespace optic {

namespace {

std::vector<uint32_t> codePoints(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(utf8Decode(s, i));
  return out;
}

// ---- pattern matching -------------------------------------------------------------------

// One compiled pattern element. A class holds inclusive ranges.
struct PatternToken {
  enum Kind : uint8_t { kAnyRun, kOne, kLiteral, kClass } kind;
  uint32_t cp = 0;
  bool negated = false;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;

  bool matches(uint32_t c) const {
    switch (kind) {
      case kOne: return true;
      case kLiteral: return c == cp;
      case kClass: {
        bool in = false;
        for (const auto& r : ranges) in = in || (c >= r.first && c <= r.second);
        return in != negated;
      }
      default: return false;
    }
  }
};

// Greedy match with backtracking to the most recent any-run: linear for patterns without runs,
// and correct because an any-run matches every sequence.
bool matchTokens(const std::vector<PatternToken>& p, const std::vector<uint32_t>& t) {
  size_t pi = 0, ti = 0;
  size_t starP = SIZE_MAX, starT = 0;
  while (ti < t.size()) {
    if (pi < p.size() && p[pi].kind == PatternToken::kAnyRun) {
      starP = pi++;
      starT = ti;
    } else if (pi < p.size() && p[pi].matches(t[ti])) {
      ++pi;
      ++ti;
    } else if (starP != SIZE_MAX) {
      pi = starP + 1;
      ti = ++starT;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi].kind == PatternToken::kAnyRun) ++pi;
  return pi == p.size();
}

PatternToken simpleToken(PatternToken::Kind kind, uint32_t cp = 0) {
  PatternToken t{kind};
  t.cp = cp;
  return t;
}

std::vector<PatternToken> compileLike(std::string_view pattern, std::optional<uint32_t> escape) {
  std::vector<uint32_t> cps = codePoints(pattern);
  std::vector<PatternToken> out;
  for (size_t i = 0; i < cps.size(); ++i) {
    uint32_t c = cps[i];
    if (escape && c == *escape && i + 1 < cps.size()) {
      out.push_back(simpleToken(PatternToken::kLiteral, cps[++i]));
    } else if (c == '%') {
      out.push_back(simpleToken(PatternToken::kAnyRun));
    } else if (c == '_') {
      out.push_back(simpleToken(PatternToken::kOne));
    } else {
      out.push_back(simpleToken(PatternToken::kLiteral, c));
    }
  }
  return out;
}

// Parses a GLOB class starting after '['; returns false when the class is unterminated (the
// '[' is then literal).
bool parseGlobClass(const std::vector<uint32_t>& cps, size_t& i, PatternToken& tok) {
  size_t j = i;
  tok.kind = PatternToken::kClass;
  if (j < cps.size() && (cps[j] == '^' || cps[j] == '!')) {
    tok.negated = true;
    ++j;
  }
  bool first = true;
  while (j < cps.size() && (cps[j] != ']' || first)) {
    uint32_t lo = cps[j];
    if (j + 2 < cps.size() && cps[j + 1] == '-' && cps[j + 2] != ']') {
      tok.ranges.emplace_back(lo, cps[j + 2]);
      j += 3;
    } else {
      tok.ranges.emplace_back(lo, lo);
      ++j;
    }
    first = false;
  }
  if (j >= cps.size()) return false;
  i = j;  // at the closing ']'
  return true;
}

std::vector<PatternToken> compileGlob(std::string_view pattern) {
  std::vector<uint32_t> cps = codePoints(pattern);
  std::vector<PatternToken> out;
  for (size_t i = 0; i < cps.size(); ++i) {
    uint32_t c = cps[i];
    if (c == '*') {
      out.push_back(simpleToken(PatternToken::kAnyRun));
    } else if (c == '?') {
      out.push_back(simpleToken(PatternToken::kOne));
    } else if (c == '[') {
      PatternToken tok{PatternToken::kClass};
      size_t j = i + 1;
      if (parseGlobClass(cps, j, tok)) {
        out.push_back(std::move(tok));
        i = j;
      } else {
        out.push_back(simpleToken(PatternToken::kLiteral, c));
      }
    } else {
      out.push_back(simpleToken(PatternToken::kLiteral, c));
    }
  }
  return out;
}

// ---- scalar implementations ---------------------------------------------------------------

Value lengthValue(Args a, FunctionContext&) {
  const Value& v = a[0];
  if (v.isNull()) return Value();
  if (v.kind() == ValueKind::kBlob) return Value::integer(static_cast<int64_t>(v.asBlob().size()));
  // Type-strict like the reference engine: only text and blobs have a length (length(12345),
  // length(true) and length of a JSON document are NULL).
  if (!v.isText()) return Value();
  return Value::integer(static_cast<int64_t>(utf8Length(v.asText())));
}

// substr(s, y[, z]): 1-based y; y = 0 acts as 1; negative y counts from the end; a NULL z is 0
// and a negative z gives ''. Blobs are cut by bytes.
Value substrValue(Args a, FunctionContext&) {
  if (a[0].isNull() || a[1].isNull()) return Value();
  std::optional<int64_t> y = fn::intArg(a[1]);
  if (!y) return Value();
  bool isBlob = a[0].kind() == ValueKind::kBlob;
  std::string s = isBlob ? std::string(a[0].asBlob().begin(), a[0].asBlob().end()) : fn::textArg(a[0]);
  int64_t len = isBlob ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(utf8Length(s));
  int64_t start = *y > 0 ? *y - 1 : (*y == 0 ? 0 : std::max<int64_t>(0, len + *y));
  int64_t count = len;
  if (a.size() > 2) {
    std::optional<int64_t> z = a[2].isNull() ? std::optional<int64_t>(0) : fn::intArg(a[2]);
    if (!z) return Value();
    count = std::max<int64_t>(0, *z);
  }
  if (start >= len || count == 0) return isBlob ? Value::blob({}) : Value::text("");
  count = std::min(count, len - start);
  if (isBlob) return Value::blob(Bytes(s.begin() + start, s.begin() + start + count));
  return Value::text(std::string(utf8Substr(s, static_cast<size_t>(start), static_cast<size_t>(count))));
}

ScalarImpl caseMap(std::string (*f)(std::string_view)) {
  return [f](Args a, FunctionContext&) -> Value {
    if (!a[0].isText()) return Value();
    return Value::text(f(a[0].asText()));
  };
}

bool isJsWhitespace(uint32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0xA0 ||
         c == 0xFEFF || c == 0x2028 || c == 0x2029 || c == 0x3000 || (c >= 0x2000 && c <= 0x200A);
}

// trim family: `sides` bit 1 = left, bit 2 = right. The set is whitespace unless given.
ScalarImpl trimmer(int sides) {
  return [sides](Args a, FunctionContext&) -> Value {
    if (a[0].isNull()) return Value();
    std::vector<uint32_t> cps = codePoints(fn::textArg(a[0]));
    bool custom = a.size() > 1 && !a[1].isNull();
    std::vector<uint32_t> set = custom ? codePoints(fn::textArg(a[1])) : std::vector<uint32_t>();
    auto strip = [&](uint32_t c) {
      if (!custom) return isJsWhitespace(c);
      for (uint32_t s : set) {
        if (s == c) return true;
      }
      return false;
    };
    size_t b = 0, e = cps.size();
    if (sides & 1) {
      while (b < e && strip(cps[b])) ++b;
    }
    if (sides & 2) {
      while (e > b && strip(cps[e - 1])) --e;
    }
    std::string out;
    for (size_t i = b; i < e; ++i) utf8Append(out, cps[i]);
    return Value::text(std::move(out));
  };
}

Value replaceValue(Args a, FunctionContext&) {
  if (fn::anyNull(a)) return Value();
  std::string s = fn::textArg(a[0]);
  std::string from = fn::textArg(a[1]);
  if (from.empty()) return Value::text(std::move(s));
  std::string to = fn::textArg(a[2]);
  if (to.size() > from.size()) {  // the result grows: count the hits before building it
    size_t hits = 0;
    for (size_t hit = s.find(from); hit != std::string::npos; hit = s.find(from, hit + from.size())) ++hits;
    requireValueFits(s.size() + static_cast<double>(hits) * static_cast<double>(to.size() - from.size()));
  }
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out += to;
  }
  out.append(s, pos, std::string::npos);
  return Value::text(std::move(out));
}

// instr(s, sub): 1-based character position of the first occurrence; 0 if absent or empty.
Value instrValue(Args a, FunctionContext&) {
  if (fn::anyNull(a)) return Value();
  std::string s = fn::textArg(a[0]);
  std::string sub = fn::textArg(a[1]);
  if (sub.empty()) return Value::integer(0);
  size_t hit = s.find(sub);
  if (hit == std::string::npos) return Value::integer(0);
  return Value::integer(static_cast<int64_t>(utf8Length(std::string_view(s).substr(0, hit))) + 1);
}

Value reverseValue(Args a, FunctionContext&) {
  if (!a[0].isText()) return Value();
  std::vector<uint32_t> cps = codePoints(a[0].asText());
  std::string out;
  for (size_t i = cps.size(); i > 0; --i) utf8Append(out, cps[i - 1]);
  return Value::text(std::move(out));
}

// lpad/rpad(s, n[, pad]): JS padStart/padEnd — the pad repeats and is cut to fit; an empty pad
// or a string already n long returns s. The reference types its arguments: s and pad must be
// text and n a number, else the result is NULL (lpad(123, 5, '0') is NULL); pad defaults to ' '.
ScalarImpl padder(bool left) {
  return [left](Args a, FunctionContext&) -> Value {
    if (!a[0].isText() || !a[1].isNumeric() || (a.size() > 2 && !a[2].isText())) return Value();
    std::string s = a[0].asText();
    std::optional<int64_t> n = fn::intArg(a[1]);
    if (!n) return Value();
    std::vector<uint32_t> pad = codePoints(a.size() > 2 ? a[2].asText() : " ");
    int64_t len = static_cast<int64_t>(utf8Length(s));
    if (len >= *n || pad.empty()) return Value::text(std::move(s));
    size_t widest = 1;  // the most UTF-8 bytes one pad code point takes
    for (uint32_t cp : pad) widest = std::max<size_t>(widest, cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
    requireValueFits(static_cast<double>(s.size()) + static_cast<double>(widest) * static_cast<double>(*n - len));
    std::string fill;
    for (int64_t i = 0; i < *n - len; ++i) utf8Append(fill, pad[static_cast<size_t>(i) % pad.size()]);
    return Value::text(left ? fill + s : s + fill);
  };
}

// hex(x): upper-case hex of the blob x converts to (text → its UTF-8 bytes, numbers and booleans
// → the bytes of their text). A JSON document is refused, as blob() refuses it.
Value hexValue(Args a, FunctionContext&) {
  const Value& v = a[0];
  if (v.isNull()) return Value();
  if (v.kind() == ValueKind::kJson) throw Error(ErrorCode::kType, "Cannot convert to BLOB for hex()");
  std::string bytes = v.kind() == ValueKind::kBlob ? std::string(v.asBlob().begin(), v.asBlob().end())
                                                   : fn::textArg(v);
  static const char kDigits[] = "0123456789ABCDEF";
  requireValueFits(2.0 * static_cast<double>(bytes.size()));
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return Value::text(std::move(out));
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// unhex(text): NULL for non-text input, an odd digit count or a non-hex character.
Value unhexValue(Args a, FunctionContext&) {
  if (!a[0].isText()) return Value();
  const std::string& s = a[0].asText();
  if (s.size() % 2 != 0) return Value();
  Bytes out;
  out.reserve(s.size() / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = hexDigit(s[i]), lo = hexDigit(s[i + 1]);
    if (hi < 0 || lo < 0) return Value();
    out.push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return Value::blob(std::move(out));
}

Value charValue(Args a, FunctionContext&) {
  std::string out;
  for (const Value& v : a) {
    std::optional<int64_t> cp = fn::intArg(v);
    if (cp && *cp >= 0 && *cp <= 0x10FFFF) utf8Append(out, static_cast<uint32_t>(*cp));
  }
  return Value::text(std::move(out));
}

Value unicodeValue(Args a, FunctionContext&) {
  if (a[0].isNull()) return Value();
  std::string s = fn::textArg(a[0]);
  if (s.empty()) return Value();
  size_t i = 0;
  return Value::integer(utf8Decode(s, i));
}

// like(pattern, text[, escape]) and glob(pattern, text): BOOLEAN, NULL if any argument is.
Value likeValue(Args a, FunctionContext&) {
  if (fn::anyNull(a)) return Value();
  std::optional<uint32_t> escape;
  if (a.size() > 2) {
    std::string e = fn::textArg(a[2]);
    if (utf8Length(e) != 1) throw Error(ErrorCode::kError, "ESCAPE expression must be a single character");
    size_t i = 0;
    escape = utf8Decode(e, i);
  }
  return Value::boolean(likeMatch(fn::textArg(a[0]), fn::textArg(a[1]), escape));
}

Value globValue(Args a, FunctionContext&) {
  if (fn::anyNull(a)) return Value();
  return Value::boolean(globMatch(fn::textArg(a[0]), fn::textArg(a[1])));
}

// split_string(text, delimiter): one row (value, ordinal) per piece of text between delimiters,
// ordinal counting from 0 (docs/functions.md), cut as JavaScript's String.split cuts: an empty
// delimiter splits into characters (code points), so '' split by '' has no pieces. Either
// argument not text: no rows.
std::vector<Row> splitString(Args a, FunctionContext&) {
  std::vector<Row> rows;
  if (!a[0].isText() || !a[1].isText()) return rows;
  const std::string& s = a[0].asText();
  const std::string& d = a[1].asText();
  auto add = [&rows](std::string piece) {
    rows.push_back(Row{Value::text(std::move(piece)), Value::integer(static_cast<int64_t>(rows.size()))});
  };
  if (d.empty()) {
    for (size_t i = 0; i < s.size();) {
      size_t start = i;
      utf8Decode(s, i);
      add(s.substr(start, i - start));
    }
    return rows;
  }
  size_t from = 0;
  for (size_t at = s.find(d); at != std::string::npos; at = s.find(d, from)) {
    add(s.substr(from, at - from));
    from = at + d.size();
  }
  add(s.substr(from));
  return rows;
}

}  // namespace

bool likeMatch(std::string_view pattern, std::string_view text, std::optional<uint32_t> escape) {
  // A pattern without wildcards, or a literal then one trailing `%` (the common prefix search):
  // code-point-exact matching of UTF-8 is byte matching, so no compiling and no decoding.
  size_t wild = escape ? 0 : pattern.find_first_of("%_");
  if (!escape && wild == std::string_view::npos) return pattern == text;
  if (!escape && wild == pattern.size() - 1 && pattern[wild] == '%') return text.substr(0, wild) == pattern.substr(0, wild);
  return matchTokens(compileLike(pattern, escape), codePoints(text));
}

bool globMatch(std::string_view pattern, std::string_view text) {
  return matchTokens(compileGlob(pattern), codePoints(text));
}

void registerStringFunctions(FunctionRegistry& r) {
  const LogicalType text = LogicalType::kText;
  const LogicalType integer = LogicalType::kInteger;
  fn::addNotNullScalar(r, "length", 1, 1, integer, lengthValue);
  fn::addNotNullScalar(r, "substr", 2, 3, text, substrValue);
  fn::addNotNullScalar(r, "substring", 2, 3, text, substrValue);
  fn::addNotNullScalar(r, "upper", 1, 1, text, caseMap(utf8Upper));
  fn::addNotNullScalar(r, "lower", 1, 1, text, caseMap(utf8Lower));
  fn::addNotNullScalar(r, "trim", 1, 2, text, trimmer(3));
  fn::addNotNullScalar(r, "ltrim", 1, 2, text, trimmer(1));
  fn::addNotNullScalar(r, "rtrim", 1, 2, text, trimmer(2));
  fn::addNotNullScalar(r, "replace", 3, 3, text, replaceValue);
  fn::addNotNullScalar(r, "instr", 2, 2, integer, instrValue);
  fn::addNotNullScalar(r, "reverse", 1, 1, text, reverseValue);
  fn::addNotNullScalar(r, "lpad", 2, 3, text, padder(true));
  fn::addNotNullScalar(r, "rpad", 2, 3, text, padder(false));
  fn::addScalar(r, "hex", 1, 1, text, hexValue);
  fn::addScalar(r, "unhex", 1, 1, LogicalType::kBlob, unhexValue);
  fn::addScalar(r, "char", 0, -1, text, charValue);
  fn::addScalar(r, "unicode", 1, 1, integer, unicodeValue);
  fn::addScalar(r, "like", 2, 3, LogicalType::kBoolean, likeValue);
  fn::addScalar(r, "glob", 2, 2, LogicalType::kBoolean, globValue);

  TableFunction split;
  split.name = "split_string";
  split.minArgs = split.maxArgs = 2;
  split.columns = {"value", "ordinal"};
  split.impl = splitString;
  r.addTable(std::move(split));
}

}  // namespace optic
