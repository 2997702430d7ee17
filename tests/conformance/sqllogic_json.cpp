// JsValue construction, JSON.parse-compatible parsing, chai deep.equal and display rendering.
// See sqllogic_json.h for the value model and why we parse JSON by hand.
#include "tests/conformance/sqllogic_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace optic::sqllogic {

JsValue JsValue::boolean(bool b) {
  JsValue v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}

JsValue JsValue::number(double d) {
  JsValue v;
  v.kind_ = Kind::kNumber;
  v.number_ = d;
  return v;
}

JsValue JsValue::string(std::string s) {
  JsValue v;
  v.kind_ = Kind::kString;
  v.string_ = std::move(s);
  return v;
}

JsValue JsValue::array(std::vector<JsValue> items) {
  JsValue v;
  v.kind_ = Kind::kArray;
  v.items_ = std::move(items);
  return v;
}

JsValue JsValue::object() {
  JsValue v;
  v.kind_ = Kind::kObject;
  return v;
}

void JsValue::set(std::string key, JsValue v) {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      items_[i] = std::move(v);
      return;
    }
  }
  keys_.push_back(std::move(key));
  items_.push_back(std::move(v));
}

const JsValue* JsValue::find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

namespace {

// Recursive-descent JSON reader over a string_view. Each parse* method consumes exactly one
// production or sets error_ and returns nullopt.
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  std::optional<JsValue> parseDocument() {
    skipWhitespace();
    std::optional<JsValue> v = parseValue(0);
    if (!v) return std::nullopt;
    skipWhitespace();
    if (pos_ != text_.size()) return failAt("unexpected trailing text");
    return v;
  }

  const std::string& error() const { return error_; }

 private:
  static constexpr int kMaxDepth = 512;

  std::nullopt_t failAt(const std::string& what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(pos_);
    return std::nullopt;
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipWhitespace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool consumeLiteral(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::optional<JsValue> parseValue(int depth) {
    if (depth > kMaxDepth) return failAt("nesting too deep");
    switch (peek()) {
      case '{': return parseObject(depth);
      case '[': return parseArray(depth);
      case '"': {
        std::optional<std::string> s = parseString();
        if (!s) return std::nullopt;
        return JsValue::string(std::move(*s));
      }
      case 't': if (consumeLiteral("true")) return JsValue::boolean(true); break;
      case 'f': if (consumeLiteral("false")) return JsValue::boolean(false); break;
      case 'n': if (consumeLiteral("null")) return JsValue::null(); break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return parseNumber();
    }
    return failAt("unexpected token");
  }

  std::optional<JsValue> parseObject(int depth) {
    ++pos_;  // '{'
    JsValue obj = JsValue::object();
    skipWhitespace();
    if (peek() == '}') {
      ++pos_;
      return obj;
    }
    for (;;) {
      skipWhitespace();
      if (peek() != '"') return failAt("expected object key");
      std::optional<std::string> key = parseString();
      if (!key) return std::nullopt;
      skipWhitespace();
      if (peek() != ':') return failAt("expected ':'");
      ++pos_;
      skipWhitespace();
      std::optional<JsValue> v = parseValue(depth + 1);
      if (!v) return std::nullopt;
      obj.set(std::move(*key), std::move(*v));
      skipWhitespace();
      if (peek() == ',') { ++pos_; continue; }
      if (peek() == '}') { ++pos_; return obj; }
      return failAt("expected ',' or '}'");
    }
  }

  std::optional<JsValue> parseArray(int depth) {
    ++pos_;  // '['
    JsValue arr = JsValue::array();
    skipWhitespace();
    if (peek() == ']') {
      ++pos_;
      return arr;
    }
    for (;;) {
      skipWhitespace();
      std::optional<JsValue> v = parseValue(depth + 1);
      if (!v) return std::nullopt;
      arr.push(std::move(*v));
      skipWhitespace();
      if (peek() == ',') { ++pos_; continue; }
      if (peek() == ']') { ++pos_; return arr; }
      return failAt("expected ',' or ']'");
    }
  }

  // The JSON number grammar is checked here; strtod then yields the nearest double (including
  // -0 and ±Infinity on overflow, as JSON.parse does).
  std::optional<JsValue> parseNumber() {
    size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (isDigit(peek())) ++pos_;
    } else {
      return failAt("bad number");
    }
    if (peek() == '.') {
      ++pos_;
      if (!isDigit(peek())) return failAt("bad number fraction");
      while (isDigit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!isDigit(peek())) return failAt("bad number exponent");
      while (isDigit(peek())) ++pos_;
    }
    std::string token(text_.substr(start, pos_ - start));
    return JsValue::number(std::strtod(token.c_str(), nullptr));
  }

  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  std::optional<unsigned> parseHex4() {
    if (pos_ + 4 > text_.size()) return std::nullopt;
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else return std::nullopt;
    }
    return v;
  }

