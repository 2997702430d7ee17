// The `.sqllogic` file format (test-corpus.md §1): a file's text becomes a list of blocks,
// exactly as the reference runner (quereus test/logic.spec.ts) reads it line by line.
//
// Parsing is separated from running so it can be unit-tested without an engine. The runner
// executes blocks in order; the first failing block aborts the file, so a block that is
// malformed in a way the reference only notices when it reaches it (bad `-- params:` JSON)
// is kept in place as a kMalformed block instead of failing the whole parse.
//
// String helpers reproduce the JS functions the reference uses (String.prototype.trim,
// split(';'), toLowerCase on ASCII), because block text and statement boundaries must match
// the reference's byte for byte.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tests/conformance/sqllogic_json.h"

namespace optic::sqllogic {

enum class BlockKind {
  kSetup,      // `-- run` or end of file: one Database::exec of the whole text
  kResult,     // `→ JSON`: statements split on ';', last one's rows compared with `expected`
  kError,      // `-- error: substring`: an error whose message contains `expected` must occur
  kMalformed,  // the file is broken here (e.g. invalid params JSON); `expected` says why
};

struct Block {
  BlockKind kind = BlockKind::kSetup;
  std::string sql;       // the accumulated SQL, JS-trimmed (never empty except kMalformed)
  std::string expected;  // result JSON text, error substring (may be empty), or malformed reason
  std::optional<JsValue> params;  // pending `-- params:` (result blocks bind them)
  int line = 0;          // 1-based line of the directive that closed the block (EOF: last line)
};

// The file's blocks in order.
std::vector<Block> parseBlocks(std::string_view fileText);

// `-- requires-capability:` directives of the leading comment block (lower-cased tokens,
// unioned). Returns nullopt and sets *error to "[file:line] …" on a hard error: unknown token,
// empty list, directive after the first SQL line, or a near-miss spelling.
std::optional<std::set<std::string>> parseRequiredCapabilities(std::string_view fileName,
                                                               std::string_view fileText,
                                                               std::string* error);

// The capability tokens the corpus defines (a closed set).
const std::set<std::string>& knownCapabilities();

// --- JS string semantics -----------------------------------------------------------------

// String.prototype.trim: strips JS WhiteSpace and LineTerminator code points (ASCII ones, NBSP,
// BOM, U+1680, U+2000–U+200A, U+2028/9, U+202F, U+205F, U+3000) from both ends of UTF-8 text.
std::string_view jsTrim(std::string_view s);

// ASCII lower-casing (the messages, names and directives the corpus compares are ASCII).
std::string asciiLower(std::string_view s);

// text.split(/\r?\n/).
std::vector<std::string_view> splitLines(std::string_view text);

// text.split(';').map(trim).filter(nonEmpty): naive, also inside string literals.
std::vector<std::string> splitStatements(std::string_view sql);

}  // namespace optic::sqllogic
