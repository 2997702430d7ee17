// AST: the parsed form of every statement of the dialect (sql-core.md, views.md).
//
// The parser builds it; the binder reads it; nothing else mutates it after parsing (the binder
// copies what it rewrites). Every node carries the position of its first token so errors can
// point at it. Nodes are plain structs owned through unique_ptr; a node kind's meaningful fields
// are documented beside the enum, the rest stay empty.
//
// Identifiers keep their spelling as written (with quotes removed); comparisons of identifiers
// are case-insensitive everywhere after parsing.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/value.h"

namespace optic::ast {

struct SourcePos {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in characters
  int offset = 0;  // byte offset into the statement text
};

struct Expr;
struct Select;
struct Statement;
using ExprPtr = std::unique_ptr<Expr>;
using SelectPtr = std::unique_ptr<Select>;
using StatementPtr = std::unique_ptr<Statement>;

// A tag list: `with tags (key = value, …)`; values are literals.
struct Tag {
  std::string key;
  Value value;
};
using Tags = std::vector<Tag>;

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind : uint8_t {
  kLiteral,      // value; text = source spelling of numbers ("2.0", "1e3"), "" otherwise
  kColumn,       // schema?, table?, name  (`new.x`/`old.x`/`excluded.x` arrive as table = that)
  kParam,        // name: "" for `?`, "1" for `:1`/`$1`/`?1`, "val" for `:val`; index = 1-based slot
                 // for positional forms (assigned in order of appearance for bare `?`)
  kUnary,        // op ("-", "+", "~", "not"), args[0]
  kBinary,       // op (lower-case: "+", "-", "*", "/", "%", "||", "=", "==", "!=", "<", "<=",
                 //   ">", ">=", "and", "or", "xor", "like", "glob", "regexp", "->", "->>"), args[0..1]
                 // `<>` is stored as "!=". `a = b` keeps "=" and `a == b` keeps "==".
  kIsNull,       // args[0]; negated for IS NOT NULL / NOTNULL
  kIsBool,       // args[0] IS [NOT] TRUE|FALSE: boolValue, negated
  kBetween,      // args = {operand, low, high}; negated
  kInList,       // args[0] = operand, args[1..] = list; negated
  kInSelect,     // args[0] = operand, select; negated
  kLike,         // args = {operand, pattern [, escape]}; op = "like"|"glob"|"regexp"|"match"; negated
  kExists,       // select; negated (NOT EXISTS)
  kSubquery,     // select: a scalar subquery
  kFunction,     // name (as written), args, distinct, star (`count(*)`), filter, orderBy, window
  kCast,         // args[0], typeName (as written)
  kCollate,      // args[0], name = collation name (as written)
  kCase,         // args[0] = operand or null; whens = {when, then}...; elseExpr
};

struct OrderingTerm;
struct WindowSpec;

struct CaseWhen {
  ExprPtr when;
  ExprPtr then;
};

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  SourcePos pos;

  Value value;               // kLiteral
  std::string text;          // kLiteral: source spelling for numbers
  std::string op;            // kUnary, kBinary, kLike
  std::string schema;        // kColumn: optional schema qualifier
  std::string table;         // kColumn: optional table qualifier
  std::string name;          // kColumn column, kParam name, kFunction name, kCollate collation
  std::string typeName;      // kCast
  int index = 0;             // kParam positional slot
  bool negated = false;      // kIsNull, kIsBool, kBetween, kIn*, kLike, kExists
  bool boolValue = false;    // kIsBool: IS TRUE (true) / IS FALSE (false)
  bool distinct = false;     // kFunction
  bool star = false;         // kFunction: f(*)
  std::vector<ExprPtr> args;
  std::vector<CaseWhen> whens;  // kCase
  ExprPtr elseExpr;             // kCase
  SelectPtr select;             // kInSelect, kExists, kSubquery
  ExprPtr filter;                             // kFunction: FILTER (WHERE …) (rejected later)
  std::vector<OrderingTerm> orderBy;          // kFunction: f(x ORDER BY …) (rejected later)
  std::unique_ptr<WindowSpec> window;         // kFunction: OVER (…)
  std::string windowName;                     // kFunction: OVER name (rejected later)

  Expr();
  ~Expr();
};

struct OrderingTerm {
  ExprPtr expr;
  bool desc = false;
  enum class Nulls : uint8_t { kDefault, kFirst, kLast } nulls = Nulls::kDefault;
};

struct FrameBound {
  enum class Kind : uint8_t { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing,
                              kUnboundedFollowing } kind = Kind::kCurrentRow;
  ExprPtr offset;  // kPreceding / kFollowing
};

