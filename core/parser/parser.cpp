// Parser: recursive descent over the lexer's tokens, building the AST of ast.h.
//
// One Parser object parses one text. Invariants:
//  - `pos_` indexes the next unconsumed token; the token vector always ends with kEof, so
//    peeking never runs past the end.
//  - every syntax error is thrown through errorAt(), which formats the reference's
//    "<message> (at line L, column C)" text and sets the Error's line/column.
//  - unquoted words are keywords only where the grammar expects one; `isReserved` lists the
//    words that may never serve as a bare alias / table name / column name, so clause
//    keywords end lists (`select a from t where …` does not take `where` as an alias).
// Statement texts are sliced from the source by token byte offsets.
#include "core/parser/parser.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "core/common/bigint.h"
#include "core/common/error.h"
#include "core/common/names.h"
#include "core/parser/lexer.h"

namespace optic {

using namespace ast;
using parser::Token;
using parser::TokenKind;

namespace {

std::string trimRight(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}


// Words that end an expression, a list or a name position; never bare identifiers.
bool isReserved(const std::string& word) {
  static const std::unordered_set<std::string> kReserved = {
      "select", "from", "where", "group", "having", "order", "limit", "offset", "union",
      "intersect", "except", "diff", "join", "inner", "left", "right", "full", "cross", "outer",
      "natural", "on", "using", "as", "and", "or", "xor", "not", "null", "is", "in", "between",
      "like", "glob", "regexp", "match", "case", "when", "then", "else", "end", "exists", "cast",
      "collate", "distinct", "all", "values", "insert", "update", "delete", "into", "set",
      "create", "drop", "alter", "table", "index", "view", "with", "returning", "by", "asc",
      "desc", "default", "primary", "references", "check", "constraint", "unique", "foreign",
      "window", "over", "lateral", "escape", "option", "filter", "true",
      "false", "begin", "commit", "rollback", "savepoint", "release", "pragma", "analyze",
      "declare", "apply", "explain", "refresh", "nulls",
  };
  return kReserved.count(lowerName(word)) != 0;
}

ConflictAction conflictActionFromWord(const std::string& w) {
  std::string l = lowerName(w);
  if (l == "rollback") return ConflictAction::kRollback;
  if (l == "abort") return ConflictAction::kAbort;
  if (l == "fail") return ConflictAction::kFail;
  if (l == "ignore") return ConflictAction::kIgnore;
  if (l == "replace") return ConflictAction::kReplace;
  return ConflictAction::kNone;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// An integer literal's value: int64 when it fits, otherwise the exact big integer (literals
// have no 64-bit clamp: 99999999999999999999999999 is exact, as in the reference).
Value integerLiteralValue(const std::string& spelling) {
  if (spelling.size() > 2 && (spelling[1] == 'x' || spelling[1] == 'X')) {
    uint64_t v = 0;
    for (size_t i = 2; i < spelling.size(); ++i) v = v * 16 + static_cast<uint64_t>(hexDigit(spelling[i]));
    return Value::integer(static_cast<int64_t>(v));
  }
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(spelling.c_str(), &end, 10);
  if (errno == 0 && end && *end == '\0') return Value::integer(v);
  if (std::optional<BigInt> big = BigInt::parse(spelling)) return Value::fromBigInt(*big);
  return Value::real(std::strtod(spelling.c_str(), nullptr));
}

// A literal negated where the parser folds the sign into it (DEFAULT -5, pragma values).
Value negatedLiteral(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInteger:
      return v.asInt() == INT64_MIN ? Value::fromBigInt(-BigInt(v.asInt())) : Value::integer(-v.asInt());
    case ValueKind::kBigInt: return Value::fromBigInt(-v.asBigInt());
    default: return Value::real(-v.asReal());
  }
}

class Parser {
 public:
  explicit Parser(std::string_view sql) : sql_(sql), toks_(parser::tokenize(sql)) {}

  std::vector<StatementPtr> parseAll() {
    std::vector<StatementPtr> out;
    for (;;) {
      while (acceptOp(";")) {
      }
      if (atEof()) return out;
      out.push_back(parseStatementWithText());
    }
  }

  ExprPtr parseStandaloneExpr() {
    ExprPtr e = parseExpr();
    if (!atEof()) errorHere("Unexpected token '" + cur().text + "' after expression");
    return e;
  }

 private:
  // ---- token access ---------------------------------------------------------------------

