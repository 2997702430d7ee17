// Parser tests: AST shapes, precedence, statement texts and the reference's syntax-error
// wording (conformance corpus 90.1-parse-errors, 90-error_paths, 90.5, 47.x, 01.6, 50).
#include <gtest/gtest.h>

#include "core/common/error.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"

namespace optic {
namespace {

using namespace ast;

StatementPtr parseOne(const std::string& sql) {
  auto stmts = parseSql(sql);
  EXPECT_EQ(stmts.size(), 1u);
  return std::move(stmts.at(0));
}

// The syntax error message for `sql` ("" when it parses).
std::string syntaxError(const std::string& sql) {
  try {
    parseSql(sql);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSyntax) << e.what();
    return e.what();
  }
  return "";
}

#define EXPECT_SYNTAX(sql, fragment) \
  EXPECT_NE(syntaxError(sql).find(fragment), std::string::npos) << syntaxError(sql)

TEST(ParserTest, ReferenceErrorMessages) {
  EXPECT_EQ(syntaxError("SELECT * FROM;"), "Expected table name. (at line 1, column 14)");
  EXPECT_EQ(syntaxError("CREAT TABLE t_err (a);"),
            "Expected statement type (SELECT, INSERT, UPDATE, DELETE, VALUES, CREATE, etc.), got "
            "'CREAT'. (at line 1, column 1)");
  EXPECT_SYNTAX("SELECT abs(1", "Unterminated '('");
  EXPECT_SYNTAX("WITH AS (SELECT 1) SELECT 1;", "Expected CTE name");
  EXPECT_SYNTAX("WITH c SELECT * FROM c;", "Expected 'AS' after CTE name");
  EXPECT_SYNTAX("WITH c (1) AS (SELECT 1) SELECT * FROM c;", "Expected column name in CTE definition");
  EXPECT_SYNTAX("WITH c AS SELECT 1;", "Expected '(' before CTE query");
  EXPECT_SYNTAX("SELECT 'unterminated;", "Unterminated string");
  EXPECT_SYNTAX("CREATE;", "Expected TABLE,");
  EXPECT_SYNTAX("INSERT INTO;", "Expected table name");
  EXPECT_SYNTAX("UPDATE;", "Expected table name");
  EXPECT_SYNTAX("DELETE;", "Expected table name");
  EXPECT_SYNTAX("CREATE TABLE t ();", "Expected column");
  EXPECT_SYNTAX("DROP TRIGGER x;", "Expected TABLE, VIEW, MATERIALIZED VIEW, INDEX, or ASSERTION after DROP");
  EXPECT_SYNTAX("SELECT CASE WHEN 1 THEN 2;", "Expected 'END'");
  EXPECT_SYNTAX("SELECT * FROM t WHERE;", "Expected expression");
  EXPECT_SYNTAX("SELECT 1 WHERE 1 = @x;", "Unexpected character");
  EXPECT_SYNTAX("SELECT :;", "Expected identifier or number after parameter prefix");
  EXPECT_SYNTAX("insert into t default values;", "Expected VALUES, SELECT, or DML");
  EXPECT_SYNTAX("replace into rk values (1);", "Expected statement type");
  EXPECT_SYNTAX("update t set (a, b) = (select 1, 2) where id = 1;", "Expected column name");
  EXPECT_SYNTAX("update or ignore t set a = 1;", "Expected table name");
  EXPECT_SYNTAX("update t set a = 1 from u;", "Expected statement type");
  EXPECT_SYNTAX("select * from a natural join b;", "NATURAL");
  EXPECT_SYNTAX("apply schema main options (allow_destructive = 'yes');", "Expected 'true' or 'false'");
  EXPECT_SYNTAX("apply schema main options (allow_destructiv = true);",
                "Unsupported apply schema option 'allow_destructiv'");
  EXPECT_SYNTAX("select (a, b) in (select 1, 2);", "Expected ')'");
}

// The lexer's rules and wording are the reference's (parser/lexer.ts): /* */ comments nest and
// must close, // starts a line comment, an exponent needs digits, a blob literal holds hex digits
// (whitespace between them ignored) in an even number.
TEST(ParserTest, LexerFollowsTheReference) {
  EXPECT_SYNTAX("select 1 /* never closed", "Unterminated comment.");
  EXPECT_SYNTAX("select 1 /* outer /* inner */ still a comment", "Unterminated comment.");
  EXPECT_EQ(syntaxError("select 1 /* outer /* inner */ done */ + 1;"), "");
  EXPECT_EQ(syntaxError("select 1 // a line comment\n + 1;"), "");
  EXPECT_SYNTAX("select 1e;", "Invalid number literal: expected digits after exponent.");
  EXPECT_SYNTAX("select 2e+;", "Invalid number literal: expected digits after exponent.");
  EXPECT_EQ(syntaxError("select 2e+3, 1.5E2;"), "");
  EXPECT_SYNTAX("select x'123';", "Blob literal must have an even number of hex digits.");
  EXPECT_SYNTAX("select x'12g4';", "Invalid character in blob literal.");
  EXPECT_SYNTAX("select x'12", "Unterminated blob literal.");
  EXPECT_EQ(parseExpression("x'01 ff'")->value.asBlob(), (Bytes{0x01, 0xff}));
  EXPECT_SYNTAX("select 'abc", "Unterminated string.");
  EXPECT_SYNTAX("select \"abc", "Unterminated identifier.");
  EXPECT_SYNTAX("select [abc", "Unterminated identifier.");
  EXPECT_SYNTAX("select `abc", "Unterminated identifier.");
  EXPECT_SYNTAX("select #;", "Unexpected character: #");
}

// TEMP is no Quereus concept: `create temp table` is a syntax error (the `temp` schema is named
// like any other, `create table temp.t`); INSERT's INTO is optional, as in SQLite.
TEST(ParserTest, TempIsRefusedAndIntoIsOptional) {
  EXPECT_SYNTAX("create temp table t (a integer primary key);", "TEMP/TEMPORARY is not supported.");
  EXPECT_SYNTAX("create temporary view v as select 1;", "TEMP/TEMPORARY is not supported.");
  EXPECT_EQ(syntaxError("create table temp.t (a integer primary key);"), "");
  StatementPtr st = parseOne("insert t (a) values (1)");
  ASSERT_EQ(st->kind, StatementKind::kInsert);
  EXPECT_EQ(st->insert->table.name, "t");
}

TEST(ParserTest, BitwiseOperatorsAndQuestionDigitAreErrors) {
  EXPECT_NE(syntaxError("select 1 & 2"), "");
  EXPECT_NE(syntaxError("select 1 | 2"), "");
  EXPECT_NE(syntaxError("select 1 << 2"), "");
  EXPECT_NE(syntaxError("select 1 >> 2"), "");
  EXPECT_NE(syntaxError("SELECT 1 WHERE 1 = ?1;"), "");
}

TEST(ParserTest, ErrorPositionsCountCharacters) {
  try {
    parseSql("select 'é',\n  ;");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 3);
  }
  try {
    parseSql("select 'éé' from;");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.column(), 17);  // characters, not bytes
  }
}