struct WindowFrame {
  enum class Unit : uint8_t { kRows, kRange, kGroups } unit = Unit::kRows;
  FrameBound start;
  FrameBound end;          // defaults to CURRENT ROW when only a start is given
  std::string exclude;     // "" or "current row" / "group" / "ties" / "no others"
};

struct WindowSpec {
  std::string baseName;    // `over (w …)` referencing a named window (rejected later)
  std::vector<ExprPtr> partitionBy;
  std::vector<OrderingTerm> orderBy;
  std::optional<WindowFrame> frame;
};

// ---------------------------------------------------------------------------------------------
// Queries

struct QualifiedName {
  std::string schema;  // "" when unqualified
  std::string name;
  SourcePos pos;
};

// One put of an authored inverse: `expr as col with inverse (base_col = <expr over new.*>, …)`.
struct InversePut {
  std::string column;  // the base column written
  ExprPtr value;       // over new.<output column>
  SourcePos pos;
};

struct ResultColumn {
  enum class Kind : uint8_t { kExpr, kStar, kTableStar } kind = Kind::kExpr;
  ExprPtr expr;        // kExpr
  std::string alias;   // kExpr: AS alias ("" when none)
  std::string table;   // kTableStar: `t.*`
  std::string schema;  // kTableStar: `s.t.*`
  SourcePos pos;
  // (addition) `… as col with inverse (…)`; hasInverse distinguishes an empty list.
  bool hasInverse = false;
  std::vector<InversePut> inverse;
};

struct FromItem;
using FromItemPtr = std::unique_ptr<FromItem>;

enum class JoinType : uint8_t { kInner, kLeft, kRight, kFull, kCross };

struct FromItem {
  enum class Kind : uint8_t {
    kTable,      // table (schema.name), alias
    kSubquery,   // select, alias
    kFunction,   // table-valued function: table.name = function name, args, alias
    kJoin,       // left, right, joinType, lateral, on / usingColumns, existence flags
    kDml,        // a DML statement with RETURNING used as a relation: dml, alias
  } kind = Kind::kTable;
  SourcePos pos;

  QualifiedName table;
  std::string alias;
  std::vector<std::string> columnAliases;  // `(select …) as s(a, b)`
  SelectPtr select;
  std::vector<ExprPtr> args;
  StatementPtr dml;

  JoinType joinType = JoinType::kInner;
  bool lateral = false;
  bool natural = false;
  FromItemPtr left;
  FromItemPtr right;
  ExprPtr on;
  std::vector<std::string> usingColumns;
  // `… left join o on … exists as hasO`; FULL: `exists left as a`, `exists right as b`.
  std::string existsAs;        // LEFT/RIGHT/INNER: the single flag name
  std::string existsLeftAs;    // FULL
  std::string existsRightAs;   // FULL
  bool commaJoin = false;      // (addition) `from a, b`: kJoin/kCross built from a comma

  FromItem();
  ~FromItem();
};

struct CommonTableExpr {
  std::string name;
  std::vector<std::string> columns;
  enum class Materialized : uint8_t { kDefault, kMaterialized, kNotMaterialized } materialized =
      Materialized::kDefault;
  SelectPtr select;     // a query body, or
  StatementPtr dml;     // a data-modifying member (insert/update/delete [returning])
  // A clone of a data-modifying member (ast_clone.h) carries no `dml`; this names the original's
  // (not owned: the original statement outlives every plan-time clone of it).
  const Statement* clonedDml = nullptr;
  SourcePos pos;
};

struct WithClause {
  bool recursive = false;
  std::vector<CommonTableExpr> ctes;
  std::optional<int64_t> maxRecursion;  // `option (maxrecursion N)`
  SourcePos pos;
};

struct ViewColumnDefault {   // `with defaults (col = expr, …)`
  std::string column;
  ExprPtr expr;
};

enum class SetOp : uint8_t { kNone, kUnion, kUnionAll, kIntersect, kExcept, kDiff };

// One SELECT core, a VALUES list, or a compound of two queries. Compounds group to the right:
// `A except B union C` parses as A except (B union C) (sql-core.md §5).
struct Select {
  SourcePos pos;
  std::unique_ptr<WithClause> with;

  // A core (setOp == kNone && values.empty()):
  bool distinct = false;
  std::vector<ResultColumn> columns;
  FromItemPtr from;  // null when no FROM; comma lists arrive as kJoin with joinType kCross and
                     // commaJoin = true on the join node (rejected by the binder)
  ExprPtr where;
  std::vector<ExprPtr> groupBy;
  ExprPtr having;
  // `window w as (…)` clauses (rejected later)
  std::vector<std::pair<std::string, WindowSpec>> windows;

