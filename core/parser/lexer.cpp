// Lexer implementation: a single forward pass over the bytes.
//
// Invariant: `pos_` always sits on a character boundary; `line_`/`col_` describe `pos_`.
// Columns advance once per UTF-8 lead byte, so multi-byte characters count as one column.
#include "core/parser/lexer.h"

#include <cctype>

#include "core/common/error.h"

namespace optic::parser {

std::string withPosition(const std::string& message, int line, int column) {
  return message + " (at line " + std::to_string(line) + ", column " + std::to_string(column) +
         ")";
}

namespace {

bool isIdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool isIdentChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skipSpaceAndComments();
      Token t;
      t.line = line_;
      t.column = col_;
      t.offset = static_cast<int>(pos_);
      if (pos_ >= sql_.size()) {
        t.kind = TokenKind::kEof;
        t.end = t.offset;
        out.push_back(std::move(t));
        return out;
      }
      lexOne(t);
      t.end = static_cast<int>(pos_);
      out.push_back(std::move(t));
    }
  }

 private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < sql_.size() ? sql_[pos_ + ahead] : '\0';
  }

  void advance() {
    if (pos_ >= sql_.size()) return;
    char c = sql_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      // Continuation bytes of the next character must not count; skip them here.
      while (pos_ < sql_.size() && (static_cast<unsigned char>(sql_[pos_]) & 0xC0) == 0x80) ++pos_;
      ++col_;
    }
  }

  [[noreturn]] void error(const std::string& msg, int line, int col) const {
    throw Error(ErrorCode::kSyntax, withPosition(msg, line, col), line, col);
  }

  void skipSpaceAndComments() {
    for (;;) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance();
      } else if ((c == '-' && peek(1) == '-') || (c == '/' && peek(1) == '/')) {
        while (pos_ < sql_.size() && peek() != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        skipBlockComment();
      } else {
        return;
      }
    }
  }

  // A /* … */ comment; comments nest, as in the reference's lexer.
  void skipBlockComment() {
    int line = line_, col = col_;
    advance();
    advance();
    for (int depth = 1; depth > 0;) {
      if (pos_ >= sql_.size()) error("Unterminated comment.", line, col);
      if (peek() == '/' && peek(1) == '*') {
        advance();
        ++depth;
      } else if (peek() == '*' && peek(1) == '/') {
        advance();
        --depth;
      }
      advance();
    }
  }

  // x'…': hex digits, whitespace between them ignored; the reference's lexer wording on failure.
  void lexBlob(Token& t) {
    advance();  // x
    advance();  // opening quote
    std::string hex;
    for (;;) {
      if (pos_ >= sql_.size()) error("Unterminated blob literal.", t.line, t.column);
      char c = peek();
      if (c == '\'') break;
      if (std::isxdigit(static_cast<unsigned char>(c))) {
        hex += c;
      } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        error("Invalid character in blob literal.", line_, col_);
      }
      advance();
    }
    advance();  // closing quote
    if (hex.size() % 2 != 0) error("Blob literal must have an even number of hex digits.", t.line, t.column);
    t.kind = TokenKind::kBlob;
    t.text = std::move(hex);
  }

  // Reads a delimited run ending at `close`, where a doubled `close` escapes itself.
  std::string readDelimited(char close, const char* unterminated, const Token& t) {
    std::string s;
    advance();  // opening delimiter
    for (;;) {
      if (pos_ >= sql_.size()) error(unterminated, t.line, t.column);
      char c = peek();
      if (c == close) {
        if (close != ']' && peek(1) == close) {
          s += c;
          advance();
          advance();
          continue;
        }
        advance();
        return s;
      }
      size_t start = pos_;
      advance();
      s.append(sql_.substr(start, pos_ - start));
    }
  }

  void lexNumber(Token& t) {
    size_t start = pos_;
    bool real = false;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X') && std::isxdigit(static_cast<unsigned char>(peek(2)))) {
      advance();
      advance();
      while (std::isxdigit(static_cast<unsigned char>(peek()))) advance();
    } else {
      while (isDigit(peek())) advance();
      if (peek() == '.') {
        real = true;
        advance();
        while (isDigit(peek())) advance();
      }
      if (peek() == 'e' || peek() == 'E') {
        real = true;
        advance();
        if (peek() == '+' || peek() == '-') advance();
        if (!isDigit(peek())) error("Invalid number literal: expected digits after exponent.", t.line, t.column);
        while (isDigit(peek())) advance();
      }
    }
    t.kind = real ? TokenKind::kReal : TokenKind::kInteger;
    t.text = std::string(sql_.substr(start, pos_ - start));
  }

  void lexParam(Token& t) {
    char sigil = peek();
    advance();
    t.kind = TokenKind::kParam;
    if (sigil == '?') return;  // `?N` is not a form of the dialect: the digits lex separately
    size_t start = pos_;
    while (pos_ < sql_.size() && isIdentChar(static_cast<unsigned char>(peek()))) advance();
    if (pos_ == start) error("Expected identifier or number after parameter prefix", t.line, t.column);
    t.text = std::string(sql_.substr(start, pos_ - start));
  }

  void lexOperator(Token& t) {
    static const char* const kMulti[] = {"->>", "||", "->", "==", "!=", "<>", "<=", ">="};
    for (const char* op : kMulti) {
      std::string_view v(op);
      if (sql_.substr(pos_, v.size()) == v) {
        for (size_t i = 0; i < v.size(); ++i) advance();
        t.kind = TokenKind::kOperator;
        t.text = std::string(v);
        return;
      }
    }
    char c = peek();
    static const std::string_view kSingle = "()[],;.+-*/%=<>~{}:";
    if (kSingle.find(c) == std::string_view::npos) {
      error(std::string("Unexpected character: ") + c, t.line, t.column);
    }
    advance();
    t.kind = TokenKind::kOperator;
    t.text = std::string(1, c);
  }

  void lexOne(Token& t) {
    char c = peek();
    unsigned char uc = static_cast<unsigned char>(c);
    if ((c == 'x' || c == 'X') && peek(1) == '\'') return lexBlob(t);
    if (isIdentStart(uc)) {
      size_t start = pos_;
      while (pos_ < sql_.size() && isIdentChar(static_cast<unsigned char>(peek()))) advance();
      t.kind = TokenKind::kWord;
      t.text = std::string(sql_.substr(start, pos_ - start));
      return;
    }
    if (isDigit(c) || (c == '.' && isDigit(peek(1)))) return lexNumber(t);
    switch (c) {
      case '\'':
        t.kind = TokenKind::kString;
        t.text = readDelimited('\'', "Unterminated string.", t);
        return;
      case '"':
        t.kind = TokenKind::kQuotedIdent;
        t.text = readDelimited('"', "Unterminated identifier.", t);
        return;
      case '`':
        t.kind = TokenKind::kQuotedIdent;
        t.text = readDelimited('`', "Unterminated identifier.", t);
        return;
      case '[':
        t.kind = TokenKind::kQuotedIdent;
        t.text = readDelimited(']', "Unterminated identifier.", t);
        return;
      case '?':
      case '$':
        return lexParam(t);
      case ':':
        if (peek(1) != ':' ) return lexParam(t);
        break;
      default:
        break;
    }
    lexOperator(t);
  }

  std::string_view sql_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view sql) { return Lexer(sql).run(); }

}  // namespace optic::parser