TEST(ParserTest, PrecedenceNotBetweenAndAndComparison) {
  auto e = parseExpression("not a = b and c");
  ASSERT_EQ(e->kind, ExprKind::kBinary);
  EXPECT_EQ(e->op, "and");
  ASSERT_EQ(e->args[0]->kind, ExprKind::kUnary);
  EXPECT_EQ(e->args[0]->op, "not");
  EXPECT_EQ(e->args[0]->args[0]->op, "=");
}

TEST(ParserTest, PrecedenceLevels) {
  EXPECT_EQ(printExpr(*parseExpression("a or b and c")), "a or b and c");
  auto e = parseExpression("a || b * c");  // || binds tighter than *
  EXPECT_EQ(e->op, "*");
  EXPECT_EQ(e->args[0]->op, "||");
  auto c = parseExpression("a = b < c");  // < binds tighter than =
  EXPECT_EQ(c->op, "=");
  EXPECT_EQ(c->args[1]->op, "<");
  auto coll = parseExpression("-a collate nocase");  // collate tightest
  EXPECT_EQ(coll->kind, ExprKind::kUnary);
  EXPECT_EQ(coll->args[0]->kind, ExprKind::kCollate);
}

TEST(ParserTest, PredicateForms) {
  auto in = parseExpression("x not in (1, 2)");
  EXPECT_EQ(in->kind, ExprKind::kInList);
  EXPECT_TRUE(in->negated);
  EXPECT_EQ(in->args.size(), 3u);
  auto between = parseExpression("x between 1 and 2 and y");
  EXPECT_EQ(between->op, "and");
  EXPECT_EQ(between->args[0]->kind, ExprKind::kBetween);
  EXPECT_EQ(parseExpression("x is not false")->kind, ExprKind::kIsBool);
  EXPECT_TRUE(parseExpression("x notnull")->negated);
  EXPECT_EQ(parseExpression("x like 'a%' escape '\\'")->args.size(), 3u);
  EXPECT_EQ(parseExpression("not exists (select 1)")->kind, ExprKind::kExists);  // folded
  EXPECT_TRUE(parseExpression("not exists (select 1)")->negated);
}

