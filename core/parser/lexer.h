// Lexer: SQL text → tokens, for the parser (and the name scan of core/persistence/store_load.cpp).
//
// Tokens keep their byte range into the source (so the parser can slice statement and body
// texts) and their 1-based line/column, columns counted in characters (UTF-8 code points).
// Keywords are not distinguished here: an unquoted word is kWord and the parser compares it
// case-insensitively; a quoted identifier is kQuotedIdent and is never a keyword.
// Lexical errors (unterminated string, stray character) throw Error(kSyntax) with position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optic::parser {

enum class TokenKind : uint8_t {
  kWord,         // unquoted identifier or keyword; text = spelling
  kQuotedIdent,  // "…", `…`, […]; text = unquoted, escapes resolved
  kString,       // '…'; text = contents with '' resolved
  kBlob,         // x'…'; text = the hex digits
  kInteger,      // text = spelling
  kReal,         // text = spelling
  kParam,        // text = "" for `?`, else the name after the sigil (":name" → "name")
  kOperator,     // text = the punctuation ("(", "||", "->>", "<>", …)
  kEof,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;
  int line = 1;
  int column = 1;
  int offset = 0;  // byte offset of the first character
  int end = 0;     // byte offset one past the last character
};

// Tokenizes the whole text (comments and whitespace dropped); the last token is kEof.
std::vector<Token> tokenize(std::string_view sql);

// Formats a syntax-error message the way the reference does: "<msg> (at line L, column C)".
std::string withPosition(const std::string& message, int line, int column);

}  // namespace optic::parser