  // A VALUES list (setOp == kNone, values non-empty):
  std::vector<std::vector<ExprPtr>> values;

  // A compound: left setOp right, with optional membership flags.
  SetOp setOp = SetOp::kNone;
  SelectPtr left;
  SelectPtr right;
  std::string existsLeftAs;   // `A union exists left as inA, exists right as inB B`
  std::string existsRightAs;
  bool parenthesized = false;  // this query was written inside parentheses

  // Applies to the whole query (core, values or compound):
  std::vector<OrderingTerm> orderBy;
  ExprPtr limit;
  ExprPtr offset;
  // (addition) trailing clauses of a query body: `… with defaults (c = e, …)` (a view/CTE/
  // subquery/maintained body; a CREATE VIEW moves them to CreateView::defaults) and
  // `… with schema a, b` (statement-level search path on a SELECT).
  std::vector<ViewColumnDefault> defaults;
  std::vector<std::string> withSchema;

  Select();
  ~Select();
};

// True when `pred` holds for `e` or an expression under it. With intoQueries the walk also
// enters subqueries (every clause, CTE and compound leg), so nothing written inside `e` is missed.
bool anyExpr(const Expr& e, const std::function<bool(const Expr&)>& pred, bool intoQueries);
bool anyExprInSelect(const Select& s, const std::function<bool(const Expr&)>& pred);

// ---------------------------------------------------------------------------------------------
// Statements

enum class ConflictAction : uint8_t { kNone, kRollback, kAbort, kFail, kIgnore, kReplace };

struct ColumnConstraint;
struct TableConstraint;

struct ForeignKeyClause {
  QualifiedName parent;
  std::vector<std::string> parentColumns;   // empty = parent's primary key
  // "" (none given = restrict), "restrict", "no action", "cascade", "set null", "set default"
  std::string onDelete;
  std::string onUpdate;
  bool deferrable = false;
  bool initiallyDeferred = false;
};

struct IndexedColumn {
  std::string name;   // a column name; expression indexes arrive with expr set
  ExprPtr expr;       // non-null only for an expression key (rejected later)
  std::string collation;
  bool desc = false;
  bool hasDirection = false;  // asc/desc written explicitly
  SourcePos pos;
};

struct ColumnConstraint {
  enum class Kind : uint8_t {
    kPrimaryKey, kNotNull, kNull, kUnique, kCheck, kDefault, kCollate, kReferences, kGenerated,
  } kind = Kind::kNotNull;
  std::string name;                 // CONSTRAINT name ("" when none)
  ConflictAction onConflict = ConflictAction::kNone;
  bool desc = false;                // primary key desc
  bool autoincrement = false;       // rejected by the binder
  ExprPtr expr;                     // check / default / generated
  std::vector<std::string> checkOperations;  // `check on insert, update (…)`: lower-case ops
  std::string collation;            // collate
  std::unique_ptr<ForeignKeyClause> fk;
  bool stored = false;              // generated … stored
  Tags tags;
  SourcePos pos;
};

struct ColumnDef {
  std::string name;
  std::string typeName;             // as written, with arguments stripped ("" when none)
  std::vector<ColumnConstraint> constraints;
  Tags tags;
  SourcePos pos;
};

struct TableConstraint {
  enum class Kind : uint8_t { kPrimaryKey, kUnique, kCheck, kForeignKey } kind = Kind::kPrimaryKey;
  std::string name;
  std::vector<IndexedColumn> columns;  // primary key / unique (with asc/desc, collate)
  std::vector<std::string> fkColumns;  // foreign key: child columns
  std::unique_ptr<ForeignKeyClause> fk;
  ExprPtr expr;                        // check
  std::vector<std::string> checkOperations;
  ConflictAction onConflict = ConflictAction::kNone;
  Tags tags;
  SourcePos pos;
};

struct ModuleRef {
  std::string name;                 // "" = default module
  std::vector<std::pair<std::string, Value>> args;  // `using store(collation = 'BINARY')`
  std::vector<std::string> rawArgs; // positional args as written
};

struct ContextVarDef {                // `with context (v type [null], …)`
  std::string name;
  std::string typeName;
  bool nullable = false;
};

struct CreateTable {
  QualifiedName name;
  bool ifNotExists = false;
  std::vector<ColumnDef> columns;
  std::vector<TableConstraint> constraints;
  ModuleRef module;
  std::vector<ContextVarDef> contextVars;
  Tags tags;
  std::vector<std::string> tableOptions;  // `without rowid`, `strict`: rejected by the binder
  // `create table t (…) maintained [(names)] as query`
  SelectPtr maintainedAs;
  std::vector<std::string> maintainedNames;
};