  const Token& cur() const { return toks_[pos_]; }
  const Token& peekTok(size_t k = 1) const {
    size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool atEof() const { return cur().kind == TokenKind::kEof; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  int prevEnd() const { return pos_ == 0 ? 0 : toks_[pos_ - 1].end; }

  static bool tokIsWord(const Token& t, std::string_view w) {
    return t.kind == TokenKind::kWord && sameName(t.text, w);
  }
  static bool tokIsOp(const Token& t, std::string_view op) {
    return t.kind == TokenKind::kOperator && t.text == op;
  }
  bool isWord(std::string_view w, size_t k = 0) const { return tokIsWord(peekTok(k), w); }
  bool isOp(std::string_view op, size_t k = 0) const { return tokIsOp(peekTok(k), op); }
  bool acceptWord(std::string_view w) {
    if (!isWord(w)) return false;
    next();
    return true;
  }
  bool acceptOp(std::string_view op) {
    if (!isOp(op)) return false;
    next();
    return true;
  }
  void expectWord(std::string_view w, const std::string& msg) {
    if (!acceptWord(w)) errorHere(msg);
  }
  void expectWord(std::string_view w) {
    std::string up(w);
    for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    expectWord(w, "Expected '" + up + "'");
  }
  void expectOp(std::string_view op, const std::string& msg) {
    if (!acceptOp(op)) errorHere(msg);
  }
  void expectOp(std::string_view op) { expectOp(op, "Expected '" + std::string(op) + "'"); }

  [[noreturn]] void errorAt(const Token& t, const std::string& msg) const {
    throw Error(ErrorCode::kSyntax, parser::withPosition(msg, t.line, t.column), t.line, t.column);
  }
  [[noreturn]] void errorHere(const std::string& msg) const { errorAt(cur(), msg); }

  static SourcePos posOf(const Token& t) { return SourcePos{t.line, t.column, t.offset}; }
  SourcePos here() const { return posOf(cur()); }

  std::string textFrom(int startOffset) const {
    return std::string(sql_.substr(startOffset, prevEnd() - startOffset));
  }

  // ---- names ------------------------------------------------------------------------------

  bool isIdentTok(const Token& t, bool allowReserved = false) const {
    if (t.kind == TokenKind::kQuotedIdent) return true;
    return t.kind == TokenKind::kWord && (allowReserved || !isReserved(t.text));
  }
  bool atIdent(size_t k = 0) const { return isIdentTok(peekTok(k)); }

  std::string identifier(const std::string& msg) {
    if (!atIdent()) errorHere(msg);
    return next().text;
  }
  // A name where any word is acceptable (after `.`, as a key, …).
  std::string anyName(const std::string& msg) {
    if (!isIdentTok(cur(), true)) errorHere(msg);
    return next().text;
  }

  QualifiedName qualifiedName(const std::string& msg) {
    QualifiedName q;
    q.pos = here();
    q.name = identifier(msg);
    if (isOp(".") && isIdentTok(peekTok(1), true)) {
      next();
      q.schema = std::move(q.name);
      q.name = anyName(msg);
    }
    return q;
  }

  std::vector<std::string> parenNameList(const std::string& msg) {
    std::vector<std::string> names;
    expectOp("(");
    if (!isOp(")")) {
      do {
        names.push_back(identifier(msg));
      } while (acceptOp(","));
    }
    expectOp(")");
    return names;
  }

  // An optional alias: `as name` or a bare non-reserved word.
  std::string optionalAlias() {
    if (acceptWord("as")) return anyName("Expected alias after AS");
    if (!atIdent()) return "";
    // Schema-body items need no separator, so their leading words cannot be bare aliases.
    if (inSchemaBody_ && (isWord("seed") || isWord("assertion") || isWord("materialized")))
      return "";
    return next().text;
  }

  // ---- literals and tags ------------------------------------------------------------------

  // A literal value in tags, pragmas and options: string, number (signed), true/false/null,
  // or a bare word (as text).
  Value literalValue(const std::string& msg) {
    bool negative = false;
    if (isOp("-") || isOp("+")) negative = next().text == "-";
    const Token& t = cur();
    switch (t.kind) {
      case TokenKind::kString:
        next();
        return Value::text(t.text);
      case TokenKind::kInteger: {
        next();
        Value v = integerLiteralValue(t.text);
        return negative ? negatedLiteral(v) : v;
      }
      case TokenKind::kReal: {
        next();
        double d = std::strtod(t.text.c_str(), nullptr);
        return Value::real(negative ? -d : d);
      }
      case TokenKind::kWord:
      case TokenKind::kQuotedIdent: {
        next();
        if (t.kind == TokenKind::kWord) {
          if (sameName(t.text, "true")) return Value::boolean(true);
          if (sameName(t.text, "false")) return Value::boolean(false);
          if (sameName(t.text, "null")) return Value::null();
        }
        return Value::text(t.text);
      }
      default:
        errorHere(msg);
    }
  }

  // `(key = value, …)`: keys are names or strings.
  std::vector<std::pair<std::string, Value>> keyValueList() {
    std::vector<std::pair<std::string, Value>> out;
    expectOp("(");
    if (!isOp(")")) {
      do {
        if (isOp(")")) break;
        std::string key;
        if (cur().kind == TokenKind::kString) key = next().text;
        else key = anyName("Expected tag name");
        expectOp("=", "Expected '=' after '" + key + "'");
        out.emplace_back(std::move(key), literalValue("Expected literal value"));
      } while (acceptOp(","));
    }
    expectOp(")");
    return out;
  }

  Tags tagList() {
    Tags tags;
    for (auto& kv : keyValueList()) tags.push_back(Tag{std::move(kv.first), std::move(kv.second)});
    return tags;
  }

  bool atWithTags() const { return isWord("with") && isWord("tags", 1); }
  bool acceptWithTags(Tags& tags) {
    if (!atWithTags()) return false;
    next();
    next();
    Tags more = tagList();
    for (auto& t : more) tags.push_back(std::move(t));
    return true;
  }

  // ---- expressions ------------------------------------------------------------------------

  ExprPtr makeExpr(ExprKind kind, SourcePos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }

  ExprPtr makeBinary(std::string op, ExprPtr l, ExprPtr r, SourcePos pos) {
    requireShallowChain(*l);
    auto e = makeExpr(ExprKind::kBinary, pos);
    e->op = std::move(op);
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }

  // Every level of parentheses, subquery, CASE or function argument re-enters parseExpr. Past
  // kMaxExprDepth the recursive descent would exhaust the stack (a crash natively, a RangeError
  // in wasm), so deeper input is a syntax error at the token that goes too deep.
  static constexpr int kMaxExprDepth = 200;
  // A chain of left-associative operators (`a + b + …`, `x = 1 or x = 2 or …`, `c collate x
  // collate y …`) is built by a loop, not by recursion, but every later walk of the tree (binding,
  // printing, evaluation, its destructor) recurses along its first operands: before one more link
  // is added, the chain so far plus the nesting it sits in stay under kMaxTreeDepth, else the text is a
  // syntax error, as deep nesting is (500: the binder's frames in a sanitizer build are large).
  static constexpr int kMaxTreeDepth = 500;
  void requireShallowChain(const Expr& operand) {
    int depth = exprDepth_;
    for (const Expr* e = &operand; e && !e->args.empty(); e = e->args.front().get()) {
      if (++depth >= kMaxTreeDepth) errorHere("Expression nested too deeply (more than 500 levels)");
    }
  }
  ExprPtr parseExpr() {
    if (exprDepth_ >= kMaxExprDepth) errorHere("Expression nested too deeply (more than 200 levels)");
    ++exprDepth_;
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{exprDepth_};
    return parseOr();
  }

  ExprPtr parseOr() {
    ExprPtr left = parseAnd();
    for (;;) {
      SourcePos pos = here();
      if (acceptWord("or")) left = makeBinary("or", std::move(left), parseAnd(), pos);
      else if (acceptWord("xor")) left = makeBinary("xor", std::move(left), parseAnd(), pos);
      else return left;
    }
  }

  ExprPtr parseAnd() {
    ExprPtr left = parseNot();
    while (isWord("and")) {
      SourcePos pos = here();
      next();
      left = makeBinary("and", std::move(left), parseNot(), pos);
    }
    return left;
  }

  // The precedence ladder mirrors the reference parser, loosest first: OR/XOR, AND, prefix NOT,
  // the IS predicates, = == != <>, then < <= > >= [NOT] IN/BETWEEN/LIKE, + -, * / %, unary
  // - + ~, ||, COLLATE, -> ->>, primaries. So `not p is null` is `not (p is null)`,
  // `a = b is null` is `(a = b) is null` and `-a || b` is `-(a || b)`.

  // Prefix NOT binds above every predicate but below AND. `not exists (…)` alone keeps the
  // negated EXISTS node the planner turns into an anti-join.
  ExprPtr parseNot() {
    if (!isWord("not")) return parseIsPredicate();
    SourcePos pos = here();
    next();
    ExprPtr body = parseNot();
    if (body->kind == ExprKind::kExists && !body->negated) {
      body->negated = true;
      body->pos = pos;
      return body;
    }
    auto e = makeExpr(ExprKind::kUnary, pos);
    e->op = "not";
    e->args.push_back(std::move(body));
    return e;
  }

  // Postfix IS [NOT] NULL / TRUE / FALSE and their spellings ISNULL, NOTNULL, NOT NULL: looser
  // than equality, so they test a whole comparison.
  ExprPtr parseIsPredicate() {
    ExprPtr left = parseEquality();
    for (;;) {
      SourcePos pos = here();
      requireShallowChain(*left);  // a chain of postfix tests is one more left-deep chain
      if (isWord("isnull") || isWord("notnull")) {
        auto e = makeExpr(ExprKind::kIsNull, pos);
        e->negated = sameName(next().text, "notnull");
        e->args.push_back(std::move(left));
        left = std::move(e);
      } else if (isWord("not") && isWord("null", 1)) {
        next();
        next();
        auto e = makeExpr(ExprKind::kIsNull, pos);
        e->negated = true;
        e->args.push_back(std::move(left));
        left = std::move(e);
      } else if (acceptWord("is")) {
        left = parseIsTail(std::move(left), pos);
      } else {
        return left;
      }
    }
  }

  ExprPtr parseEquality() {
    ExprPtr left = parseRelational();
    for (;;) {
      const Token& t = cur();
      if (t.kind != TokenKind::kOperator) return left;
      std::string op = t.text;
      if (op == "<>") op = "!=";
      if (op != "=" && op != "==" && op != "!=") return left;
      SourcePos pos = here();
      next();
      left = makeBinary(op, std::move(left), parseRelational(), pos);
    }
  }

  // < <= > >=, [not] like/glob/regexp/match, [not] in, [not] between.
  ExprPtr parseRelational() {
    ExprPtr left = parseAdditive();
    for (;;) {
      requireShallowChain(*left);
      SourcePos pos = here();
      const Token& t = cur();
      if (t.kind == TokenKind::kOperator &&
          (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=")) {
        std::string op = next().text;
        left = makeBinary(op, std::move(left), parseAdditive(), pos);
        continue;
      }
      bool negated = false;
      if (isWord("not") && (isWord("in", 1) || isWord("between", 1) || isWord("like", 1) ||
                            isWord("glob", 1) || isWord("regexp", 1) || isWord("match", 1))) {
        next();
        negated = true;
      }
      if (isWord("in")) {
        next();
        left = parseInTail(std::move(left), negated, pos);
      } else if (isWord("between")) {
        next();
        auto e = makeExpr(ExprKind::kBetween, pos);
        e->negated = negated;
        e->args.push_back(std::move(left));
        e->args.push_back(parseAdditive());
        expectWord("and", "Expected 'AND' in BETWEEN");
        e->args.push_back(parseAdditive());
        left = std::move(e);
      } else if (isWord("like") || isWord("glob") || isWord("regexp") || isWord("match")) {
        auto e = makeExpr(ExprKind::kLike, pos);
        e->op = lowerName(next().text);
        e->negated = negated;
        e->args.push_back(std::move(left));
        e->args.push_back(parseAdditive());
        if (acceptWord("escape")) e->args.push_back(parseAdditive());
        left = std::move(e);
      } else {
        return left;
      }
    }
  }

  ExprPtr parseIsTail(ExprPtr operand, SourcePos pos) {
    bool negated = acceptWord("not");
    if (acceptWord("null")) {
      auto e = makeExpr(ExprKind::kIsNull, pos);
      e->negated = negated;
      e->args.push_back(std::move(operand));
      return e;
    }
    if (isWord("true") || isWord("false")) {
      auto e = makeExpr(ExprKind::kIsBool, pos);
      e->boolValue = sameName(next().text, "true");
      e->negated = negated;
      e->args.push_back(std::move(operand));
      return e;
    }
    errorHere("Expected NULL, TRUE or FALSE after IS");
  }

  ExprPtr parseInTail(ExprPtr operand, bool negated, SourcePos pos) {
    expectOp("(", "Expected '(' after IN");
    if (atSubqueryInParens()) {
      auto e = makeExpr(ExprKind::kInSelect, pos);
      e->negated = negated;
      e->args.push_back(std::move(operand));
      e->select = parseQuery();
      expectOp(")");
      return e;
    }
    auto e = makeExpr(ExprKind::kInList, pos);
    e->negated = negated;
    e->args.push_back(std::move(operand));
    if (!isOp(")")) {
      do {
        e->args.push_back(parseExpr());
      } while (acceptOp(","));
    }
    expectOp(")");
    return e;
  }

  ExprPtr parseAdditive() {
    ExprPtr left = parseMultiplicative();
    while (isOp("+") || isOp("-")) {
      SourcePos pos = here();
      std::string op = next().text;
      left = makeBinary(op, std::move(left), parseMultiplicative(), pos);
    }
    return left;
  }

  ExprPtr parseMultiplicative() {
    ExprPtr left = parseUnary();
    while (isOp("*") || isOp("/") || isOp("%")) {
      SourcePos pos = here();
      std::string op = next().text;
      left = makeBinary(op, std::move(left), parseUnary(), pos);
    }
    return left;
  }

  // Unary operators take a whole concatenation: `-'1' || '2'` is -12.
  ExprPtr parseUnary() {
    if (isOp("-") || isOp("+") || isOp("~")) {
      SourcePos pos = here();
      auto e = makeExpr(ExprKind::kUnary, pos);
      e->op = next().text;
      e->args.push_back(parseUnary());
      return e;
    }
    return parseConcat();
  }

  ExprPtr parseConcat() {
    ExprPtr left = parseCollate();
    while (isOp("||")) {
      SourcePos pos = here();
      next();
      left = makeBinary("||", std::move(left), parseCollate(), pos);
    }
    return left;
  }

  // `x -> p` / `x ->> p` bind tighter than COLLATE and take a primary as the path.
  ExprPtr parseJsonPath() {
    ExprPtr left = parsePrimary();
    while (isOp("->") || isOp("->>")) {
      SourcePos pos = here();
      std::string op = next().text;
      left = makeBinary(op, std::move(left), parsePrimary(), pos);
    }
    return left;
  }

  ExprPtr parseCollate() {
    ExprPtr e = parseJsonPath();
    while (!noCollate_ && isWord("collate")) {
      requireShallowChain(*e);
      SourcePos pos = here();
      next();
      auto c = makeExpr(ExprKind::kCollate, pos);
      c->name = anyName("Expected collation name after COLLATE");
      c->args.push_back(std::move(e));
      e = std::move(c);
    }
    return e;
  }

  ExprPtr literal(Value v, SourcePos pos, std::string text = "") {
    auto e = makeExpr(ExprKind::kLiteral, pos);
    e->value = std::move(v);
    e->text = std::move(text);
    return e;
  }

  ExprPtr blobLiteral(const Token& t) {
    if (t.text.size() % 2 != 0) errorAt(t, "Blob literal must have an even number of hex digits.");
    Bytes bytes;
    for (size_t i = 0; i < t.text.size(); i += 2) {
      int hi = hexDigit(t.text[i]), lo = hexDigit(t.text[i + 1]);
      if (hi < 0 || lo < 0) errorAt(t, "Invalid character in blob literal.");
      bytes.push_back(static_cast<uint8_t>(hi * 16 + lo));
    }
    return literal(Value::blob(std::move(bytes)), posOf(t));
  }

  ExprPtr parameter(const Token& t) {
    auto e = makeExpr(ExprKind::kParam, posOf(t));
    e->name = t.text;
    bool allDigits = !t.text.empty() && t.text.find_first_not_of("0123456789") == std::string::npos;
    if (t.text.empty()) e->index = ++bareParams_;
    else if (allDigits) e->index = std::atoi(t.text.c_str());
    return e;
  }

  ExprPtr parsePrimary() {
    const Token& t = cur();
    SourcePos pos = posOf(t);
    switch (t.kind) {
      case TokenKind::kInteger:
        next();
        return literal(integerLiteralValue(t.text), pos, t.text);
      case TokenKind::kReal:
        next();
        return literal(Value::real(std::strtod(t.text.c_str(), nullptr)), pos, t.text);
      case TokenKind::kString:
        next();
        return literal(Value::text(t.text), pos);
      case TokenKind::kBlob:
        next();
        return blobLiteral(t);
      case TokenKind::kParam:
        next();
        return parameter(t);
      case TokenKind::kOperator:
        if (t.text == "(") return parseParenExpr();
        break;
      case TokenKind::kQuotedIdent:
        return parseColumnRef();
      case TokenKind::kWord:
        return parseWordPrimary();
      case TokenKind::kEof:
        break;
    }
    errorHere("Expected expression");
  }

  ExprPtr parseParenExpr() {
    SourcePos pos = here();
    next();  // (
    bool saved = noCollate_;
    noCollate_ = false;
    struct Restore {
      bool& flag;
      bool value;
      ~Restore() { flag = value; }
    } restore{noCollate_, saved};
    if (atSubqueryInParens()) {
      auto e = makeExpr(ExprKind::kSubquery, pos);
      e->select = parseQuery();
      expectOp(")");
      return e;
    }
    ExprPtr inner = parseExpr();
    expectOp(")");
    return inner;
  }

  ExprPtr parseWordPrimary() {
    const Token& t = cur();
    SourcePos pos = posOf(t);
    if (tokIsWord(t, "null")) { next(); return literal(Value::null(), pos); }
    if (tokIsWord(t, "true")) { next(); return literal(Value::boolean(true), pos); }
    if (tokIsWord(t, "false")) { next(); return literal(Value::boolean(false), pos); }
    if (tokIsWord(t, "case")) return parseCase();
    if (tokIsWord(t, "cast") && isOp("(", 1)) return parseCast();
    if (tokIsWord(t, "exists")) {
      auto e = makeExpr(ExprKind::kExists, pos);
      next();  // exists
      expectOp("(", "Expected '(' after EXISTS");
      e->select = parseQuery();
      expectOp(")");
      return e;
    }
    if (isOp("(", 1)) return parseFunction();
    if (isReserved(t.text)) errorHere("Expected expression, got '" + t.text + "'");
    return parseColumnRef();
  }

  ExprPtr parseColumnRef() {
    auto e = makeExpr(ExprKind::kColumn, here());
    std::vector<std::string> parts;
    parts.push_back(next().text);
    while (isOp(".") && isIdentTok(peekTok(1), true)) {
      next();
      parts.push_back(next().text);
    }
    if (parts.size() > 3) errorHere("Too many qualifiers in column reference");
    e->name = parts.back();
    if (parts.size() >= 2) e->table = parts[parts.size() - 2];
    if (parts.size() == 3) e->schema = parts[0];
    return e;
  }

  ExprPtr parseCase() {
    auto e = makeExpr(ExprKind::kCase, here());
    next();  // case
    e->args.push_back(isWord("when") ? nullptr : parseExpr());
    while (acceptWord("when")) {
      CaseWhen w;
      w.when = parseExpr();
      expectWord("then", "Expected 'THEN' after WHEN condition");
      w.then = parseExpr();
      e->whens.push_back(std::move(w));
    }
    if (e->whens.empty()) errorHere("Expected 'WHEN' in CASE expression");
    if (acceptWord("else")) e->elseExpr = parseExpr();
    expectWord("end", "Expected 'END' after CASE expression");
    return e;
  }

  ExprPtr parseCast() {
    auto e = makeExpr(ExprKind::kCast, here());
    next();  // cast
    expectOp("(");
    e->args.push_back(parseExpr());
    expectWord("as", "Expected 'AS' in CAST");
    e->typeName = typeName();
    if (e->typeName.empty()) errorHere("Expected type name in CAST");
    expectOp(")");
    return e;
  }

  // A type name: one or more words, with `(n[, m])` arguments dropped.
  std::string typeName() {
    std::string name;
    while (cur().kind == TokenKind::kWord && !isReserved(cur().text) && !isColumnConstraintStart()) {
      if (!name.empty()) name += ' ';
      name += next().text;
    }
    if (!name.empty() && isOp("(")) {
      next();
      while (!isOp(")") && !atEof()) next();
      expectOp(")");
    }
    return name;
  }

  bool isColumnConstraintStart() const {
    static const char* const kWords[] = {"constraint", "primary", "not", "null", "unique",
                                         "check", "default", "collate", "references",
                                         "generated", "as", "with"};
    for (const char* w : kWords)
      if (isWord(w)) return true;
    return false;
  }

  ExprPtr parseFunction() {
    auto e = makeExpr(ExprKind::kFunction, here());
    e->name = next().text;
    next();  // (
    if (acceptOp("*")) {
      e->star = true;
    } else if (!isOp(")")) {
      if (acceptWord("distinct")) e->distinct = true;
      else acceptWord("all");
      do {
        if (atEof()) errorHere("Unterminated '(' in function call");
        e->args.push_back(parseExpr());
      } while (acceptOp(","));
      if (isWord("order") && isWord("by", 1)) {
        next();
        next();
        e->orderBy = orderingTerms();
      }
    }
    if (atEof()) errorHere("Unterminated '(' in function call");
    expectOp(")", "Expected ')' after function arguments");
    if (isWord("filter") && isOp("(", 1)) {
      next();
      next();
      expectWord("where", "Expected 'WHERE' in FILTER clause");
      e->filter = parseExpr();
      expectOp(")");
    }
    if (acceptWord("over")) {
      if (isOp("(")) e->window = std::make_unique<WindowSpec>(parseWindowSpec());
      else e->windowName = identifier("Expected window name or '(' after OVER");
    }
    return e;
  }

  std::vector<OrderingTerm> orderingTerms() {
    std::vector<OrderingTerm> terms;
    do {
      OrderingTerm t;
      t.expr = parseExpr();
      if (acceptWord("desc")) t.desc = true;
      else acceptWord("asc");
      if (acceptWord("nulls")) {
        if (acceptWord("first")) t.nulls = OrderingTerm::Nulls::kFirst;
        else if (acceptWord("last")) t.nulls = OrderingTerm::Nulls::kLast;
        else errorHere("Expected FIRST or LAST after NULLS");
      }
      terms.push_back(std::move(t));
    } while (acceptOp(","));
    return terms;
  }

  WindowSpec parseWindowSpec() {
    WindowSpec w;
    expectOp("(");
    if (atIdent() && !isWord("partition") && !isWord("order") && !isWord("rows") &&
        !isWord("range") && !isWord("groups")) {
      w.baseName = next().text;
    }
    if (isWord("partition")) {
      next();
      expectWord("by", "Expected 'BY' after PARTITION");
      do {
        w.partitionBy.push_back(parseExpr());
      } while (acceptOp(","));
    }
    if (isWord("order")) {
      next();
      expectWord("by", "Expected 'BY' after ORDER");
      w.orderBy = orderingTerms();
    }
    if (isWord("rows") || isWord("range") || isWord("groups")) w.frame = parseFrame();
    expectOp(")", "Expected ')' after window specification");
    return w;
  }

  WindowFrame parseFrame() {
    WindowFrame f;
    std::string unit = lowerName(next().text);
    f.unit = unit == "rows" ? WindowFrame::Unit::kRows
             : unit == "range" ? WindowFrame::Unit::kRange : WindowFrame::Unit::kGroups;
    if (acceptWord("between")) {
      f.start = frameBound();
      expectWord("and", "Expected 'AND' in frame BETWEEN");
      f.end = frameBound();
    } else {
      f.start = frameBound();
    }
    if (acceptWord("exclude")) {
      if (acceptWord("current")) { expectWord("row"); f.exclude = "current row"; }
      else if (acceptWord("group")) f.exclude = "group";
      else if (acceptWord("ties")) f.exclude = "ties";
      else if (acceptWord("no")) { expectWord("others"); f.exclude = "no others"; }
      else errorHere("Expected CURRENT ROW, GROUP, TIES or NO OTHERS after EXCLUDE");
    }
    return f;
  }

  FrameBound frameBound() {
    FrameBound b;
    if (acceptWord("unbounded")) {
      if (acceptWord("preceding")) b.kind = FrameBound::Kind::kUnboundedPreceding;
      else if (acceptWord("following")) b.kind = FrameBound::Kind::kUnboundedFollowing;
      else errorHere("Expected PRECEDING or FOLLOWING after UNBOUNDED");
      return b;
    }
    if (acceptWord("current")) {
      expectWord("row", "Expected 'ROW' after CURRENT");
      b.kind = FrameBound::Kind::kCurrentRow;
      return b;
    }
    b.offset = parseAdditive();
    if (acceptWord("preceding")) b.kind = FrameBound::Kind::kPreceding;
    else if (acceptWord("following")) b.kind = FrameBound::Kind::kFollowing;
    else errorHere("Expected PRECEDING or FOLLOWING");
    return b;
  }

  // ---- queries ----------------------------------------------------------------------------

  // True when the tokens from offset k start a query, possibly behind opening parentheses.
  // A loop, not recursion: the lookahead runs before any depth limit applies.
  bool atQueryStart(size_t k = 0) const {
    while (isOp("(", k)) ++k;
    return isWord("select", k) || isWord("values", k) || isWord("with", k) || isWord("insert", k) ||
           isWord("update", k) || isWord("delete", k);
  }

  // Just inside the '(' of a parenthesised expression or IN list: is this a subquery? The
  // reference takes only a leading query keyword for one, so `((select 1) * 2)`, `((select 1))`
  // and `x in ((select 1))` hold scalar subqueries inside expressions. A parenthesised leg that
  // a set operator, ORDER BY or LIMIT continues (`((select 1) union select 2)`) is a query.
  bool atSubqueryInParens() const {
    if (!isOp("(")) return atQueryStart();
    return atQueryStart() && continuesQuery(closingParen(0) + 1);
  }

  // Offset of the ')' closing the '(' at offset k (the end-of-input token when unbalanced).
  size_t closingParen(size_t k) const {
    int depth = 0;
    for (;; ++k) {
      const Token& t = peekTok(k);
      if (t.kind == TokenKind::kEof) return k;
      if (tokIsOp(t, "(")) ++depth;
      else if (tokIsOp(t, ")") && --depth == 0) return k;
    }
  }

  bool continuesQuery(size_t k) const {
    return isWord("union", k) || isWord("intersect", k) || isWord("except", k) || isWord("diff", k) ||
           (isWord("order", k) && isWord("by", k + 1)) || isWord("limit", k);
  }

  std::unique_ptr<WithClause> parseWith() {
    auto w = std::make_unique<WithClause>();
    w->pos = here();
    next();  // with
    if (acceptWord("recursive")) w->recursive = true;
    do {
      CommonTableExpr cte;
      cte.pos = here();
      if (!atIdent()) errorHere("Expected CTE name");
      cte.name = next().text;
      if (isOp("(")) cte.columns = parenNameList("Expected column name in CTE definition");
      expectWord("as", "Expected 'AS' after CTE name");
      if (acceptWord("materialized")) {
        cte.materialized = CommonTableExpr::Materialized::kMaterialized;
      } else if (isWord("not") && isWord("materialized", 1)) {
        next();
        next();
        cte.materialized = CommonTableExpr::Materialized::kNotMaterialized;
      }
      expectOp("(", "Expected '(' before CTE query");
      if (atDmlLead()) cte.dml = parseStatement();
      else cte.select = parseQuery();
      expectOp(")", "Expected ')' after CTE query");
      w->ctes.push_back(std::move(cte));
    } while (acceptOp(","));
    if (isWord("option") && isOp("(", 1)) {
      next();
      next();
      expectWord("maxrecursion", "Expected 'MAXRECURSION' in OPTION");
      if (cur().kind != TokenKind::kInteger) errorHere("Expected integer after MAXRECURSION");
      w->maxRecursion = std::atoll(next().text.c_str());
      expectOp(")");
    }
    return w;
  }

  bool atDmlStart() const { return isWord("insert") || isWord("update") || isWord("delete"); }
  // A DML statement, possibly behind its own WITH clause.
  bool atDmlLead() const { return atDmlStart() || (isWord("with") && withLeadsDml()); }

  // `(insert … returning …)` used as a query: `select * from (dml)`.
  SelectPtr dmlAsQuery() {
    auto item = std::make_unique<FromItem>();
    item->kind = FromItem::Kind::kDml;
    item->pos = here();
    item->dml = parseStatement();
    return selectStarFrom(std::move(item));
  }

  // `select * from <item>`.
  static SelectPtr selectStarFrom(FromItemPtr item) {
    auto s = std::make_unique<Select>();
    s->pos = item->pos;
    ResultColumn star;
    star.kind = ResultColumn::Kind::kStar;
    star.pos = item->pos;
    s->columns.push_back(std::move(star));
    s->from = std::move(item);
    return s;
  }

  // `EXPLAIN [QUERY PLAN] <statement>` is `select * from query_plan('<statement>')`
  // (docs/query-plan.md): the statement is planned, not run.
  StatementPtr parseExplain() {
    SourcePos pos = here();
    next();  // EXPLAIN
    if (isWord("query") && isWord("plan", 1)) {
      next();
      next();
    }
    StatementPtr inner = parseStatement();
    auto item = std::make_unique<FromItem>();
    item->kind = FromItem::Kind::kFunction;
    item->pos = pos;
    item->table.name = "query_plan";
    item->table.pos = pos;
    item->args.push_back(literal(Value::text(inner->text), pos));
    auto st = newStatement(StatementKind::kSelect, pos);
    st->select = selectStarFrom(std::move(item));
    return st;
  }

  // A full query: [with] compound [order by] [limit/offset].
  SelectPtr parseQuery() {
    if (atDmlLead()) return dmlAsQuery();
    std::unique_ptr<WithClause> with;
    if (isWord("with")) with = parseWith();
    SelectPtr s = parseCompound();
    if (with) {
      // `with a as (…) (with b as (…) select …)`: the inner query keeps its own clause, so
      // it becomes a subquery of `select *` carrying the outer one.
      if (s->with) s = wrapAsSubquery(std::move(s));
      s->with = std::move(with);
    }
    parseOrderLimit(*s);
    return s;
  }

  SelectPtr wrapAsSubquery(SelectPtr inner) {
    auto item = std::make_unique<FromItem>();
    item->kind = FromItem::Kind::kSubquery;
    item->pos = inner->pos;
    item->select = std::move(inner);
    return selectStarFrom(std::move(item));
  }

  // The tail of a query: order by, limit/offset, and the `with defaults` / `with schema`
  // clauses, which may sit before or after ordering.
  void parseOrderLimit(Select& s) {
    parseQueryWithClauses(s);
    if (isWord("order") && isWord("by", 1)) {
      next();
      next();
      s.orderBy = orderingTerms();
    }
    if (acceptWord("limit")) {
      ExprPtr first = parseExpr();
      if (acceptOp(",")) {  // limit offset, count
        s.offset = std::move(first);
        s.limit = parseExpr();
      } else {
        s.limit = std::move(first);
        if (acceptWord("offset")) s.offset = parseExpr();
      }
    }
    parseQueryWithClauses(s);
  }

  void parseQueryWithClauses(Select& s) {
    for (;;) {
      if (isWord("with") && isWord("defaults", 1)) {
        defaultsStart_ = cur().offset;
        next();
        next();
        expectOp("(", "Expected '(' after WITH DEFAULTS");
        do {
          ViewColumnDefault d;
          d.column = identifier("Expected column name");
          for (const auto& prior : s.defaults) {
            if (sameName(prior.column, d.column))
              errorAt(toks_[pos_ - 1], "Duplicate column '" + d.column + "' in WITH DEFAULTS");
          }
          expectOp("=", "Expected '=' in WITH DEFAULTS");
          d.expr = parseExpr();
          s.defaults.push_back(std::move(d));
        } while (acceptOp(","));
        expectOp(")");
      } else if (isWord("with") && isWord("schema", 1)) {
        next();
        next();
        do {
          s.withSchema.push_back(identifier("Expected schema name"));
        } while (acceptOp(","));
      } else {
        return;
      }
    }
  }

  SetOp setOpHere() const {
    if (isWord("union")) return isWord("all", 1) ? SetOp::kUnionAll : SetOp::kUnion;
    if (isWord("intersect")) return SetOp::kIntersect;
    if (isWord("except")) return SetOp::kExcept;
    if (isWord("diff")) return SetOp::kDiff;
    return SetOp::kNone;
  }

  SelectPtr parseCompound() {
    SelectPtr left = parseQueryTerm();
    SetOp op = setOpHere();
    if (op == SetOp::kNone) return left;
    auto s = std::make_unique<Select>();
    s->pos = here();
    next();
    if (op == SetOp::kUnionAll) next();
    s->setOp = op;
    // Membership flags: `exists left as a, exists right as b`.
    while (isWord("exists") && (isWord("left", 1) || isWord("right", 1))) {
      next();
      bool isLeft = sameName(next().text, "left");
      expectWord("as", "Expected 'AS' after EXISTS LEFT/RIGHT");
      std::string name = identifier("Expected flag name");
      (isLeft ? s->existsLeftAs : s->existsRightAs) = std::move(name);
      if (!acceptOp(",")) break;
    }
    s->left = std::move(left);
    s->right = parseCompound();
    return s;
  }

  // A leg of a compound: a select core, a values list or a parenthesised query.
  SelectPtr parseQueryTerm() {
    if (isOp("(")) {
      next();
      SelectPtr inner = parseQuery();
      expectOp(")");
      inner->parenthesized = true;
      return inner;
    }
    if (isWord("values")) return parseValues();
    if (isWord("select")) return parseSelectCore();
    errorHere("Expected SELECT or VALUES");
  }

  SelectPtr parseValues() {
    auto s = std::make_unique<Select>();
    s->pos = here();
    next();  // values
    do {
      expectOp("(", "Expected '(' after VALUES");
      std::vector<ExprPtr> row;
      if (!isOp(")")) {
        do {
          row.push_back(parseExpr());
        } while (acceptOp(","));
      }
      expectOp(")");
      s->values.push_back(std::move(row));
    } while (acceptOp(","));
    return s;
  }

  SelectPtr parseSelectCore() {
    auto s = std::make_unique<Select>();
    s->pos = here();
    next();  // select
    if (acceptWord("distinct")) s->distinct = true;
    else acceptWord("all");
    s->columns = resultColumns();
    if (acceptWord("from")) s->from = parseFromClause();
    if (acceptWord("where")) s->where = parseExpr();
    if (isWord("group") && isWord("by", 1)) {
      next();
      next();
      do {
        s->groupBy.push_back(parseExpr());
      } while (acceptOp(","));
    }
    if (acceptWord("having")) s->having = parseExpr();
    if (acceptWord("window")) {
      do {
        std::string name = identifier("Expected window name");
        expectWord("as", "Expected 'AS' after window name");
        s->windows.emplace_back(std::move(name), parseWindowSpec());
      } while (acceptOp(","));
    }
    return s;
  }

  std::vector<ResultColumn> resultColumns() {
    std::vector<ResultColumn> cols;
    do {
      cols.push_back(resultColumn());
    } while (acceptOp(","));
    return cols;
  }

  ResultColumn resultColumn() {
    ResultColumn rc;
    rc.pos = here();
    if (acceptOp("*")) {
      rc.kind = ResultColumn::Kind::kStar;
      return rc;
    }
    if (isIdentTok(cur(), true) && isOp(".", 1) && isOp("*", 2)) {
      rc.kind = ResultColumn::Kind::kTableStar;
      rc.table = next().text;
      next();
      next();
      return rc;
    }
    if (isIdentTok(cur(), true) && isOp(".", 1) && isIdentTok(peekTok(2), true) && isOp(".", 3) &&
        isOp("*", 4)) {
      rc.kind = ResultColumn::Kind::kTableStar;
      rc.schema = next().text;
      next();
      rc.table = next().text;
      next();
      next();
      return rc;
    }
    rc.expr = parseExpr();
    rc.alias = optionalAlias();
    if (isWord("with") && isWord("inverse", 1)) {
      next();
      next();
      rc.hasInverse = true;
      rc.inverse = inversePuts();
    }
    return rc;
  }

  std::vector<InversePut> inversePuts() {
    std::vector<InversePut> puts;
    expectOp("(", "Expected '(' after WITH INVERSE");
    do {
      InversePut p;
      p.pos = here();
      p.column = identifier("Expected column name in WITH INVERSE");
      for (const auto& prior : puts) {
        if (sameName(prior.column, p.column))
          errorAt(toks_[pos_ - 1], "Duplicate column '" + p.column + "' in WITH INVERSE");
      }
      expectOp("=", "Expected '=' in WITH INVERSE");
      p.value = parseExpr();
      puts.push_back(std::move(p));
    } while (acceptOp(","));
    expectOp(")");
    return puts;
  }

  // FROM: sources joined left-deep; commas become cross joins flagged commaJoin.
  FromItemPtr parseFromClause() {
    FromItemPtr left = parseTableSource();
    for (;;) {
      SourcePos pos = here();
      if (acceptOp(",")) {
        left = makeJoin(std::move(left), JoinType::kCross, pos);
        left->commaJoin = true;
        left->right = parseTableSource();
        continue;
      }
      if (isWord("natural")) errorHere("NATURAL JOIN is not supported");
      std::optional<JoinType> type = joinTypeHere();
      if (!type) return left;
      left = makeJoin(std::move(left), *type, pos);
      if (acceptWord("lateral")) left->lateral = true;
      left->right = parseTableSource();
      if (acceptWord("on")) {
        left->on = parseExpr();
      } else if (acceptWord("using")) {
        left->usingColumns = parenNameList("Expected column name in USING");
      }
      parseExistenceFlags(*left);
    }
  }

  FromItemPtr makeJoin(FromItemPtr left, JoinType type, SourcePos pos) {
    auto j = std::make_unique<FromItem>();
    j->kind = FromItem::Kind::kJoin;
    j->pos = pos;
    j->joinType = type;
    j->left = std::move(left);
    return j;
  }

  // Consumes `[inner|left [outer]|right [outer]|full [outer]|cross] join`.
  std::optional<JoinType> joinTypeHere() {
    JoinType type = JoinType::kInner;
    if (isWord("join")) {
      next();
      return type;
    }
    if (isWord("inner")) type = JoinType::kInner;
    else if (isWord("left")) type = JoinType::kLeft;
    else if (isWord("right")) type = JoinType::kRight;
    else if (isWord("full")) type = JoinType::kFull;
    else if (isWord("cross")) type = JoinType::kCross;
    else return std::nullopt;
    next();
    if (type != JoinType::kInner && type != JoinType::kCross) acceptWord("outer");
    expectWord("join", "Expected 'JOIN'");
    return type;
  }

  void parseExistenceFlags(FromItem& j) {
    while (isWord("exists") &&
           (isWord("as", 1) || isWord("left", 1) || isWord("right", 1))) {
      next();
      std::string* slot = &j.existsAs;
      if (acceptWord("left")) slot = &j.existsLeftAs;
      else if (acceptWord("right")) slot = &j.existsRightAs;
      expectWord("as", "Expected 'AS' after EXISTS");
      *slot = identifier("Expected existence flag name");
      if (!(isOp(",") && isWord("exists", 1))) break;
      next();
    }
  }

  FromItemPtr parseTableSource() {
    auto item = std::make_unique<FromItem>();
    item->pos = here();
    if (acceptWord("lateral")) item->lateral = true;
    if (isOp("(")) {
      next();
      if (atDmlLead()) {
        item->kind = FromItem::Kind::kDml;
        item->dml = parseStatement();
      } else if (atQueryStart()) {
        item->kind = FromItem::Kind::kSubquery;
        item->select = parseQuery();
      } else {
        FromItemPtr inner = parseFromClause();  // `(a join b)`
        expectOp(")");
        return inner;
      }
      expectOp(")");
      item->alias = optionalAlias();
      if (!item->alias.empty() && isOp("(")) item->columnAliases = parenNameList("Expected column name");
      return item;
    }
    if (!atIdent()) errorHere("Expected table name.");
    item->table = qualifiedName("Expected table name.");
    if (isOp("(")) {
      item->kind = FromItem::Kind::kFunction;
      next();
      if (!isOp(")")) {
        do {
          item->args.push_back(parseExpr());
        } while (acceptOp(","));
      }
      expectOp(")", "Expected ')' after table function arguments");
    }
    item->alias = optionalAlias();
    return item;
  }

  // ---- statements -------------------------------------------------------------------------

  StatementPtr parseStatementWithText() {
    bareParams_ = 0;
    return parseStatement();
  }

  StatementPtr newStatement(StatementKind kind, SourcePos pos) {
    auto st = std::make_unique<Statement>();
    st->kind = kind;
    st->pos = pos;
    return st;
  }

  // Any statement, nested ones (DML relations, CTE members) included, with its own text.
  StatementPtr parseStatement() {
    int start = cur().offset;
    StatementPtr st = parseStatementBody();
    st->text = textFrom(start);
    return st;
  }

  StatementPtr parseStatementBody() {
    SourcePos pos = here();
    const Token& t = cur();
    if (isWord("select") || isWord("values") || isOp("(")) {
      auto st = newStatement(StatementKind::kSelect, pos);
      st->select = parseQuery();
      return st;
    }
    if (isWord("with")) return parseWithStatement();
    if (isWord("insert")) return parseInsert(nullptr);
    if (isWord("update")) return parseUpdate(nullptr);
    if (isWord("delete")) return parseDelete(nullptr);
    if (isWord("create")) return parseCreate();
    if (isWord("drop")) return parseDrop();
    if (isWord("alter")) return parseAlter();
    if (isWord("begin") || isWord("commit") || isWord("end") || isWord("rollback") ||
        isWord("savepoint") || isWord("release"))
      return parseTransaction();
    if (isWord("pragma")) return parsePragma();
    if (isWord("analyze")) return parseAnalyze();
    if (isWord("declare")) return parseDeclare();
    if (isWord("explain") && !isWord("schema", 1)) return parseExplain();
    if (isWord("apply") || isWord("diff") || isWord("explain")) return parseSchemaCommand();
    if (isWord("refresh")) return parseRefresh();
    std::string got = t.kind == TokenKind::kEof ? "end of input" : "'" + t.text + "'";
    errorHere("Expected statement type (SELECT, INSERT, UPDATE, DELETE, VALUES, CREATE, etc.), got " +
              got + ".");
  }

  StatementPtr parseWithStatement() {
    SourcePos pos = here();
    auto with = parseWith();
    if (isWord("insert")) return parseInsert(std::move(with));
    if (isWord("update")) return parseUpdate(std::move(with));
    if (isWord("delete")) return parseDelete(std::move(with));
    auto st = newStatement(StatementKind::kSelect, pos);
    st->select = parseCompound();
    st->select->with = std::move(with);
    parseOrderLimit(*st->select);
    return st;
  }

  ConflictAction optionalOrAction() {
    if (!isWord("or")) return ConflictAction::kNone;
    next();
    ConflictAction a = conflictActionFromWord(cur().text);
    if (a == ConflictAction::kNone || cur().kind != TokenKind::kWord)
      errorHere("Expected conflict resolution (ROLLBACK, ABORT, FAIL, IGNORE, REPLACE) after OR");
    next();
    return a;
  }

  ConflictAction optionalOnConflict() {
    if (!(isWord("on") && isWord("conflict", 1))) return ConflictAction::kNone;
    next();
    next();
    ConflictAction a = conflictActionFromWord(cur().text);
    if (a == ConflictAction::kNone || cur().kind != TokenKind::kWord)
      errorHere("Expected conflict resolution after ON CONFLICT");
    next();
    return a;
  }

  // `with context v = e, …` and `with schema a, b` in any order, repeated.
  template <typename Dml>
  void parseDmlWithClauses(Dml& d) {
    for (;;) {
      if (isWord("with") && isWord("context", 1) && !isOp("(", 2)) {
        next();
        next();
        do {
          ContextAssignment ca;
          ca.name = identifier("Expected context variable name");
          expectOp("=", "Expected '=' after context variable name");
          ca.value = parseExpr();
          d.context.push_back(std::move(ca));
        } while (acceptOp(","));
      } else if (isWord("with") && isWord("schema", 1)) {
        next();
        next();
        do {
          d.withSchema.push_back(identifier("Expected schema name"));
        } while (acceptOp(","));
      } else if (!acceptWithTags(d.tags)) {
        return;
      }
    }
  }

  template <typename Dml>
  void parseReturning(Dml& d) {
    if (!acceptWord("returning")) return;
    d.hasReturning = true;
    d.returning = resultColumns();
  }

  QualifiedName dmlTargetName() {
    if (!atIdent()) errorHere("Expected table name.");
    return qualifiedName("Expected table name.");
  }

  StatementPtr parseInsert(std::unique_ptr<WithClause> with) {
    auto st = newStatement(StatementKind::kInsert, here());
    auto ins = std::make_unique<Insert>();
    ins->with = std::move(with);
    next();  // insert
    ins->orAction = optionalOrAction();
    acceptWord("into");  // optional, as in SQLite
    ins->table = dmlTargetName();
    if (isOp("(")) ins->columns = parenNameList("Expected column name");
    parseDmlWithClauses(*ins);
    if (atDmlLead()) ins->sourceDml = parseStatement();
    else if (atQueryStart()) ins->source = parseQuery();
    else errorHere("Expected VALUES, SELECT, or DML statement after INSERT target");
    // `… values (…) with schema s` ends the source query's text but is the statement's clause.
    if (ins->source && !ins->source->withSchema.empty()) ins->withSchema = std::move(ins->source->withSchema);
    if (ins->source) ins->source->withSchema.clear();
    while (isWord("on") && isWord("conflict", 1)) {
      if (ins->orAction != ConflictAction::kNone) {
        errorAt(peekTok(1), "Cannot use both 'INSERT OR ...' and 'ON CONFLICT' in the same statement.");
      }
      ins->upserts.push_back(parseUpsert());
    }
    parseDmlWithClauses(*ins);
    parseReturning(*ins);
    st->insert = std::move(ins);
    return st;
  }

  Upsert parseUpsert() {
    Upsert u;
    next();  // on
    next();  // conflict
    if (isOp("(")) {
      next();
      do {
        u.target.push_back(indexedColumn());
      } while (acceptOp(","));
      expectOp(")");
      if (acceptWord("where")) u.targetWhere = parseExpr();
    }
    expectWord("do", "Expected 'DO' after ON CONFLICT");
    if (acceptWord("nothing")) return u;
    expectWord("update", "Expected NOTHING or UPDATE after DO");
    u.doNothing = false;
    expectWord("set", "Expected 'SET' after DO UPDATE");
    u.set = assignments();
    if (acceptWord("where")) u.where = parseExpr();
    return u;
  }

  std::vector<Assignment> assignments() {
    std::vector<Assignment> set;
    do {
      Assignment a;
      a.pos = here();
      a.column = identifier("Expected column name");
      expectOp("=", "Expected '=' after column name in SET");
      a.value = parseExpr();
      set.push_back(std::move(a));
    } while (acceptOp(","));
    return set;
  }

  // `name [[as] alias]` or `(select …) as alias` for UPDATE / DELETE targets.
  template <typename Dml>
  void dmlTarget(Dml& d) {
    if (isOp("(") && atQueryStart(1)) {
      next();
      d.targetSelect = parseQuery();
      expectOp(")");
      d.alias = optionalAlias();
      // The user's WHERE / SET / RETURNING name the body's columns through the alias, so it is
      // never a generated default.
      if (d.alias.empty()) errorHere("a subquery write target requires an alias: `(select …) as v`");
      if (isOp("(")) d.targetColumns = parenNameList("Expected column name");
      return;
    }
    d.table = dmlTargetName();
    d.alias = optionalAlias();
  }

  StatementPtr parseUpdate(std::unique_ptr<WithClause> with) {
    auto st = newStatement(StatementKind::kUpdate, here());
    auto up = std::make_unique<Update>();
    up->with = std::move(with);
    next();  // update
    // `update or …` is SQLite-only: the reference reads `or` as a (missing) table name.
    dmlTarget(*up);
    parseDmlWithClauses(*up);
    expectWord("set", "Expected 'SET' after UPDATE target");
    up->set = assignments();
    parseDmlWithClauses(*up);
    if (acceptWord("where")) up->where = parseExpr();
    parseDmlWithClauses(*up);
    parseReturning(*up);
    st->update = std::move(up);
    return st;
  }

  StatementPtr parseDelete(std::unique_ptr<WithClause> with) {
    auto st = newStatement(StatementKind::kDelete, here());
    auto del = std::make_unique<Delete>();
    del->with = std::move(with);
    next();  // delete
    acceptWord("from");
    dmlTarget(*del);
    parseDmlWithClauses(*del);
    if (acceptWord("where")) del->where = parseExpr();
    parseDmlWithClauses(*del);
    parseReturning(*del);
    st->del = std::move(del);
    return st;
  }

  // ---- CREATE -----------------------------------------------------------------------------

  bool acceptIfNotExists() {
    if (!(isWord("if") && isWord("not", 1) && isWord("exists", 2))) return false;
    next();
    next();
    next();
    return true;
  }
  bool acceptIfExists() {
    if (!(isWord("if") && isWord("exists", 1))) return false;
    next();
    next();
    return true;
  }

  StatementPtr parseCreate() {
    SourcePos pos = here();
    next();  // create
    // TEMP is not a Quereus concept (a `temp` schema is addressed by name: `create table temp.t`).
    if (isWord("temp") || isWord("temporary")) errorHere("TEMP/TEMPORARY is not supported.");
    if (isWord("table")) { next(); return parseTableBody(pos, false); }
    if (isWord("unique") && isWord("index", 1)) { next(); next(); return parseIndexBody(pos, true); }
    if (isWord("index")) { next(); return parseIndexBody(pos, false); }
    if (isWord("view")) { next(); return parseViewBody(pos, false); }
    if (isWord("materialized") && isWord("view", 1)) { next(); next(); return parseViewBody(pos, true); }
    if (isWord("or") && isWord("replace", 1) && isWord("materialized", 2) && isWord("view", 3)) {
      for (int i = 0; i < 4; ++i) next();
      StatementPtr st = parseViewBody(pos, true);
      st->createView->orReplace = true;
      return st;
    }
    if (isWord("assertion")) { next(); return parseAssertionBody(pos); }
    errorHere("Expected TABLE, VIEW, MATERIALIZED VIEW, INDEX, or ASSERTION after CREATE");
  }

  // After `table`: `[if not exists] name (…) options…`. In a declare-schema body the column
  // list may be written in braces.
  StatementPtr parseTableBody(SourcePos pos, bool braces) {
    auto st = newStatement(StatementKind::kCreateTable, pos);
    auto ct = std::make_unique<CreateTable>();
    ct->ifNotExists = acceptIfNotExists();
    ct->name = qualifiedName("Expected table name.");
    std::string close = ")";
    if (braces && acceptWord("using")) ct->module = moduleRef();
    if (braces && isOp("{")) {
      next();
      close = "}";
    } else {
      expectOp("(", "Expected '(' after table name");
    }
    parseTableElements(*ct, close);
    parseTableOptions(*ct);
    st->createTable = std::move(ct);
    return st;
  }

  void parseTableElements(CreateTable& ct, const std::string& close) {
    if (isOp(close)) errorHere("Expected column definition");
    for (;;) {
      if (isTableConstraintStart()) ct.constraints.push_back(tableConstraint());
      else ct.columns.push_back(columnDef());
      if (acceptOp(",")) {
        if (acceptOp(close)) return;  // trailing comma
        continue;
      }
      expectOp(close, "Expected ',' or '" + close + "' in column list");
      return;
    }
  }

  bool isTableConstraintStart() const {
    if (isWord("constraint")) return true;
    if (isWord("primary") && isWord("key", 1)) return true;
    if (isWord("unique") && isOp("(", 1)) return true;
    if (isWord("check") && (isOp("(", 1) || isWord("on", 1))) return true;
    if (isWord("foreign") && isWord("key", 1)) return true;
    return false;
  }

  void parseTableOptions(CreateTable& ct) {
    for (;;) {
      if (acceptWord("using")) {
        ct.module = moduleRef();
      } else if (isWord("with") && isWord("context", 1) && isOp("(", 2)) {
        next();
        next();
        next();
        do {
          ContextVarDef v;
          v.name = identifier("Expected context variable name");
          v.typeName = typeName();
          if (acceptWord("null")) v.nullable = true;
          else if (isWord("not") && isWord("null", 1)) { next(); next(); }
          ct.contextVars.push_back(std::move(v));
        } while (acceptOp(","));
        expectOp(")");
      } else if (acceptWithTags(ct.tags)) {
      } else if (acceptWord("maintained")) {
        if (isOp("(")) ct.maintainedNames = parenNameList("Expected column name");
        expectWord("as", "Expected 'AS' after MAINTAINED");
        ct.maintainedAs = parseQuery();
      } else if (isWord("without") && isWord("rowid", 1)) {
        next();
        next();
        ct.tableOptions.push_back("without rowid");
      } else if (isWord("strict")) {
        next();
        ct.tableOptions.push_back("strict");
      } else if (acceptOp(",")) {
      } else {
        return;
      }
    }
  }

  ModuleRef moduleRef() {
    ModuleRef m;
    m.name = anyName("Expected module name after USING");
    if (!acceptOp("(")) return m;
    if (acceptOp(")")) return m;
    do {
      if (isIdentTok(cur(), true) && isOp("=", 1)) {
        std::string key = next().text;
        next();
        m.args.emplace_back(std::move(key), literalValue("Expected module argument value"));
      } else {
        int start = cur().offset;
        int depth = 0;
        while (!atEof() && !(depth == 0 && (isOp(",") || isOp(")")))) {
          if (isOp("(")) ++depth;
          if (isOp(")")) --depth;
          next();
        }
        m.rawArgs.push_back(textFrom(start));
      }
    } while (acceptOp(","));
    expectOp(")", "Expected ')' after module arguments");
    return m;
  }

  ColumnDef columnDef() {
    ColumnDef c;
    c.pos = here();
    c.name = identifier("Expected column name");
    c.typeName = typeName();
    for (;;) {
      if (atWithTags()) {
        bool named = !c.constraints.empty() && !c.constraints.back().name.empty();
        acceptWithTags(named ? c.constraints.back().tags : c.tags);
        continue;
      }
      if (!isColumnConstraintStart()) return c;
      c.constraints.push_back(columnConstraint());
    }
  }

  ColumnConstraint columnConstraint() {
    ColumnConstraint cc;
    cc.pos = here();
    if (acceptWord("constraint")) cc.name = identifier("Expected constraint name");
    using K = ColumnConstraint::Kind;
    if (acceptWord("primary")) {
      expectWord("key", "Expected 'KEY' after PRIMARY");
      cc.kind = K::kPrimaryKey;
      if (acceptWord("desc")) cc.desc = true;
      else acceptWord("asc");
      cc.onConflict = optionalOnConflict();
      if (acceptWord("autoincrement")) cc.autoincrement = true;
    } else if (isWord("not") && isWord("null", 1)) {
      next();
      next();
      cc.kind = K::kNotNull;
      cc.onConflict = optionalOnConflict();
    } else if (acceptWord("null")) {
      cc.kind = K::kNull;
    } else if (acceptWord("unique")) {
      cc.kind = K::kUnique;
      cc.onConflict = optionalOnConflict();
    } else if (acceptWord("check")) {
      cc.kind = K::kCheck;
      cc.checkOperations = checkOperations();
      expectOp("(", "Expected '(' after CHECK");
      cc.expr = parseExpr();
      expectOp(")");
      cc.onConflict = optionalOnConflict();
    } else if (acceptWord("default")) {
      cc.kind = K::kDefault;
      cc.expr = defaultExpr();
    } else if (acceptWord("collate")) {
      cc.kind = K::kCollate;
      cc.collation = anyName("Expected collation name");
    } else if (acceptWord("references")) {
      cc.kind = K::kReferences;
      cc.fk = foreignKeyClause();
    } else if (isWord("generated") || isWord("as")) {
      if (acceptWord("generated")) expectWord("always", "Expected 'ALWAYS' after GENERATED");
      expectWord("as", "Expected 'AS' in generated column");
      cc.kind = K::kGenerated;
      expectOp("(", "Expected '(' after AS");
      cc.expr = parseExpr();
      expectOp(")");
      if (acceptWord("stored")) cc.stored = true;
      else acceptWord("virtual");
    } else {
      errorHere("Expected column constraint");
    }
    return cc;
  }

  // A DEFAULT value: additive level (so `default 0 not null` leaves `not null` to the column)
  // and without postfix COLLATE (which belongs to the column, not the default).
  ExprPtr defaultExpr() {
    bool saved = noCollate_;
    noCollate_ = true;
    ExprPtr e = parseAdditive();
    noCollate_ = saved;
    return e;
  }

  std::vector<std::string> checkOperations() {
    std::vector<std::string> ops;
    if (!acceptWord("on")) return ops;
    do {
      if (isWord("insert") || isWord("update") || isWord("delete")) ops.push_back(lowerName(next().text));
      else errorHere("Expected INSERT, UPDATE or DELETE after CHECK ON");
    } while (acceptOp(","));
    return ops;
  }

  std::unique_ptr<ForeignKeyClause> foreignKeyClause() {
    auto fk = std::make_unique<ForeignKeyClause>();
    fk->parent = qualifiedName("Expected table name.");
    if (isOp("(")) fk->parentColumns = parenNameList("Expected column name");
    for (;;) {
      if (isWord("on") && (isWord("delete", 1) || isWord("update", 1))) {
        next();
        bool del = sameName(next().text, "delete");
        (del ? fk->onDelete : fk->onUpdate) = fkAction();
      } else if (acceptWord("match")) {
        anyName("Expected match type");
      } else if (isWord("not") && isWord("deferrable", 1)) {
        next();
        next();
        parseInitially(*fk);
      } else if (acceptWord("deferrable")) {
        fk->deferrable = true;
        parseInitially(*fk);
      } else {
        return fk;
      }
    }
  }

  void parseInitially(ForeignKeyClause& fk) {
    if (!acceptWord("initially")) return;
    if (acceptWord("deferred")) fk.initiallyDeferred = true;
    else expectWord("immediate", "Expected DEFERRED or IMMEDIATE after INITIALLY");
  }

  std::string fkAction() {
    if (acceptWord("cascade")) return "cascade";
    if (acceptWord("restrict")) return "restrict";
    if (isWord("set") && isWord("null", 1)) { next(); next(); return "set null"; }
    if (isWord("set") && isWord("default", 1)) { next(); next(); return "set default"; }
    if (isWord("no") && isWord("action", 1)) { next(); next(); return "no action"; }
    errorHere("Expected foreign key action (CASCADE, RESTRICT, SET NULL, SET DEFAULT, NO ACTION)");
  }

  TableConstraint tableConstraint() {
    TableConstraint tc;
    tc.pos = here();
    if (acceptWord("constraint")) tc.name = identifier("Expected constraint name");
    using K = TableConstraint::Kind;
    if (acceptWord("primary")) {
      expectWord("key", "Expected 'KEY' after PRIMARY");
      tc.kind = K::kPrimaryKey;
      tc.columns = indexedColumnList(true);
      tc.onConflict = optionalOnConflict();
    } else if (acceptWord("unique")) {
      tc.kind = K::kUnique;
      tc.columns = indexedColumnList(false);
      tc.onConflict = optionalOnConflict();
    } else if (acceptWord("check")) {
      tc.kind = K::kCheck;
      tc.checkOperations = checkOperations();
      expectOp("(", "Expected '(' after CHECK");
      tc.expr = parseExpr();
      expectOp(")");
      tc.onConflict = optionalOnConflict();
    } else if (acceptWord("foreign")) {
      expectWord("key", "Expected 'KEY' after FOREIGN");
      tc.kind = K::kForeignKey;
      tc.fkColumns = parenNameList("Expected column name");
      expectWord("references", "Expected 'REFERENCES' in FOREIGN KEY");
      tc.fk = foreignKeyClause();
    } else {
      errorHere("Expected PRIMARY KEY, UNIQUE, CHECK or FOREIGN KEY constraint");
    }
    acceptWithTags(tc.tags);
    return tc;
  }

  std::vector<IndexedColumn> indexedColumnList(bool allowEmpty) {
    std::vector<IndexedColumn> cols;
    expectOp("(", "Expected '('");
    if (allowEmpty && acceptOp(")")) return cols;
    do {
      cols.push_back(indexedColumn());
    } while (acceptOp(","));
    expectOp(")");
    return cols;
  }

  IndexedColumn indexedColumn() {
    IndexedColumn ic;
    ic.pos = here();
    ExprPtr e = parseExpr();
    if (e->kind == ExprKind::kCollate) {
      ic.collation = e->name;
      ExprPtr inner = std::move(e->args[0]);
      e = std::move(inner);
    }
    if (e->kind == ExprKind::kColumn && e->table.empty()) ic.name = e->name;
    else ic.expr = std::move(e);
    if (acceptWord("desc")) {
      ic.desc = true;
      ic.hasDirection = true;
    } else if (acceptWord("asc")) {
      ic.hasDirection = true;
    }
    return ic;
  }

  StatementPtr parseIndexBody(SourcePos pos, bool unique) {
    auto st = newStatement(StatementKind::kCreateIndex, pos);
    auto ci = std::make_unique<CreateIndex>();
    ci->unique = unique;
    ci->ifNotExists = acceptIfNotExists();
    ci->name = qualifiedName("Expected index name");
    expectWord("on", "Expected 'ON' after index name");
    ci->table = qualifiedName("Expected table name.");
    ci->columns = indexedColumnList(false);
    if (acceptWord("where")) ci->where = parseExpr();
    acceptWithTags(ci->tags);
    st->createIndex = std::move(ci);
    return st;
  }

  StatementPtr parseViewBody(SourcePos pos, bool materialized) {
    auto st = newStatement(StatementKind::kCreateView, pos);
    auto cv = std::make_unique<CreateView>();
    cv->materialized = materialized;
    cv->ifNotExists = acceptIfNotExists();
    cv->name = qualifiedName("Expected view name");
    if (materialized && isOp("(") && parenListDeclaresColumns()) parseDeclaredMvColumns(*cv);
    else if (isOp("(")) cv->columns = parenNameList("Expected column name");
    if (acceptWord("using")) cv->module = moduleRef();
    if (cv->declared) cv->declared->module = cv->module;
    acceptWithTags(cv->tags);
    expectWord("as", "Expected 'AS' before view body");
    int start = cur().offset;
    if (atDmlStart()) {
      cv->dmlBody = parseStatement();
    } else if (isWord("with") && withLeadsDml()) {
      cv->dmlBody = parseWithStatement();
    } else {
      cv->select = parseQuery();
    }
    cv->bodyText = textFrom(start);
    if (cv->select && !cv->select->defaults.empty() && defaultsStart_ > start)
      cv->bodyText = trimRight(std::string(sql_.substr(start, defaultsStart_ - start)));
    if (cv->select) cv->defaults = std::move(cv->select->defaults);
    acceptWithTags(cv->tags);
    st->createView = std::move(cv);
    return st;
  }

  // At the `(` after a materialized view's name: true when the list holds more than bare names
  // (a typed column, a PRIMARY KEY or UNIQUE clause), i.e. it declares the view's schema.
  bool parenListDeclaresColumns() const {
    int depth = 0;
    size_t tokens = 0;  // in the current element
    for (size_t i = pos_ + 1; i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.kind == TokenKind::kEof) return false;
      if (depth == 0 && (tokIsOp(t, ",") || tokIsOp(t, ")"))) {
        if (tokens != 1) return true;
        if (tokIsOp(t, ")")) return false;
        tokens = 0;
        continue;
      }
      if (tokIsOp(t, "(")) ++depth;
      else if (tokIsOp(t, ")")) --depth;
      ++tokens;
    }
    return false;
  }

  // `(c type [not null] [collate …], …, primary key (…), unique (…))`: CREATE TABLE's elements.
  void parseDeclaredMvColumns(CreateView& cv) {
    expectOp("(", "Expected '('");
    cv.declared = std::make_unique<CreateTable>();
    cv.declared->name = cv.name;
    parseTableElements(*cv.declared, ")");
    for (const ColumnDef& cd : cv.declared->columns) cv.columns.push_back(cd.name);
  }

  // Looks past a WITH clause (balanced parentheses) to see whether a DML statement follows.
  bool withLeadsDml() const {
    int depth = 0;
    for (size_t i = pos_; i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (tokIsOp(t, "(")) ++depth;
      else if (tokIsOp(t, ")")) --depth;
      else if (depth == 0 && (tokIsOp(t, ";") || t.kind == TokenKind::kEof)) return false;
      else if (depth == 0 && (tokIsWord(t, "select") || tokIsWord(t, "values"))) return false;
      else if (depth == 0 && (tokIsWord(t, "insert") || tokIsWord(t, "update") || tokIsWord(t, "delete")))
        return true;
    }
    return false;
  }

  StatementPtr parseAssertionBody(SourcePos pos) {
    auto st = newStatement(StatementKind::kCreateAssertion, pos);
    auto ca = std::make_unique<CreateAssertion>();
    ca->name = qualifiedName("Expected assertion name");
    expectWord("check", "Expected 'CHECK' after assertion name");
    expectOp("(", "Expected '(' after CHECK");
    ca->check = parseExpr();
    expectOp(")");
    st->createAssertion = std::move(ca);
    return st;
  }

  // ---- DROP / ALTER -----------------------------------------------------------------------

  StatementPtr parseDrop() {
    auto st = newStatement(StatementKind::kDrop, here());
    auto d = std::make_unique<Drop>();
    next();  // drop
    using K = Drop::Kind;
    if (acceptWord("table")) d->kind = K::kTable;
    else if (acceptWord("view")) d->kind = K::kView;
    else if (isWord("materialized") && isWord("view", 1)) { next(); next(); d->kind = K::kMaterializedView; }
    else if (acceptWord("index")) d->kind = K::kIndex;
    else if (acceptWord("assertion")) d->kind = K::kAssertion;
    else errorHere("Expected TABLE, VIEW, MATERIALIZED VIEW, INDEX, or ASSERTION after DROP");
    d->ifExists = acceptIfExists();
    d->name = qualifiedName(d->kind == K::kTable ? "Expected table name." : "Expected object name");
    st->drop = std::move(d);
    return st;
  }

  StatementPtr parseAlter() {
    SourcePos pos = here();
    next();  // alter
    if (acceptWord("table")) return parseAlterTable(pos);
    using K = AlterObjectTags::Kind;
    if (acceptWord("view")) return parseAlterObjectTags(pos, K::kView);
    if (isWord("materialized") && isWord("view", 1)) {
      next();
      next();
      return parseAlterObjectTags(pos, K::kMaterializedView);
    }
    if (acceptWord("index")) return parseAlterObjectTags(pos, K::kIndex);
    errorHere("Expected TABLE, VIEW, MATERIALIZED VIEW or INDEX after ALTER");
  }

  StatementPtr parseAlterObjectTags(SourcePos pos, AlterObjectTags::Kind kind) {
    auto st = newStatement(StatementKind::kAlterObjectTags, pos);
    auto a = std::make_unique<AlterObjectTags>();
    a->kind = kind;
    a->name = qualifiedName("Expected object name");
    using Op = AlterObjectTags::Op;
    if (acceptWord("set")) a->op = Op::kSet;
    else if (acceptWord("add")) a->op = Op::kAdd;
    else if (acceptWord("drop")) a->op = Op::kDrop;
    else errorHere("Expected SET, ADD or DROP TAGS");
    expectWord("tags", "Expected 'TAGS'");
    if (a->op == Op::kDrop) {
      expectOp("(");
      do {
        if (cur().kind == TokenKind::kString) a->dropKeys.push_back(next().text);
        else a->dropKeys.push_back(anyName("Expected tag name"));
      } while (acceptOp(","));
      expectOp(")");
    } else {
      a->tags = tagList();
    }
    st->alterObjectTags = std::move(a);
    return st;
  }

  StatementPtr parseAlterTable(SourcePos pos) {
    auto st = newStatement(StatementKind::kAlterTable, pos);
    auto a = std::make_unique<AlterTable>();
    a->table = qualifiedName("Expected table name.");
    using A = AlterTable::Action;
    if (acceptWord("rename")) {
      if (acceptWord("to")) {
        a->action = A::kRenameTable;
        a->newName = identifier("Expected new table name");
      } else if (acceptWord("constraint")) {
        a->action = A::kRenameConstraint;
        a->name = identifier("Expected constraint name");
        expectWord("to", "Expected 'TO'");
        a->newName = identifier("Expected new constraint name");
      } else {
        acceptWord("column");
        a->action = A::kRenameColumn;
        a->column = identifier("Expected column name");
        expectWord("to", "Expected 'TO'");
        a->newName = identifier("Expected new column name");
      }
    } else if (acceptWord("add")) {
      if (isTableConstraintStart()) {
        a->action = A::kAddConstraint;
        a->constraint = std::make_unique<TableConstraint>(tableConstraint());
      } else {
        acceptWord("column");
        a->action = A::kAddColumn;
        a->columnDef = std::make_unique<ColumnDef>(columnDef());
      }
    } else if (acceptWord("drop")) {
      if (acceptWord("constraint")) {
        a->action = A::kDropConstraint;
        a->name = identifier("Expected constraint name");
      } else if (acceptWord("maintained")) {
        a->action = A::kDropMaintained;
      } else {
        acceptWord("column");
        a->action = A::kDropColumn;
        a->column = identifier("Expected column name");
      }
    } else if (acceptWord("alter")) {
      parseAlterAlter(*a);
    } else if (acceptWord("set")) {
      if (acceptWord("tags")) {
        a->action = A::kSetTags;
        a->tags = tagList();
      } else if (acceptWord("maintained")) {
        a->action = A::kSetMaintained;
        if (isOp("(")) a->maintainedNames = parenNameList("Expected column name");
        expectWord("as", "Expected 'AS' after MAINTAINED");
        a->maintainedAs = parseQuery();
      } else {
        errorHere("Expected TAGS or MAINTAINED after SET");
      }
    } else {
      errorHere("Expected RENAME, ADD, DROP, ALTER or SET after ALTER TABLE name");
    }
    st->alterTable = std::move(a);
    return st;
  }

  // After `alter table t alter`: primary key, constraint n set tags, or [column] c action.
  void parseAlterAlter(AlterTable& a) {
    using A = AlterTable::Action;
    using C = AlterTable::ColumnAction;
    if (isWord("primary") && isWord("key", 1)) {
      next();
      next();
      a.action = A::kAlterPrimaryKey;
      a.keyColumns = indexedColumnList(true);
      return;
    }
    if (acceptWord("constraint")) {
      a.action = A::kAlterConstraintTags;
      a.name = identifier("Expected constraint name");
      expectWord("set", "Expected 'SET'");
      expectWord("tags", "Expected 'TAGS'");
      a.tags = tagList();
      return;
    }
    acceptWord("column");
    a.action = A::kAlterColumn;
    a.column = identifier("Expected column name");
    if (acceptWord("set")) {
      if (isWord("not") && isWord("null", 1)) { next(); next(); a.columnAction = C::kSetNotNull; }
      else if (acceptWord("data")) {
        expectWord("type", "Expected 'TYPE' after SET DATA");
        a.columnAction = C::kSetDataType;
        a.typeName = typeName();
      } else if (acceptWord("type")) {
        a.columnAction = C::kSetDataType;
        a.typeName = typeName();
      } else if (acceptWord("default")) {
        a.columnAction = C::kSetDefault;
        a.defaultExpr = defaultExpr();
      } else if (acceptWord("collate")) {
        a.columnAction = C::kSetCollate;
        a.collation = anyName("Expected collation name");
      } else if (acceptWord("tags")) {
        a.columnAction = C::kSetTags;
        a.tags = tagList();
      } else {
        errorHere("Expected NOT NULL, DATA TYPE, DEFAULT, COLLATE or TAGS after SET");
      }
    } else if (acceptWord("drop")) {
      if (isWord("not") && isWord("null", 1)) { next(); next(); a.columnAction = C::kDropNotNull; }
      else if (acceptWord("default")) a.columnAction = C::kDropDefault;
      else errorHere("Expected NOT NULL or DEFAULT after DROP");
    } else if (isWord("type")) {
      next();
      a.columnAction = C::kSetDataType;
      a.typeName = typeName();
    } else {
      errorHere("Expected SET or DROP after column name");
    }
  }

  // ---- transactions, pragma, analyze ------------------------------------------------------

  StatementPtr parseTransaction() {
    auto st = newStatement(StatementKind::kTransaction, here());
    auto tx = std::make_unique<Transaction>();
    using K = Transaction::Kind;
    std::string w = lowerName(next().text);
    if (w == "begin") {
      tx->kind = K::kBegin;
      if (isWord("deferred") || isWord("immediate") || isWord("exclusive")) tx->mode = lowerName(next().text);
      acceptWord("transaction");
    } else if (w == "commit" || w == "end") {
      tx->kind = K::kCommit;
      acceptWord("transaction");
    } else if (w == "rollback") {
      tx->kind = K::kRollback;
      acceptWord("transaction");
      if (acceptWord("to")) {
        acceptWord("savepoint");
        tx->kind = K::kRollbackTo;
        tx->savepoint = identifier("Expected savepoint name");
      }
    } else if (w == "savepoint") {
      tx->kind = K::kSavepoint;
      tx->savepoint = identifier("Expected savepoint name");
    } else {  // release
      tx->kind = K::kRelease;
      acceptWord("savepoint");
      tx->savepoint = identifier("Expected savepoint name");
    }
    st->transaction = std::move(tx);
    return st;
  }

  StatementPtr parsePragma() {
    auto st = newStatement(StatementKind::kPragma, here());
    auto p = std::make_unique<Pragma>();
    next();  // pragma
    p->name = qualifiedName("Expected pragma name");
    if (acceptOp("=")) {
      p->value = literalValue("Expected pragma value");
    } else if (acceptOp("(")) {
      p->value = literalValue("Expected pragma value");
      expectOp(")");
    }
    st->pragma = std::move(p);
    return st;
  }

  StatementPtr parseAnalyze() {
    auto st = newStatement(StatementKind::kAnalyze, here());
    auto a = std::make_unique<Analyze>();
    next();  // analyze
    if (atIdent()) {
      a->target.pos = here();
      a->target.name = next().text;
      if (acceptOp(".")) {
        a->target.schema = std::move(a->target.name);
        if (acceptOp("*")) a->target.name = "*";
        else a->target.name = anyName("Expected table name.");
      }
    }
    st->analyze = std::move(a);
    return st;
  }

  // ---- declarative schema -----------------------------------------------------------------

  StatementPtr parseDeclare() {
    SourcePos pos = here();
    int start = cur().offset;
    next();  // declare
    if (isWord("lens")) return parseDeclareLens(pos, start);
    auto st = newStatement(StatementKind::kDeclareSchema, pos);
    auto ds = std::make_unique<DeclareSchema>();
    if (acceptWord("logical")) ds->logical = true;
    expectWord("schema", "Expected 'SCHEMA' or 'LENS' after DECLARE");
    ds->schema = identifier("Expected schema name");
    for (;;) {
      if (acceptWord("version")) {
        if (cur().kind != TokenKind::kString) errorHere("Expected version string");
        ds->version = next().text;
      } else if (acceptWord("using")) {
        ds->usingOptions = keyValueList();
      } else {
        break;
      }
    }
    expectOp("{", "Expected '{' to begin schema body");
    inSchemaBody_ = true;
    while (!acceptOp("}")) {
      if (atEof()) errorHere("Expected '}' to end schema body");
      if (acceptOp(";") || acceptOp(",")) continue;
      int itemStart = cur().offset;
      StatementPtr item = parseSchemaItem();
      item->text = textFrom(itemStart);
      ds->items.push_back(std::move(item));
    }
    inSchemaBody_ = false;
    st->declareSchema = std::move(ds);
    return st;
  }

  StatementPtr parseSchemaItem() {
    SourcePos pos = here();
    acceptWord("create");
    if (acceptWord("table")) return parseTableBody(pos, true);
    if (isWord("unique") && isWord("index", 1)) { next(); next(); return parseIndexBody(pos, true); }
    if (acceptWord("index")) return parseIndexBody(pos, false);
    if (acceptWord("view")) return parseViewBody(pos, false);
    if (isWord("materialized") && isWord("view", 1)) { next(); next(); return parseViewBody(pos, true); }
    if (acceptWord("assertion")) return parseAssertionBody(pos);
    if (acceptWord("seed")) return parseSeed(pos);
    errorHere("Expected TABLE, INDEX, VIEW, MATERIALIZED VIEW, ASSERTION or SEED in schema body");
  }

  StatementPtr parseSeed(SourcePos pos) {
    auto st = newStatement(StatementKind::kSeed, pos);
    auto s = std::make_unique<Seed>();
    s->table = qualifiedName("Expected table name.");
    bool wrapped = false;  // `seed t ((…), (…))`
    if (isOp("(") && isOp("(", 1)) {
      next();
      wrapped = true;
    } else if (isOp("(")) {
      s->columns = parenNameList("Expected column name");
    }
    acceptWord("values");
    if (!wrapped && isOp("(") && isOp("(", 1)) {
      next();
      wrapped = true;
    }
    do {
      expectOp("(", "Expected '(' before seed row");
      std::vector<ExprPtr> row;
      if (!isOp(")")) {
        do {
          row.push_back(parseExpr());
        } while (acceptOp(","));
      }
      expectOp(")");
      s->rows.push_back(std::move(row));
    } while (acceptOp(","));
    if (wrapped) expectOp(")");
    st->seed = std::move(s);
    return st;
  }

  // `declare lens for L over B { view T as <select>; … }`: each override is a view item (name,
  // optional column list, body, tags) as `create view` parses it.
  StatementPtr parseDeclareLens(SourcePos pos, int start) {
    auto st = newStatement(StatementKind::kDeclareLens, pos);
    auto dl = std::make_unique<DeclareLens>();
    next();  // lens
    expectWord("for", "Expected 'FOR' after DECLARE LENS");
    dl->name = qualifiedName("Expected logical schema name");
    expectWord("over", "Expected 'OVER' and a basis schema name after the logical schema name");
    dl->basis = identifier("Expected basis schema name");
    expectOp("{", "Expected '{' to begin lens body");
    while (!acceptOp("}")) {
      if (atEof()) errorHere("Expected '}' to end lens body");
      if (acceptOp(";") || acceptOp(",")) continue;
      SourcePos itemPos = here();
      size_t itemTok = pos_;
      int itemStart = cur().offset;
      acceptWord("create");
      expectWord("view", "Expected 'VIEW' in lens body");
      StatementPtr item = parseViewBody(itemPos, false);
      if (!item->createView->select) errorAt(toks_[itemTok], "A lens override body must be a SELECT");
      item->text = textFrom(itemStart);
      dl->views.push_back(std::move(item));
    }
    dl->text = textFrom(start);
    st->declareLens = std::move(dl);
    return st;
  }

  StatementPtr parseSchemaCommand() {
    auto st = newStatement(StatementKind::kSchemaCommand, here());
    auto sc = std::make_unique<SchemaCommand>();
    using K = SchemaCommand::Kind;
    std::string w = lowerName(next().text);
    sc->kind = w == "apply" ? K::kApply : w == "diff" ? K::kDiff : K::kExplain;
    expectWord("schema", "Expected 'SCHEMA'");
    sc->schema = identifier("Expected schema name");
    if (sc->kind == K::kApply) {
      for (;;) {
        if (acceptWord("to")) {
          expectWord("version", "Expected 'VERSION' after TO");
          if (cur().kind != TokenKind::kString) errorHere("Expected version string");
          sc->toVersion = next().text;
        } else if (isWord("with") && isWord("seed", 1)) {
          next();
          next();
          sc->withSeed = true;
        } else if (acceptWord("options")) {
          sc->options = applyOptions();
        } else {
          break;
        }
      }
    }
    st->schemaCommand = std::move(sc);
    return st;
  }

  std::vector<std::pair<std::string, Value>> applyOptions() {
    std::vector<std::pair<std::string, Value>> opts;
    expectOp("(", "Expected '(' after OPTIONS");
    do {
      const Token& keyTok = cur();
      std::string key = lowerName(anyName("Expected option name"));
      expectOp("=", "Expected '=' after option name");
      if (key == "allow_destructive") {
        if (!(isWord("true") || isWord("false"))) errorHere("Expected 'true' or 'false'");
        opts.emplace_back(key, Value::boolean(sameName(next().text, "true")));
      } else if (key == "rename_policy") {
        if (cur().kind != TokenKind::kString) errorHere("Expected string value for rename_policy");
        opts.emplace_back(key, Value::text(next().text));
      } else {
        errorAt(keyTok, "Unsupported apply schema option '" + keyTok.text + "'");
      }
    } while (acceptOp(","));
    expectOp(")");
    return opts;
  }

  StatementPtr parseRefresh() {
    auto st = newStatement(StatementKind::kRefreshMaterializedView, here());
    next();  // refresh
    expectWord("materialized", "Expected 'MATERIALIZED' after REFRESH");
    expectWord("view", "Expected 'VIEW' after MATERIALIZED");
    auto r = std::make_unique<RefreshMaterializedView>();
    r->name = qualifiedName("Expected view name");
    st->refresh = std::move(r);
    return st;
  }

  std::string_view sql_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int bareParams_ = 0;
  int exprDepth_ = 0;  // parseExpr recursion depth (kMaxExprDepth)
  bool noCollate_ = false;  // parsing a DEFAULT: COLLATE ends the expression
  int defaultsStart_ = -1;
  bool inSchemaBody_ = false;  // inside `declare schema … { … }`  // offset of the latest `with defaults` (cuts view body texts)
};

}  // namespace

std::vector<StatementPtr> parseSql(std::string_view sql) { return Parser(sql).parseAll(); }

ExprPtr parseExpression(std::string_view sql) { return Parser(sql).parseStandaloneExpr(); }

}  // namespace optic
