// JoinBody: what a multi-source view body — base tables joined by INNER / LEFT / RIGHT joins
// with an ON or USING condition — exposes to a write through it (views.md §2.5).
//
// analyseJoin() resolves every leaf to a base table (a side), routes every output column to its
// owning side with its column class, collects the equalities of the join conditions and body
// WHERE, and rejects the shapes the spec lists: comma joins, FULL joins, `select *` join
// bodies, sides that are views / materialized views / subqueries / functions, keyless sides.
// It also answers the planning questions of the join lowering: FK-parent order between sides
// and whether a side joins at most one row of a partner (PK / non-partial UNIQUE pinned).
// A view column that names an existence flag the body gives a LEFT/RIGHT join over one table
// is that side's flag (`columnFlagOf`): the join lowering writes it as the side's existence.
//
// Invariant: `view` is a SingleSource whose qualifier is empty, so forward expressions are the
// body's expressions with bare side columns qualified (evaluated over the same FROM).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/planner/views/view_body.h"
#include "core/planner/write_target.h"

namespace optic {

class Binder;

struct JoinSide {
  std::string qualifier;          // alias, else table name
  ast::QualifiedName table;       // schema-qualified
  std::shared_ptr<Table> object;
  bool preserved = true;          // never null-extended by an outer join
  const TableSchema& schema() const { return object->schema(); }
};

struct SideColumn {               // one side's column
  int side = -1;
  std::string column;
  bool operator==(const SideColumn& o) const;
};

struct SidePin {                  // `side.col = literal` in the body's ON or WHERE
  SideColumn column;
  const ast::Expr* value = nullptr;  // into the body AST
  bool filters = true;               // false: an outer join's ON pinning its preserved input
};

struct JoinBody {
  std::vector<JoinSide> sides;
  SingleSource view;                        // columns, where; qualifier ""
  std::vector<int> columnSide;              // per view column: owning side (-1 computed)
  std::vector<std::pair<SideColumn, SideColumn>> equalities;
  std::vector<SidePin> pins;
  std::vector<ast::ExprPtr> qualifiedExprs; // the columns' forward expressions, side-qualified
  std::vector<bool> matchFlagged;           // per side: the capture carries its match flag
  std::vector<int> columnFlagOf;            // per view column: the side whose existence flag it is (-1)
  std::vector<std::pair<std::string, int>> existenceFlags;  // body-named flag -> the side it flags
};

JoinBody analyseJoin(Binder& binder, const WriteTarget& t, const char* op);

// Gives each outer join of `from` (a clone of the body's FROM) an existence flag for its
// null-extendable side, unless the body already names one; per side, the flag's name ("" when the
// side is preserved or no join directly flags it). A flag is exact where the side's key is not:
// a matched partner may be keyed NULL, which null-extension looks like.
std::vector<std::string> flagNullExtendableSides(ast::FromItem& from, const JoinBody& j);

// The side whose existence flag `columnRef` names (-1 when it names none).
int flaggedSideOf(const JoinBody& j, const ast::Expr& columnRef);
// The side a column reference belongs to (-1 when none).
int sideOf(const JoinBody& j, const ast::Expr& columnRef);
// True when `child` declares a foreign key to `parent`'s table.
bool referencesSide(const JoinBody& j, int child, int parent);
// The sides in FK-parent-before-child order.
std::vector<int> parentFirst(const JoinBody& j, std::vector<int> sides);
// True when each row of `owner` joins at most one row of `partner`.
bool joinsAtMostOne(const JoinBody& j, int owner, int partner);

}  // namespace optic