struct CreateIndex {
  QualifiedName name;
  QualifiedName table;
  bool unique = false;
  bool ifNotExists = false;
  std::vector<IndexedColumn> columns;
  ExprPtr where;
  Tags tags;
};

struct CreateView {
  QualifiedName name;
  bool ifNotExists = false;
  bool materialized = false;
  bool orReplace = false;    // `create or replace materialized view`
  std::vector<std::string> columns;
  // `create materialized view m (c type [not null] [collate …], …, primary key (…), unique (…))`:
  // the declared schema, parsed as CREATE TABLE's elements (name and module copied from the
  // view); null for a name list or none. `columns` then holds the declared names.
  std::unique_ptr<CreateTable> declared;
  SelectPtr select;
  ModuleRef module;          // materialized: `using module(…)`
  std::vector<ViewColumnDefault> defaults;
  Tags tags;
  std::string bodyText;      // the query's source text (for canonical DDL)
  StatementPtr dmlBody;      // (addition) `as insert … returning …`: set instead of select
                             // (rejected by the binder)
};

struct CreateAssertion {
  QualifiedName name;
  ExprPtr check;
};

struct Drop {
  enum class Kind : uint8_t { kTable, kView, kMaterializedView, kIndex, kAssertion } kind =
      Kind::kTable;
  QualifiedName name;
  bool ifExists = false;
};

struct Assignment {          // `col = expr` in UPDATE / DO UPDATE
  std::string column;
  ExprPtr value;
  SourcePos pos;
};

struct Upsert {              // ON CONFLICT [(cols)] [where …] DO NOTHING | DO UPDATE SET … [WHERE …]
  std::vector<IndexedColumn> target;
  ExprPtr targetWhere;
  bool doNothing = true;
  std::vector<Assignment> set;
  ExprPtr where;
};

struct ContextAssignment {   // `with context v = expr, …`
  std::string name;
  ExprPtr value;
};

struct Insert {
  std::unique_ptr<WithClause> with;
  ConflictAction orAction = ConflictAction::kNone;
  QualifiedName table;
  std::string alias;
  std::vector<std::string> columns;
  SelectPtr source;                // VALUES or SELECT; null with defaultValues
  StatementPtr sourceDml;          // (addition) a DML-with-RETURNING source
  bool defaultValues = false;
  std::vector<Upsert> upserts;
  std::vector<ContextAssignment> context;
  std::vector<std::string> withSchema;  // `with schema a, b`
  std::vector<ResultColumn> returning;
  bool hasReturning = false;
  Tags tags;  // (addition) `with tags (…)` on a DML statement (validated by the binder)
};

struct Update {
  std::unique_ptr<WithClause> with;
  ConflictAction orAction = ConflictAction::kNone;  // rejected by the binder when set
  QualifiedName table;
  SelectPtr targetSelect;  // (addition) `update (select …) as v set …`: table empty, alias set
  std::vector<std::string> targetColumns;  // (addition) `… as v(a, b)`
  std::string alias;
  std::vector<Assignment> set;
  ExprPtr where;
  std::vector<ContextAssignment> context;
  std::vector<std::string> withSchema;
  std::vector<ResultColumn> returning;
  bool hasReturning = false;
  Tags tags;  // (addition) `with tags (…)` on a DML statement (validated by the binder)
};

struct Delete {
  std::unique_ptr<WithClause> with;
  ConflictAction orAction = ConflictAction::kNone;  // rejected by the binder when set
  QualifiedName table;
  SelectPtr targetSelect;  // (addition) `delete from (select …) as v …`: table empty, alias set
  std::vector<std::string> targetColumns;  // (addition) `… as v(a, b)`
  std::string alias;
  ExprPtr where;
  std::vector<ContextAssignment> context;
  std::vector<std::string> withSchema;
  std::vector<ResultColumn> returning;
  bool hasReturning = false;
  Tags tags;  // (addition) `with tags (…)` on a DML statement (validated by the binder)
};