  // A \u escape, combining a surrogate pair when one follows. A lone surrogate is kept as its
  // 3-byte form: JS strings may hold one, and it must still compare unequal to anything else.
  bool appendUnicodeEscape(std::string& out) {
    std::optional<unsigned> cp = parseHex4();
    if (!cp) return false;
    if (*cp >= 0xD800 && *cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
      size_t save = pos_;
      pos_ += 2;
      std::optional<unsigned> low = parseHex4();
      if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
        appendUtf8(out, 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00));
        return true;
      }
      pos_ = save;
    }
    appendUtf8(out, *cp);
    return true;
  }

  static void appendUtf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::optional<std::string> parseString() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (atEnd()) return failAt("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) return failAt("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd()) return failAt("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u':
          if (!appendUnicodeEscape(out)) return failAt("bad \\u escape");
          break;
        default: return failAt("bad escape");
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

bool numbersEqual(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (a != b) return false;
  return a != 0 || std::signbit(a) == std::signbit(b);
}

std::string numberToDisplay(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
  if (d == 0 && std::signbit(d)) return "-0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, res.ptr);
}

void appendQuoted(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void appendDisplay(std::string& out, const JsValue& v) {
  switch (v.kind()) {
    case JsValue::Kind::kNull: out += "null"; return;
    case JsValue::Kind::kBool: out += v.asBool() ? "true" : "false"; return;
    case JsValue::Kind::kNumber: out += numberToDisplay(v.asNumber()); return;
    case JsValue::Kind::kString: appendQuoted(out, v.asString()); return;
    case JsValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) out += ',';
        appendDisplay(out, v.items()[i]);
      }
      out += ']';
      return;
    case JsValue::Kind::kObject:
      out += '{';
      for (size_t i = 0; i < v.keys().size(); ++i) {
        if (i) out += ',';
        appendQuoted(out, v.keys()[i]);
        out += ':';
        appendDisplay(out, v.items()[i]);
      }
      out += '}';
      return;
  }
}

}  // namespace

std::optional<JsValue> parseJson(std::string_view text, std::string* error) {
  JsonReader reader(text);
  std::optional<JsValue> v = reader.parseDocument();
  if (!v && error) *error = reader.error();
  return v;
}

bool deepEqual(const JsValue& a, const JsValue& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case JsValue::Kind::kNull: return true;
    case JsValue::Kind::kBool: return a.asBool() == b.asBool();
    case JsValue::Kind::kNumber: return numbersEqual(a.asNumber(), b.asNumber());
    case JsValue::Kind::kString: return a.asString() == b.asString();
    case JsValue::Kind::kArray:
      if (a.items().size() != b.items().size()) return false;
      for (size_t i = 0; i < a.items().size(); ++i) {
        if (!deepEqual(a.items()[i], b.items()[i])) return false;
      }
      return true;
    case JsValue::Kind::kObject:
      // Keys are unique within each object, so equal sizes plus "every key of a is in b with an
      // equal value" is key-set equality.
      if (a.keys().size() != b.keys().size()) return false;
      for (size_t i = 0; i < a.keys().size(); ++i) {
        const JsValue* other = b.find(a.keys()[i]);
        if (!other || !deepEqual(a.items()[i], *other)) return false;
      }
      return true;
  }
  return false;
}

std::string toDisplay(const JsValue& v) {
  std::string out;
  appendDisplay(out, v);
  return out;
}

std::string truncateForDisplay(std::string text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  text += "…";
  return text;
}

}  // namespace optic::sqllogic