// The grouping of an expression as a fully parenthesised S-expression: "(op a b)".
std::string tree(const Expr& e) {
  auto sub = [&](size_t i) { return tree(*e.args[i]); };
  std::string neg = e.negated ? "not-" : "";
  switch (e.kind) {
    case ExprKind::kLiteral:
    case ExprKind::kColumn: return printExpr(e);
    case ExprKind::kUnary: return "(" + e.op + " " + sub(0) + ")";
    case ExprKind::kBinary: return "(" + e.op + " " + sub(0) + " " + sub(1) + ")";
    case ExprKind::kLike: return "(" + neg + e.op + " " + sub(0) + " " + sub(1) + ")";
    case ExprKind::kIsNull: return "(" + neg + "isnull " + sub(0) + ")";
    case ExprKind::kIsBool: return "(is-" + neg + (e.boolValue ? "true " : "false ") + sub(0) + ")";
    case ExprKind::kBetween: return "(" + neg + "between " + sub(0) + " " + sub(1) + " " + sub(2) + ")";
    case ExprKind::kInList: {
      std::string out = "(" + neg + "in " + sub(0);
      for (size_t i = 1; i < e.args.size(); ++i) out += " " + sub(i);
      return out + ")";
    }
    case ExprKind::kInSelect: return "(" + neg + "in " + sub(0) + " query)";
    case ExprKind::kExists: return "(" + neg + "exists)";
    case ExprKind::kSubquery: return "(subquery)";
    case ExprKind::kCollate: return "(collate " + sub(0) + " " + e.name + ")";
    case ExprKind::kFunction: return e.name + "()";
    default: return "?";
  }
}

std::string treeOf(const std::string& sql) { return tree(*parseExpression(sql)); }

// The reference's ladder, loosest first: OR/XOR, AND, prefix NOT, IS [NOT] NULL/TRUE/FALSE,
// = == != <>, < <= > >= IN BETWEEN LIKE, + -, * / %, unary - + ~, ||, COLLATE, -> ->>.
TEST(ParserTest, PrecedenceLadderOfTheReference) {
  const std::pair<const char*, const char*> cases[] = {
      {"not a is null", "(not (isnull a))"},
      {"not exists (select 1) is null", "(not (isnull (exists)))"},
      {"not exists (select 1) and b", "(and (not-exists) b)"},
      {"not not exists (select 1)", "(not (not-exists))"},
      {"-100 = 10.1 is not null", "(not-isnull (= (- 100) 10.1))"},
      {"a = b is null", "(isnull (= a b))"},
      {"a < b is true", "(is-true (< a b))"},
      {"a = b isnull", "(isnull (= a b))"},
      {"a = b not null", "(not-isnull (= a b))"},
      {"a is null is null", "(isnull (isnull a))"},
      {"a is null and b is not null", "(and (isnull a) (not-isnull b))"},
      {"not a = b", "(not (= a b))"},
      {"not a in (1, 2)", "(not (in a 1 2))"},
      {"not a between 1 and 2", "(not (between a 1 2))"},
      {"not a like 'x'", "(not (like a 'x'))"},
      {"a = b in (1)", "(= a (in b 1))"},
      {"a = b between 1 and 2", "(= a (between b 1 2))"},
      {"a < b = c > d", "(= (< a b) (> c d))"},
      {"a < b < c", "(< (< a b) c)"},
      {"a + 1 between b and c * 2", "(between (+ a 1) b (* c 2))"},
      {"a like b || c", "(like a (|| b c))"},
      {"-a || b", "(- (|| a b))"},
      {"-a * b", "(* (- a) b)"},
      {"- -a || b", "(- (- (|| a b)))"},
      {"~a + b", "(+ (~ a) b)"},
      {"a || b * c", "(* (|| a b) c)"},
      {"a || b collate nocase", "(|| a (collate b nocase))"},
      {"-a collate nocase", "(- (collate a nocase))"},
      {"a || b -> 'x'", "(|| a (-> b 'x'))"},
      {"a -> 'x' collate nocase", "(collate (-> a 'x') nocase)"},
      {"a -> 'x' -> 0", "(-> (-> a 'x') 0)"},
      {"a or b xor c and d", "(xor (or a b) (and c d))"},
  };
  for (const auto& [sql, want] : cases) EXPECT_EQ(treeOf(sql), want) << sql;
}