struct AlterTable {
  enum class Action : uint8_t {
    kRenameTable,        // newName
    kRenameColumn,       // column -> newName
    kAddColumn,          // columnDef
    kDropColumn,         // column
    kAddConstraint,      // constraint
    kDropConstraint,     // name
    kRenameConstraint,   // name -> newName
    kAlterPrimaryKey,    // keyColumns
    kAlterColumn,        // column, columnAction
    kSetTags,            // tags (table)
    kAlterConstraintTags,// name, tags
    kSetMaintained,      // maintainedNames, maintainedAs
    kDropMaintained,
  } action = Action::kRenameTable;
  enum class ColumnAction : uint8_t {
    kSetNotNull, kDropNotNull, kSetDataType, kSetDefault, kDropDefault, kSetCollate, kSetTags,
  } columnAction = ColumnAction::kSetNotNull;
  QualifiedName table;
  std::string column;
  std::string name;
  std::string newName;
  std::unique_ptr<ColumnDef> columnDef;
  std::unique_ptr<TableConstraint> constraint;
  std::vector<IndexedColumn> keyColumns;
  std::string typeName;  // set data type
  std::string collation; // set collate
  ExprPtr defaultExpr;   // set default
  Tags tags;
  std::vector<std::string> maintainedNames;
  SelectPtr maintainedAs;
};

// `alter view|materialized view|index n set tags (…) | add tags (…) | drop tags (k, …)`
struct AlterObjectTags {
  enum class Kind : uint8_t { kView, kMaterializedView, kIndex } kind = Kind::kView;
  enum class Op : uint8_t { kSet, kAdd, kDrop } op = Op::kSet;
  QualifiedName name;
  Tags tags;
  std::vector<std::string> dropKeys;
};

struct Transaction {
  enum class Kind : uint8_t { kBegin, kCommit, kRollback, kSavepoint, kRelease, kRollbackTo } kind =
      Kind::kBegin;
  std::string savepoint;
  std::string mode;  // begin: "", "deferred", "immediate", "exclusive"
};

struct Pragma {
  QualifiedName name;       // `pragma s.name`
  std::optional<Value> value;  // `= value` or `(value)`; identifiers arrive as text
};

struct Analyze {
  QualifiedName target;  // empty name = everything; name "*" = all tables of schema
};

// Declarative schema (sql-core.md §10, views.md): the items are kept as statements.
struct DeclareSchema {
  std::string schema;
  bool logical = false;
  std::string version;
  std::vector<std::pair<std::string, Value>> usingOptions;
  std::vector<StatementPtr> items;  // CreateTable, CreateIndex, CreateView, CreateAssertion, Seed
};

struct Seed {                        // `seed t [(cols)] [values] (…), (…)` inside a declare schema
  QualifiedName table;
  std::vector<std::string> columns;
  std::vector<std::vector<ExprPtr>> rows;
};

struct SchemaCommand {               // apply / diff / explain schema
  enum class Kind : uint8_t { kApply, kDiff, kExplain } kind = Kind::kApply;
  std::string schema;
  std::string toVersion;
  bool withSeed = false;
  std::vector<std::pair<std::string, Value>> options;
};

struct DeclareLens {                 // `declare lens for L over B { view T as …; … }`
  QualifiedName name;                // the logical schema
  std::string basis;                 // the basis schema, as written
  std::vector<StatementPtr> views;   // CreateView items: the sparse overrides
  std::string text;
};

struct RefreshMaterializedView {
  QualifiedName name;
};

enum class StatementKind : uint8_t {
  kSelect, kInsert, kUpdate, kDelete, kCreateTable, kCreateIndex, kCreateView, kCreateAssertion,
  kDrop, kAlterTable, kAlterObjectTags, kTransaction, kPragma, kAnalyze, kDeclareSchema,
  kSchemaCommand, kDeclareLens, kRefreshMaterializedView, kSeed,
};

struct Statement {
  StatementKind kind = StatementKind::kSelect;
  SourcePos pos;
  std::string text;  // the statement's own source text, without the trailing ';'

  // Exactly one of these is set, matching kind.
  SelectPtr select;
  std::unique_ptr<Insert> insert;
  std::unique_ptr<Update> update;
  std::unique_ptr<Delete> del;
  std::unique_ptr<CreateTable> createTable;
  std::unique_ptr<CreateIndex> createIndex;
  std::unique_ptr<CreateView> createView;
  std::unique_ptr<CreateAssertion> createAssertion;
  std::unique_ptr<Drop> drop;
  std::unique_ptr<AlterTable> alterTable;
  std::unique_ptr<AlterObjectTags> alterObjectTags;
  std::unique_ptr<Transaction> transaction;
  std::unique_ptr<Pragma> pragma;
  std::unique_ptr<Analyze> analyze;
  std::unique_ptr<DeclareSchema> declareSchema;
  std::unique_ptr<SchemaCommand> schemaCommand;
  std::unique_ptr<DeclareLens> declareLens;
  std::unique_ptr<RefreshMaterializedView> refresh;
  std::unique_ptr<Seed> seed;

  Statement();
  ~Statement();
};

}  // namespace optic::ast
