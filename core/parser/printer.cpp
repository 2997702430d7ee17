// Printer: canonical SQL text of expressions and queries (sql-core.md §2 "Result column names").
//
// The output names result columns, so it must match the reference byte for byte:
//  - keywords lower-case, single spaces around binary operators, `, ` between list items;
//  - a binary child is parenthesised only when its precedence is lower than its parent's, or
//    equal on the right of a non-associative operator; a unary body or IS operand only when
//    it is binary;
//  - `x -> p` prints as json_extract(x, p), `x ->> p` as cast(json_extract(x, p) as text);
//  - identifiers are double-quoted only when they are reserved words or not plain words;
//  - number literals keep their source spelling.
// Predicate forms (IN, BETWEEN, IS NULL, IS TRUE) are not "binary" for parenthesisation,
// mirroring the reference AST; LIKE/GLOB/REGEXP/MATCH are.
#include "core/common/names.h"
#include "core/parser/printer.h"

#include <cctype>
#include <cstdio>
#include <unordered_set>

namespace optic {

using namespace ast;

namespace {


// Words the reference lexer reserves; a name spelled like one is quoted on output.
bool isKeyword(const std::string& name) {
  static const std::unordered_set<std::string> kKeywords = {
      "select", "from", "where", "insert", "update", "delete", "create", "drop", "alter",
      "table", "index", "view", "assertion", "virtual", "using", "null", "true", "false", "not",
      "and", "or", "in", "like", "between", "is", "as", "distinct", "group", "by", "having",
      "order", "asc", "desc", "limit", "offset", "union", "diff", "all", "primary", "constraint",
      "key", "unique", "default", "check", "collate", "generated", "foreign", "references", "on",
      "conflict", "cascade", "restrict", "set", "autoincrement", "no", "action", "begin",
      "commit", "rollback", "transaction", "deferred", "immediate", "deferrable", "initially",
      "stored", "returning", "join", "inner", "left", "right", "full", "cross", "outer",
      "natural", "replace", "values", "exists", "if", "into", "temp", "temporary", "rename",
      "to", "add", "always", "abort", "fail", "ignore", "savepoint", "release", "pragma",
      "analyze", "with", "recursive", "xor", "case", "when", "then", "else", "end", "cast",
      "over", "partition", "lateral", "row", "rows", "range", "unbounded", "preceding",
      "following", "current", "intersect", "except", "declare", "apply", "explain",
  };
  return kKeywords.count(lowerName(name)) != 0;
}

bool isPlainWord(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string quoteIdent(const std::string& name) {
  if (isPlainWord(name) && !isKeyword(name)) return name;
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

// Function names print lower-case; keywords the parser accepts bare in call position stay bare.
std::string functionName(const std::string& name) {
  static const std::unordered_set<std::string> kBareCallable = {
      "key", "action", "set", "default", "check", "unique", "references", "on", "cascade",
      "restrict", "like", "replace"};
  std::string l = lowerName(name);
  return kBareCallable.count(l) ? l : quoteIdent(l);
}

std::string quoteString(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string printValue(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "null";
    case ValueKind::kInteger: return std::to_string(v.asInt());
    case ValueKind::kReal: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v.asReal());
      return buf;
    }
    case ValueKind::kText: return quoteString(v.asText());
    case ValueKind::kBlob: {
      static const char* kHex = "0123456789abcdef";
      std::string out = "x'";
      for (uint8_t b : v.asBlob()) {
        out += kHex[b >> 4];
        out += kHex[b & 15];
      }
      return out + "'";
    }
    case ValueKind::kBoolean: return v.asBool() ? "true" : "false";
    default: return "?";  // big integers and JSON literals always carry their spelling
  }
}

// Precedence of a binary operator (sql-core.md §2); 0 for -> / ->>, which print as calls.
int opPrecedence(const std::string& op) {
  if (op == "like" || op == "glob" || op == "regexp" || op == "match") return 4;
  if (op == "or" || op == "xor") return 1;
  if (op == "and") return 2;
  if (op == "=" || op == "==" || op == "!=") return 3;
  if (op == "<" || op == "<=" || op == ">" || op == ">=") return 4;
  if (op == "+" || op == "-") return 5;
  if (op == "*" || op == "/" || op == "%") return 6;
  if (op == "||") return 7;
  return 0;
}

// Binary precedence of a node as the printer sees it; 0 = not a binary node.
int precedence(const Expr& e) {
  if (e.kind == ExprKind::kLike) return e.negated ? 0 : 4;
  return e.kind == ExprKind::kBinary ? opPrecedence(e.op) : 0;
}

bool isAssociative(const std::string& op) {
  return op == "and" || op == "or" || op == "xor" || op == "+" || op == "*" || op == "||";
}

class Printer {
 public:
  explicit Printer(bool foldIdentifiers = false, bool reparsable = false)
      : fold_(foldIdentifiers), reparsable_(reparsable) {}