// `(` opens a subquery only when a query keyword follows, or a parenthesised leg continues as
// a compound or ordered query; otherwise the parentheses hold an expression.
TEST(ParserTest, ParenthesisedScalarSubqueryInsideAnExpression) {
  EXPECT_EQ(treeOf("((select 1) * 2)"), "(* (subquery) 2)");
  EXPECT_EQ(treeOf("((select 1))"), "(subquery)");
  EXPECT_EQ(treeOf("(((select 1)))"), "(subquery)");
  EXPECT_EQ(treeOf("(select 1) + (select 2)"), "(+ (subquery) (subquery))");
  EXPECT_EQ(treeOf("((select 1) + (select 2)) * 3"), "(* (+ (subquery) (subquery)) 3)");
  EXPECT_EQ(treeOf("((select 1) = 1)"), "(= (subquery) 1)");
  EXPECT_EQ(treeOf("((select 1) is null)"), "(isnull (subquery))");
  EXPECT_EQ(treeOf("((select 1) union select 2)"), "(subquery)");
  EXPECT_EQ(treeOf("((select 1) order by 1 limit 1)"), "(subquery)");
  EXPECT_EQ(treeOf("(((select 1) union select 2) * 2)"), "(* (subquery) 2)");
  EXPECT_EQ(treeOf("x in ((select 1))"), "(in x (subquery))");
  EXPECT_EQ(treeOf("x in ((select 1), 2)"), "(in x (subquery) 2)");
  EXPECT_EQ(treeOf("x in ((select 1) * 2, 3)"), "(in x (* (subquery) 2) 3)");
  EXPECT_EQ(treeOf("x in (select 1)"), "(in x query)");
  EXPECT_EQ(treeOf("x not in ((select 1) union (select 2))"), "(not-in x query)");
  EXPECT_EQ(treeOf("exists ((select 1))"), "(exists)");
  EXPECT_EQ(treeOf("coalesce((select 1), 2)"), "coalesce()");
  EXPECT_SYNTAX("select ((select 1) * 2", "Expected ')'");
}

TEST(ParserTest, LiteralsAndParameters) {
  auto big = parseExpression("9223372036854775808");
  EXPECT_EQ(big->text, "9223372036854775808");
  auto i = parseExpression("42");
  EXPECT_EQ(i->value.asInt(), 42);
  EXPECT_EQ(parseExpression(".5")->text, ".5");
  EXPECT_EQ(parseExpression("x'0A0B'")->value.asBlob(), (Bytes{0x0a, 0x0b}));
  EXPECT_EQ(parseExpression("'a''b'")->value.asText(), "a'b");
  auto stmts = parseSql("select ?, :name, $1, :2, ?");
  const auto& cols = stmts[0]->select->columns;
  EXPECT_EQ(cols[0].expr->index, 1);
  EXPECT_EQ(cols[1].expr->name, "name");
  EXPECT_EQ(cols[1].expr->index, 0);
  EXPECT_EQ(cols[2].expr->index, 1);
  EXPECT_EQ(cols[3].expr->index, 2);
  EXPECT_EQ(cols[4].expr->index, 2);
}

TEST(ParserTest, QuotedIdentifiers) {
  auto e = parseExpression("\"My Col\" + `b` + [c d]");
  EXPECT_EQ(e->args[0]->args[0]->name, "My Col");
  EXPECT_EQ(e->args[0]->args[1]->name, "b");
  EXPECT_EQ(e->args[1]->name, "c d");
}

