// Table builder: the reusable pieces that turn AST column and constraint definitions into
// TableSchema parts, shared by CREATE TABLE (ddl.cpp) and ALTER TABLE (alter.cpp).
//
// Invariants: constraint names are one case-insensitive namespace per table (ConstraintNames
// is seeded from an existing schema for ALTER); auto-names get _2, _3 on repeats; every
// expression stored in a schema part points into an AST the schema keeps alive.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

class ConstraintNames {
 public:
  // The names of a table being created (`table` is its name, for messages).
  explicit ConstraintNames(std::string table) : table_(std::move(table)) {}
  // Every name an existing table already uses, for constraints ALTER adds to it.
  explicit ConstraintNames(const TableSchema& existing);
  // The explicit name (throws kConstraint, in the reference's wording for CREATE or ALTER, when
  // taken) or a free auto-name.
  std::string claim(const std::string& explicitName, const std::string& autoName);
  bool taken(const std::string& name) const { return used_.count(lowerName(name)) != 0; }
  // `prefix` + the first n >= `from` whose name is free (`check_2` when `check_1` is live).
  std::string firstFree(const std::string& prefix, size_t from) const;

 private:
  std::set<std::string> used_;
  std::string table_;
  bool altering_ = false;
};

// RENAME CONSTRAINT onto a name the table already uses.
[[noreturn]] void failConstraintRenameTaken(const std::string& newName, const std::string& table);

// A table-level CHECK declared without a name is minted `_check_<n>`: it has no name to show
// (introspection reports NULL) or to quote in messages. A column-level one is minted
// `_check_<column>`, which DROP CONSTRAINT addresses, so it counts as named.
bool hasMintedName(const CheckConstraint& ck);

Collation collationOrThrow(const std::string& name);
std::string joinNames(const std::vector<std::string>& names, const char* sep);
bool containsSubquery(const ast::Expr& e);

// The static rules of a schema expression, checked at DDL time whatever the pragmas say (they
// are scope rules, not determinism rules): no bind parameters anywhere (subqueries included);
// a DEFAULT reads siblings only as `new.<col>`, never as a bare column; a generated column
// never reads `old.*`. `what` names the expression in messages ("DEFAULT", "CHECK constraint").
enum class SchemaExprKind : uint8_t { kDefault, kCheck, kGenerated };
// `hasContext`: the table declares a mutation context, so a DEFAULT's bare names are legal (they
// read a context variable, else the new row).
void validateSchemaExpr(const ast::Expr& e, const Context& ctx, SchemaExprKind kind, bool hasContext = false);
FkAction fkActionFromText(const std::string& s);

// The generated columns of `t` as a whole: each binds over its own row only (`old.*`, or a
// qualifier nothing in the body introduces, binds nothing) and none depends on itself through
// other generated columns (a name a subquery's own FROM binds is that source's, no edge; a name
// under an inner DML is undecidable and counts as an edge).
void validateGeneratedColumns(Context& ctx, const TableSchema& t);

// True when `expr`, bound over a row of `owner`, reads column `column` of base table `table`
// through one of its subqueries, directly, through views, or through a materialized view whose
// body reads it (an expression that no longer binds reads nothing). A `select *` reads every
// column unless `starReads` is false.
bool subqueryReadsColumn(Context& ctx, const TableSchema& owner, const ast::Expr& expr, const Table& table,
                         int column, bool starReads = true);

// A key column naming a column of `t` (index, PK and UNIQUE lists).
KeyColumn keyColumnFor(const TableSchema& t, const ast::IndexedColumn& ic);
// Where a UNIQUE is declared: what the statement does, for refusals ("add constraint 'u' to
// table 't'"), and the first of the table's indexes the same statement declared.
struct UniqueDeclaration {
  std::string operation;
  size_t firstOfStatement = 0;
};
// Appends the implicit index of a UNIQUE constraint, named for the constraint, else minted
// `_uc_<columns>`. Refused when an unnamed one over the same columns exists, or when its name is
// another constraint's structure's or a standalone index's on the table (it would share or hide
// it).
void addUnique(TableSchema& t, ConstraintNames& names, const std::string& explicitName, std::vector<KeyColumn> cols,
               ast::ConflictAction onConflict, const UniqueDeclaration& site);
// Whether an unnamed UNIQUE's minted structure name is `name`: no constraint's name, but a
// structure's, so taking it is a structure-name collision rather than a repeated name.
bool mintedStructureHolds(const TableSchema& t, const std::string& name);
// Refuses `backingName` for a UNIQUE constraint's structure when another constraint's (not
// `self`) or a standalone index of `t` holds it.
void requireBackingNameFree(const TableSchema& t, const std::string& backingName, const std::string& operation,
                            const IndexSchema* self = nullptr);
void addCheck(TableSchema& t, ConstraintNames& names, const Context& ctx, const std::string& explicitName,
              const std::string& autoName, const ast::Expr& e, const std::vector<std::string>& ops,
              ast::ConflictAction onConflict = ast::ConflictAction::kNone);
void addForeignKey(TableSchema& t, ConstraintNames& names, const std::string& explicitName, std::vector<int> cols,
                   const ast::ForeignKeyClause& fkc);

// A foreign key whose child and parent columns both declare a COLLATE, and different ones, can
// never compare consistently: refused when the parent exists (a missing parent is checked at
// the first write). Checks every foreign key of `t`.
void rejectConflictingFkCollations(Context& ctx, const TableSchema& t);

// Refuses rows that collide under unique index `ix` of `t` ("UNIQUE constraint failed: t (cols)"):
// a row with a NULL key part, or outside a partial index's predicate, never collides.
void rejectUniqueCollisions(Context& ctx, const TableSchema& t, const IndexSchema& ix, const std::vector<Row>& rows);

// The column itself (type, nullability, collation, default, generated), without the
// constraints that create schema parts (PK, UNIQUE, CHECK, REFERENCES).
ColumnSchema buildColumn(const Context& ctx, const ast::ColumnDef& cd, bool hasContext = false);

}  // namespace optic