  std::string expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kLiteral: return e.text.empty() ? printValue(e.value) : e.text;
      case ExprKind::kColumn: return columnRef(e);
      case ExprKind::kParam: return e.index != 0 || e.name.empty() ? "?" : ":" + e.name;
      case ExprKind::kUnary: return unary(e);
      case ExprKind::kBinary: return binary(e);
      case ExprKind::kIsNull: return unaryBody(*e.args[0]) + (e.negated ? " is not null" : " is null");
      case ExprKind::kIsBool:
        return unaryBody(*e.args[0]) + (e.negated ? " is not " : " is ") + (e.boolValue ? "true" : "false");
      case ExprKind::kBetween:
        return expr(*e.args[0]) + (e.negated ? " not between " : " between ") + expr(*e.args[1]) +
               " and " + expr(*e.args[2]);
      case ExprKind::kInList: return inList(e);
      case ExprKind::kInSelect:
        return std::string(e.negated ? "not " : "") + expr(*e.args[0]) + " in (" + select(*e.select) + ")";
      case ExprKind::kLike: return like(e);
      case ExprKind::kExists:
        return std::string(e.negated ? "not " : "") + "exists (" + select(*e.select) + ")";
      case ExprKind::kSubquery: return "(" + select(*e.select) + ")";
      case ExprKind::kFunction: return function(e);
      case ExprKind::kCast: return "cast(" + expr(*e.args[0]) + " as " + lowerName(e.typeName) + ")";
      case ExprKind::kCollate: return expr(*e.args[0]) + " collate " + quoteIdent(lowerName(e.name));
      case ExprKind::kCase: return caseExpr(e);
    }
    return "";
  }

  std::string select(const Select& s) {
    std::string out;
    if (s.with) out += withClause(*s.with) + " ";
    if (s.setOp != SetOp::kNone) out += compound(s);
    else if (!s.values.empty()) out += values(s);
    else out += core(s);
    if (!s.orderBy.empty()) out += " order by " + orderingTerms(s.orderBy);
    if (s.limit) out += " limit " + expr(*s.limit);
    if (s.offset) out += " offset " + expr(*s.offset);
    if (!s.defaults.empty()) {
      out += " with defaults (";
      for (size_t i = 0; i < s.defaults.size(); ++i) {
        if (i) out += ", ";
        out += quoteIdent(s.defaults[i].column) + " = " + expr(*s.defaults[i].expr);
      }
      out += ")";
    }
    if (!s.withSchema.empty()) out += " with schema " + nameList(s.withSchema);
    return out;
  }

 private:
  std::string columnRef(const Expr& e) {
    std::string out;
    if (!e.schema.empty()) out += ident(e.schema) + ".";
    if (!e.table.empty()) out += ident(e.table) + ".";
    return out + ident(e.name);
  }
  std::string ident(const std::string& name) const { return quoteIdent(fold_ ? lowerName(name) : name); }

  std::string operand(const Expr& child, const std::string& parentOp, bool right) {
    int parent = opPrecedence(parentOp);
    int prec = precedence(child);
    bool paren = prec != 0 && (prec < parent || (prec == parent && right && !isAssociative(parentOp)));
    std::string s = expr(child);
    return paren ? "(" + s + ")" : s;
  }

  std::string binary(const Expr& e) {
    if (e.op == "->" || e.op == "->>") {
      std::string call = "json_extract(" + expr(*e.args[0]) + ", " + expr(*e.args[1]) + ")";
      return e.op == "->" ? call : "cast(" + call + " as text)";
    }
    return operand(*e.args[0], e.op, false) + " " + e.op + " " + operand(*e.args[1], e.op, true);
  }

  std::string like(const Expr& e) {
    std::string body = operand(*e.args[0], e.op, false) + " " + e.op + " " + operand(*e.args[1], e.op, true);
    if (e.args.size() > 2) body += " escape " + expr(*e.args[2]);
    return e.negated ? "not (" + body + ")" : body;
  }

  // The operand of a unary operator or an IS predicate: parenthesised when binary, so
  // `(a = b) is null` and `not (a and b)` re-parse as written.
  std::string unaryBody(const Expr& body) {
    std::string inner = expr(body);
    return precedence(body) != 0 ? "(" + inner + ")" : inner;
  }

  std::string unary(const Expr& e) {
    std::string inner = unaryBody(*e.args[0]);
    if (e.op == "not") return "not " + inner;
    // A column name spells `- -1` as `--1` (sql-core.md §2); query text read back (a stored
    // view body) must not, since `--` starts a comment.
    if (reparsable_ && e.op == "-" && !inner.empty() && inner[0] == '-') return "- " + inner;
    return e.op + inner;
  }