TEST(ParserTest, StatementTextsAndComments) {
  auto stmts = parseSql("select 1; -- c\n/* x */ select 2 ;;");
  ASSERT_EQ(stmts.size(), 2u);
  EXPECT_EQ(stmts[0]->text, "select 1");
  EXPECT_EQ(stmts[1]->text, "select 2");
  auto v = parseOne("create view v as select a from t with tags (x = 1)");
  EXPECT_EQ(v->createView->bodyText, "select a from t");
  EXPECT_EQ(v->createView->tags.size(), 1u);
}

TEST(ParserTest, SetOperationsGroupToTheRight) {
  auto st = parseOne("select 1 except select 2 union select 3 order by 1");
  const Select& s = *st->select;
  EXPECT_EQ(s.setOp, SetOp::kExcept);
  EXPECT_EQ(s.right->setOp, SetOp::kUnion);
  EXPECT_EQ(s.orderBy.size(), 1u);
  auto flags = parseOne("select a from x union exists left as inA, exists right as inB select a from y");
  EXPECT_EQ(flags->select->existsLeftAs, "inA");
  EXPECT_EQ(flags->select->existsRightAs, "inB");
}

TEST(ParserTest, JoinsAndFromItems) {
  auto st = parseOne(
      "select * from a left join b on a.id = b.id exists as hasB cross join lateral json_each(a.j) j, c");
  const FromItem& top = *st->select->from;
  EXPECT_TRUE(top.commaJoin);
  const FromItem& cross = *top.left;
  EXPECT_EQ(cross.joinType, JoinType::kCross);
  EXPECT_TRUE(cross.lateral);
  EXPECT_EQ(cross.right->kind, FromItem::Kind::kFunction);
  EXPECT_EQ(cross.right->alias, "j");
  EXPECT_EQ(cross.left->existsAs, "hasB");
  auto dml = parseOne("select * from (insert into t values (1) returning id) as r");
  EXPECT_EQ(dml->select->from->kind, FromItem::Kind::kDml);
  EXPECT_EQ(dml->select->from->dml->kind, StatementKind::kInsert);
}

TEST(ParserTest, CtesAndMaxRecursion) {
  auto st = parseOne(
      "with recursive c(n) as (select 1 union all select n + 1 from c) option (maxrecursion 5) "
      "select n from c");
  ASSERT_TRUE(st->select->with);
  EXPECT_TRUE(st->select->with->recursive);
  EXPECT_EQ(*st->select->with->maxRecursion, 5);
  auto dml = parseOne("with c as (insert into t values (1) returning k) select 42 as x");
  EXPECT_TRUE(dml->select->with->ctes[0].dml);
}

TEST(ParserTest, WindowFrames) {
  auto e = parseExpression(
      "sum(v) over (partition by g order by id rows between 1 preceding and unbounded following)");
  ASSERT_TRUE(e->window);
  ASSERT_TRUE(e->window->frame);
  EXPECT_EQ(e->window->frame->start.kind, FrameBound::Kind::kPreceding);
  EXPECT_EQ(e->window->frame->end.kind, FrameBound::Kind::kUnboundedFollowing);
}

TEST(ParserTest, InsertUpsertContextReturning) {
  auto st = parseOne(
      "insert into t (a, b) with context m = 42 values (1, 2) "
      "on conflict (a) do update set b = excluded.b where b > 0 with schema main returning *");
  const Insert& ins = *st->insert;
  EXPECT_EQ(ins.orAction, ConflictAction::kNone);
  EXPECT_EQ(parseOne("insert or replace into t values (1)")->insert->orAction, ConflictAction::kReplace);
  // The reference refuses the two conflict clauses together, at the CONFLICT keyword.
  EXPECT_EQ(syntaxError("insert or replace into t values (1) on conflict do nothing"),
            "Cannot use both 'INSERT OR ...' and 'ON CONFLICT' in the same statement. (at line 1, column 40)");
  EXPECT_EQ(ins.columns.size(), 2u);
  EXPECT_EQ(ins.context.size(), 1u);
  ASSERT_EQ(ins.upserts.size(), 1u);
  EXPECT_FALSE(ins.upserts[0].doNothing);
  EXPECT_EQ(ins.withSchema[0], "main");
  EXPECT_TRUE(ins.hasReturning);
  auto up = parseOne("update t with context v = 1 set a = 2 where id = 1 returning old.a");
  EXPECT_EQ(up->update->context.size(), 1u);
  auto del = parseOne("delete from (select id from t) as v where id = 1");
  EXPECT_TRUE(del->del->targetSelect);
  // The alias of a subquery write target is mandatory.
  EXPECT_NE(syntaxError("update (select id from t) set id = 2").find("requires an alias"), std::string::npos);
  EXPECT_NE(syntaxError("delete from (select id from t) where id = 1").find("requires an alias"), std::string::npos);
}

