// Block parsing and the capability directive, mirroring the reference runner line for line
// (see sqllogic_format.h and test-corpus.md §1).
#include "tests/conformance/sqllogic_format.h"

#include <cstdint>

namespace optic::sqllogic {

namespace {

constexpr std::string_view kArrow = "\xE2\x86\x92";  // U+2192 '→'
constexpr std::string_view kBom = "\xEF\xBB\xBF";    // U+FEFF

// Byte length of the JS whitespace code point starting at s[i], or 0 if there is none.
size_t whitespaceAt(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;  // \t \n \v \f \r
  auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (c == 0xC2 && b(1) == 0xA0) return 2;                                    // U+00A0
  if (c == 0xE1 && b(1) == 0x9A && b(2) == 0x80) return 3;                    // U+1680
  if (c == 0xE2 && b(1) == 0x80) {
    unsigned char t = b(2);
    if ((t >= 0x80 && t <= 0x8A) || t == 0xA8 || t == 0xA9 || t == 0xAF) return 3;  // U+2000–200A, 2028/9, 202F
  }
  if (c == 0xE2 && b(1) == 0x81 && b(2) == 0x9F) return 3;                    // U+205F
  if (c == 0xE3 && b(1) == 0x80 && b(2) == 0x80) return 3;                    // U+3000
  if (c == 0xEF && b(1) == 0xBB && b(2) == 0xBF) return 3;                    // U+FEFF
  return 0;
}

// Byte length of the JS whitespace code point ending at s[end-1], or 0.
size_t whitespaceEndingAt(std::string_view s, size_t end) {
  for (size_t len = 1; len <= 3 && len <= end; ++len) {
    if (whitespaceAt(s, end - len) == len) return len;
  }
  return 0;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The per-file parse state of the reference runner's main loop.
class BlockParser {
 public:
  std::vector<Block> run(std::string_view text) {
    std::vector<std::string_view> lines = splitLines(text);
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = static_cast<int>(i + 1);
      onLine(lines[i]);
    }
    if (!jsTrim(sql_).empty()) emit(BlockKind::kSetup, "");
    return std::move(blocks_);
  }

 private:
  void onLine(std::string_view raw) {
    std::string_view s = jsTrim(raw);
    if (s.empty()) return;
    if (startsWith(s, "--")) return onComment(s);
    if (startsWith(s, kArrow)) {
      if (!jsTrim(sql_).empty()) emit(BlockKind::kResult, std::string(jsTrim(s.substr(kArrow.size()))));
      return;
    }
    // SQL: the naive cut at the first "--", even inside a string literal.
    std::string_view part = raw.substr(0, raw.find("--"));
    if (!jsTrim(part).empty()) {
      sql_ += part;
      sql_ += '\n';
    }
  }

  void onComment(std::string_view s) {
    std::string lower = asciiLower(s);
    if (startsWith(lower, "-- error:")) {
      if (!jsTrim(sql_).empty()) emit(BlockKind::kError, std::string(jsTrim(s.substr(9))));
    } else if (startsWith(lower, "-- params:")) {
      std::string error;
      std::string_view json = jsTrim(s.substr(10));
      params_ = parseJson(json, &error);
      if (!params_) {
        malformed("invalid params JSON (" + error + "): " + std::string(json));
      }
    } else if (lower == "-- run") {
      if (!jsTrim(sql_).empty()) emit(BlockKind::kSetup, "");
    }
  }

  void emit(BlockKind kind, std::string expected) {
    Block b;
    b.kind = kind;
    b.sql = std::string(jsTrim(sql_));
    b.expected = std::move(expected);
    b.params = std::move(params_);
    b.line = line_;
    blocks_.push_back(std::move(b));
    sql_.clear();
    params_.reset();
  }

  // The reference throws here, aborting the file: record the spot, keep the pending SQL.
  void malformed(std::string why) {
    Block b;
    b.kind = BlockKind::kMalformed;
    b.expected = std::move(why);
    b.line = line_;
    blocks_.push_back(std::move(b));
  }

  std::vector<Block> blocks_;
  std::string sql_;
  std::optional<JsValue> params_;
  int line_ = 0;
};

bool isSpaceOrComma(char c) { return c == ',' || whitespaceAt(std::string_view(&c, 1), 0) == 1; }

// /^--\s*requires-capability\s*:\s*(.*)$/i on a trimmed line; returns the token text.
std::optional<std::string_view> matchDirective(std::string_view s) {
  std::string lower = asciiLower(s);
  size_t i = 2;
  if (!startsWith(lower, "--")) return std::nullopt;
  while (i < lower.size() && whitespaceAt(lower, i) == 1) ++i;
  constexpr std::string_view kName = "requires-capability";
  if (lower.compare(i, kName.size(), kName) != 0) return std::nullopt;
  i += kName.size();
  while (i < lower.size() && whitespaceAt(lower, i) == 1) ++i;
  if (i >= lower.size() || lower[i] != ':') return std::nullopt;
  return s.substr(i + 1);
}

// /^--\s*require[sd]?[-_ ]?capabilit/i
bool isNearMiss(std::string_view s) {
  std::string lower = asciiLower(s);
  if (!startsWith(lower, "--")) return false;
  size_t i = 2;
  while (i < lower.size() && whitespaceAt(lower, i) == 1) ++i;
  if (lower.compare(i, 7, "require") != 0) return false;
  i += 7;
  if (i < lower.size() && (lower[i] == 's' || lower[i] == 'd')) ++i;
  if (i < lower.size() && (lower[i] == '-' || lower[i] == '_' || lower[i] == ' ')) ++i;
  return lower.compare(i, 9, "capabilit") == 0;
}

std::string knownList() {
  std::string out;
  for (const std::string& c : knownCapabilities()) out += (out.empty() ? "" : ", ") + c;
  return out;
}

// Folds the directive's tokens into `into`; false (with *error) on an empty or unknown token.
bool addTokens(std::string_view rest, std::set<std::string>& into, std::string* error) {
  std::vector<std::string> tokens;
  std::string current;
  for (char c : rest) {
    if (isSpaceOrComma(c)) {
      if (!current.empty()) tokens.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  if (tokens.empty()) {
    *error = "`-- requires-capability:` declares no tokens. Valid capabilities: " + knownList() + ".";
    return false;
  }
  for (const std::string& raw : tokens) {
    std::string token = asciiLower(raw);
    if (!knownCapabilities().count(token)) {
      *error = "unknown capability \"" + raw + "\". Valid capabilities: " + knownList() + ".";
      return false;
    }
    into.insert(token);
  }
  return true;
}

}  // namespace

std::vector<Block> parseBlocks(std::string_view fileText) { return BlockParser().run(fileText); }

const std::set<std::string>& knownCapabilities() {
  static const std::set<std::string> kKnown = {"standalone-index-ddl"};
  return kKnown;
}

std::optional<std::set<std::string>> parseRequiredCapabilities(std::string_view fileName,
                                                               std::string_view fileText,
                                                               std::string* error) {
  if (startsWith(fileText, kBom)) fileText.remove_prefix(kBom.size());
  std::set<std::string> required;
  bool inLeadingBlock = true;
  std::vector<std::string_view> lines = splitLines(fileText);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view s = jsTrim(lines[i]);
    std::string why;
    if (s.empty()) continue;
    if (!startsWith(s, "--")) {
      inLeadingBlock = false;  // keep scanning: a late directive must still fail loudly
      continue;
    }
    if (std::optional<std::string_view> rest = matchDirective(s)) {
      if (!inLeadingBlock) {
        why = "`-- requires-capability:` must appear in the leading comment block, before the first SQL line.";
      } else if (addTokens(*rest, required, &why)) {
        continue;
      }
    } else if (isNearMiss(s)) {
      why = "`" + std::string(s) + "` looks like a capability directive but is not the canonical form. "
            "Use `-- requires-capability: <tokens>`.";
    } else {
      continue;
    }
    *error = "[" + std::string(fileName) + ":" + std::to_string(i + 1) + "] " + why;
    return std::nullopt;
  }
  return required;
}

std::string_view jsTrim(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    size_t n = whitespaceAt(s, begin);
    if (n == 0) break;
    begin += n;
  }
  size_t end = s.size();
  while (end > begin) {
    size_t n = whitespaceEndingAt(s.substr(0, end), end);
    if (n == 0) break;
    end -= n;
  }
  return s.substr(begin, end - begin);
}

std::string asciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (;;) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(start));
      return lines;
    }
    size_t end = (nl > start && text[nl - 1] == '\r') ? nl - 1 : nl;
    lines.push_back(text.substr(start, end - start));
    start = nl + 1;
  }
}

std::vector<std::string> splitStatements(std::string_view sql) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t semi = sql.find(';', start);
    std::string_view piece = sql.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    std::string_view trimmed = jsTrim(piece);
    if (!trimmed.empty()) out.emplace_back(trimmed);
    if (semi == std::string_view::npos) return out;
    start = semi + 1;
  }
}

}  // namespace optic::sqllogic