  std::string inList(const Expr& e) {
    std::string out = std::string(e.negated ? "not " : "") + expr(*e.args[0]) + " in (";
    for (size_t i = 1; i < e.args.size(); ++i) {
      if (i > 1) out += ", ";
      out += expr(*e.args[i]);
    }
    return out + ")";
  }

  std::string function(const Expr& e) {
    std::string out = functionName(e.name) + "(";
    if (e.star) {
      out += "*";
    } else {
      if (e.distinct) out += "distinct ";
      out += exprList(e.args);
      if (!e.orderBy.empty()) out += " order by " + orderingTerms(e.orderBy);
    }
    out += ")";
    if (e.filter) out += " filter (where " + expr(*e.filter) + ")";
    if (e.window) out += " over (" + windowSpec(*e.window) + ")";
    else if (!e.windowName.empty()) out += " over " + quoteIdent(e.windowName);
    return out;
  }

  std::string caseExpr(const Expr& e) {
    std::string out = "case";
    if (!e.args.empty() && e.args[0]) out += " " + expr(*e.args[0]);
    for (const auto& w : e.whens) out += " when " + expr(*w.when) + " then " + expr(*w.then);
    if (e.elseExpr) out += " else " + expr(*e.elseExpr);
    return out + " end";
  }

  std::string exprList(const std::vector<ExprPtr>& list) {
    std::string out;
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out += ", ";
      out += expr(*list[i]);
    }
    return out;
  }

  std::string nameList(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (i) out += ", ";
      out += quoteIdent(names[i]);
    }
    return out;
  }

  std::string orderingTerms(const std::vector<OrderingTerm>& terms) {
    std::string out;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (i) out += ", ";
      out += expr(*terms[i].expr);
      if (terms[i].desc) out += " desc";
      if (terms[i].nulls == OrderingTerm::Nulls::kFirst) out += " nulls first";
      if (terms[i].nulls == OrderingTerm::Nulls::kLast) out += " nulls last";
    }
    return out;
  }

  std::string windowSpec(const WindowSpec& w) {
    std::vector<std::string> parts;
    if (!w.baseName.empty()) parts.push_back(quoteIdent(w.baseName));
    if (!w.partitionBy.empty()) parts.push_back("partition by " + exprList(w.partitionBy));
    if (!w.orderBy.empty()) parts.push_back("order by " + orderingTerms(w.orderBy));
    if (w.frame) parts.push_back(frame(*w.frame));
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? " " : "") + parts[i];
    return out;
  }

  std::string frame(const WindowFrame& f) {
    std::string out = f.unit == WindowFrame::Unit::kRows ? "rows"
                      : f.unit == WindowFrame::Unit::kRange ? "range" : "groups";
    out += " between " + bound(f.start) + " and " + bound(f.end);
    if (!f.exclude.empty()) out += " exclude " + f.exclude;
    return out;
  }

  std::string bound(const FrameBound& b) {
    using K = FrameBound::Kind;
    switch (b.kind) {
      case K::kUnboundedPreceding: return "unbounded preceding";
      case K::kUnboundedFollowing: return "unbounded following";
      case K::kCurrentRow: return "current row";
      case K::kPreceding: return expr(*b.offset) + " preceding";
      case K::kFollowing: return expr(*b.offset) + " following";
    }
    return "";
  }

  std::string withClause(const WithClause& w) {
    std::string out = w.recursive ? "with recursive " : "with ";
    for (size_t i = 0; i < w.ctes.size(); ++i) {
      const CommonTableExpr& c = w.ctes[i];
      if (i) out += ", ";
      out += quoteIdent(c.name);
      if (!c.columns.empty()) out += " (" + nameList(c.columns) + ")";
      out += " as ";
      if (c.materialized == CommonTableExpr::Materialized::kMaterialized) out += "materialized ";
      if (c.materialized == CommonTableExpr::Materialized::kNotMaterialized) out += "not materialized ";
      out += "(" + (c.select ? select(*c.select) : c.dml ? c.dml->text : std::string()) + ")";
    }
    if (w.maxRecursion) out += " option (maxrecursion " + std::to_string(*w.maxRecursion) + ")";
    return out;
  }

  std::string leg(const Select& s) {
    std::string body = select(s);
    return s.parenthesized ? "(" + body + ")" : body;
  }

  std::string compound(const Select& s) {
    static const char* const kOps[] = {"", "union", "union all", "intersect", "except", "diff"};
    std::string out = leg(*s.left) + " " + kOps[static_cast<int>(s.setOp)] + " ";
    if (!s.existsLeftAs.empty()) out += "exists left as " + quoteIdent(s.existsLeftAs) + ", ";
    if (!s.existsRightAs.empty()) out += "exists right as " + quoteIdent(s.existsRightAs) + ", ";
    if (!s.existsLeftAs.empty() || !s.existsRightAs.empty()) out.erase(out.size() - 2), out += " ";
    return out + leg(*s.right);
  }

  std::string values(const Select& s) {
    std::string out = "values ";
    for (size_t i = 0; i < s.values.size(); ++i) {
      if (i) out += ", ";
      out += "(" + exprList(s.values[i]) + ")";
    }
    return out;
  }

  std::string resultColumn(const ResultColumn& rc) {
    switch (rc.kind) {
      case ResultColumn::Kind::kStar: return "*";
      case ResultColumn::Kind::kTableStar:
        return (rc.schema.empty() ? "" : quoteIdent(rc.schema) + ".") + quoteIdent(rc.table) + ".*";
      case ResultColumn::Kind::kExpr: break;
    }
    std::string out = expr(*rc.expr);
    if (!rc.alias.empty()) out += " as " + quoteIdent(rc.alias);
    if (rc.hasInverse) {
      out += " with inverse (";
      for (size_t i = 0; i < rc.inverse.size(); ++i) {
        if (i) out += ", ";
        out += quoteIdent(rc.inverse[i].column) + " = " + expr(*rc.inverse[i].value);
      }
      out += ")";
    }
    return out;
  }

  std::string core(const Select& s) {
    std::string out = s.distinct ? "select distinct " : "select ";
    for (size_t i = 0; i < s.columns.size(); ++i) {
      if (i) out += ", ";
      out += resultColumn(s.columns[i]);
    }
    if (s.from) out += " from " + fromItem(*s.from);
    if (s.where) out += " where " + expr(*s.where);
    if (!s.groupBy.empty()) out += " group by " + exprList(s.groupBy);
    if (s.having) out += " having " + expr(*s.having);
    return out;
  }

  std::string aliasSuffix(const FromItem& f) {
    std::string out;
    if (!f.alias.empty()) out += " as " + quoteIdent(f.alias);
    if (!f.columnAliases.empty()) out += " (" + nameList(f.columnAliases) + ")";
    return out;
  }

  std::string fromItem(const FromItem& f) {
    switch (f.kind) {
      case FromItem::Kind::kTable:
        return (f.table.schema.empty() ? "" : quoteIdent(f.table.schema) + ".") +
               quoteIdent(f.table.name) + aliasSuffix(f);
      case FromItem::Kind::kSubquery: return "(" + select(*f.select) + ")" + aliasSuffix(f);
      case FromItem::Kind::kDml: return "(" + f.dml->text + ")" + aliasSuffix(f);
      case FromItem::Kind::kFunction:
        return (f.table.schema.empty() ? "" : quoteIdent(f.table.schema) + ".") +
               functionName(f.table.name) + "(" + exprList(f.args) + ")" + aliasSuffix(f);
      case FromItem::Kind::kJoin: return join(f);
    }
    return "";
  }

  std::string join(const FromItem& j) {
    if (j.commaJoin) return fromItem(*j.left) + ", " + fromItem(*j.right);
    static const char* const kTypes[] = {"inner", "left", "right", "full", "cross"};
    std::string out = fromItem(*j.left) + " " + kTypes[static_cast<int>(j.joinType)] + " join " +
                      (j.lateral ? "lateral " : "") + fromItem(*j.right);
    if (j.on) out += " on " + expr(*j.on);
    else if (!j.usingColumns.empty()) out += " using (" + nameList(j.usingColumns) + ")";
    std::vector<std::string> flags;
    if (!j.existsAs.empty()) flags.push_back("exists as " + quoteIdent(j.existsAs));
    if (!j.existsLeftAs.empty()) flags.push_back("exists left as " + quoteIdent(j.existsLeftAs));
    if (!j.existsRightAs.empty()) flags.push_back("exists right as " + quoteIdent(j.existsRightAs));
    for (size_t i = 0; i < flags.size(); ++i) out += (i ? ", " : " ") + flags[i];
    return out;
  }

  bool fold_;
  bool reparsable_;  // query text that is parsed again (printSelect): no `--`
};

}  // namespace

std::string printExpr(const Expr& e) { return Printer().expr(e); }
std::string printFingerprint(const Expr& e) { return Printer(true).expr(e); }
std::string printSelect(const Select& s) { return Printer(false, true).select(s); }
std::string printSqlExpr(const Expr& e) { return Printer(false, true).expr(e); }
std::string printIdent(const std::string& name) { return quoteIdent(name); }
std::string printLiteral(const Value& v) { return printValue(v); }

}  // namespace optic