TEST(ParserTest, CreateTableColumnsAndConstraints) {
  auto st = parseOne(
      "create table if not exists s.t (id integer primary key desc on conflict ignore, "
      "b varchar(10) null default 'x' collate nocase, c int check on insert (c > 0), "
      "d int references p(id) on delete cascade, g int generated always as (c + 1) stored, "
      "constraint uq unique (b, c desc) with tags (k = 'v'),) using memory with tags (a = true)");
  const CreateTable& ct = *st->createTable;
  EXPECT_TRUE(ct.ifNotExists);
  EXPECT_EQ(ct.name.schema, "s");
  ASSERT_EQ(ct.columns.size(), 5u);
  EXPECT_EQ(ct.columns[1].typeName, "varchar");
  EXPECT_EQ(ct.columns[0].constraints[0].onConflict, ConflictAction::kIgnore);
  EXPECT_TRUE(ct.columns[0].constraints[0].desc);
  EXPECT_EQ(ct.columns[2].constraints[0].checkOperations, std::vector<std::string>{"insert"});
  EXPECT_EQ(ct.columns[3].constraints[0].fk->onDelete, "cascade");
  EXPECT_TRUE(ct.columns[4].constraints[0].stored);
  ASSERT_EQ(ct.constraints.size(), 1u);
  EXPECT_EQ(ct.constraints[0].name, "uq");
  EXPECT_TRUE(ct.constraints[0].columns[1].desc);
  EXPECT_EQ(ct.constraints[0].tags.size(), 1u);
  EXPECT_EQ(ct.module.name, "memory");
  EXPECT_EQ(ct.tags.size(), 1u);
  auto dflt = parseOne("create table t (a int default 0 not null, b int default -1)");
  EXPECT_EQ(dflt->createTable->columns[0].constraints.size(), 2u);
}

TEST(ParserTest, ViewsAndMaintainedTables) {
  auto mv = parseOne(
      "create materialized view m as select id, v + 1 as w with inverse (v = new.w - 1) from t "
      "with defaults (c = 1)");
  const CreateView& cv = *mv->createView;
  EXPECT_TRUE(cv.materialized);
  EXPECT_TRUE(cv.select->columns[1].hasInverse);
  EXPECT_EQ(cv.select->columns[1].inverse[0].column, "v");
  EXPECT_EQ(cv.defaults.size(), 1u);
  EXPECT_EQ(cv.bodyText, "select id, v + 1 as w with inverse (v = new.w - 1) from t");
  EXPECT_SYNTAX("create view v as select a + 1 as b with inverse (a = new.b, a = 1) from t",
                "Duplicate column 'a' in WITH INVERSE");
  auto mt = parseOne("create table mt (id integer primary key) maintained as select id from src");
  EXPECT_TRUE(mt->createTable->maintainedAs);
}

TEST(ParserTest, AlterTableArms) {
  EXPECT_EQ(parseOne("alter table t rename to u")->alterTable->action, AlterTable::Action::kRenameTable);
  EXPECT_EQ(parseOne("alter table t rename a to b")->alterTable->action, AlterTable::Action::kRenameColumn);
  EXPECT_EQ(parseOne("alter table t add column c int null")->alterTable->action, AlterTable::Action::kAddColumn);
  EXPECT_EQ(parseOne("alter table t add constraint c check (a > 0)")->alterTable->action,
            AlterTable::Action::kAddConstraint);
  EXPECT_EQ(parseOne("alter table t alter primary key (a desc)")->alterTable->action,
            AlterTable::Action::kAlterPrimaryKey);
  auto col = parseOne("alter table t alter column a set data type text");
  EXPECT_EQ(col->alterTable->columnAction, AlterTable::ColumnAction::kSetDataType);
  EXPECT_EQ(col->alterTable->typeName, "text");
  EXPECT_EQ(parseOne("alter table t drop maintained")->alterTable->action, AlterTable::Action::kDropMaintained);
  EXPECT_EQ(parseOne("alter index i drop tags (a, b)")->alterObjectTags->dropKeys.size(), 2u);
}

TEST(ParserTest, TransactionsPragmaAnalyze) {
  EXPECT_EQ(parseOne("begin immediate transaction")->transaction->mode, "immediate");
  auto rb = parseOne("rollback transaction to savepoint s1");
  EXPECT_EQ(rb->transaction->kind, Transaction::Kind::kRollbackTo);
  EXPECT_EQ(rb->transaction->savepoint, "s1");
  EXPECT_EQ(parseOne("release s1")->transaction->kind, Transaction::Kind::kRelease);
  auto p = parseOne("pragma foreign_keys = off");
  EXPECT_EQ(p->pragma->value->asText(), "off");
  EXPECT_FALSE(parseOne("pragma schema_path")->pragma->value.has_value());
  EXPECT_EQ(parseOne("analyze main.*")->analyze->target.name, "*");
}

TEST(ParserTest, DeclarativeSchema) {
  auto st = parseOne(
      "declare schema main version '1.0' using (default_vtab_module = 'memory') {\n"
      "  table users { id INTEGER PRIMARY KEY, name TEXT }\n"
      "  index ix on users (name);\n"
      "  view v as select id from users\n"
      "  seed users ((1, 'a'), (2, 'b'))\n"
      "}");
  const DeclareSchema& ds = *st->declareSchema;
  EXPECT_EQ(ds.version, "1.0");
  ASSERT_EQ(ds.items.size(), 4u);
  EXPECT_EQ(ds.items[0]->kind, StatementKind::kCreateTable);
  EXPECT_EQ(ds.items[1]->kind, StatementKind::kCreateIndex);
  EXPECT_EQ(ds.items[2]->kind, StatementKind::kCreateView);
  EXPECT_EQ(ds.items[3]->seed->rows.size(), 2u);
  auto apply = parseOne("apply schema s to version '2' with seed options (allow_destructive = true)");
  EXPECT_TRUE(apply->schemaCommand->withSeed);
  EXPECT_EQ(apply->schemaCommand->toVersion, "2");
  auto lens = parseOne("declare lens for app over main { view T as select * from t; }");
  EXPECT_EQ(lens->kind, StatementKind::kDeclareLens);
  EXPECT_EQ(lens->declareLens->name.name, "app");
}

TEST(ParserTest, ParseExpressionRejectsTrailingText) {
  EXPECT_THROW(parseExpression("1 + 2 3"), Error);
}

// Deep nesting is a positioned syntax error, not a stack overflow (native crash / wasm RangeError).
TEST(ParserTest, NestingDepthIsLimited) {
  auto nested = [](int n) { return "select " + std::string(n, '(') + "1" + std::string(n, ')') + ";"; };
  EXPECT_NO_THROW(parseSql(nested(150)));
  EXPECT_NE(syntaxError(nested(100000)).find("Expression nested too deeply"), std::string::npos);
  std::string subqueries = "select 1";
  for (int i = 0; i < 300; ++i) subqueries = "select (" + subqueries + ")";
  EXPECT_NE(syntaxError(subqueries).find("nested too deeply"), std::string::npos);
  // A left-associative chain is built by a loop, but walked by recursion: its length counts.
  auto chain = [](int n, const std::string& link) {
    std::string sql = "select 1";
    for (int i = 0; i < n; ++i) sql += link;
    return sql;
  };
  EXPECT_NO_THROW(parseSql(chain(400, " + 1")));
  EXPECT_NO_THROW(parseSql(chain(400, " or 1 = 1")));
  EXPECT_NE(syntaxError(chain(5000, " + 1")).find("Expression nested too deeply"), std::string::npos);
  EXPECT_NE(syntaxError(chain(5000, " collate nocase")).find("nested too deeply"), std::string::npos);
  EXPECT_NE(syntaxError(chain(5000, " isnull")).find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace optic
