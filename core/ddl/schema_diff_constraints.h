// The table-level half of `diff schema` / `apply schema` that is not about columns: a paired
// table's named CHECK / UNIQUE / FOREIGN KEY constraints and the metadata tags of the table,
// its columns and its named constraints (the reference's schema differ, sql-alter.md
// "ADD / DROP / RENAME CONSTRAINT" and "SET TAGS").
//
// Invariants:
// - Only user-named constraints have a lifecycle here: an unnamed one, or one whose name
//   starts with `_` (an engine-minted `_check_a`, `_uc_a`, `_fk_t_a`), is never added, dropped
//   or renamed, so an unnamed declaration never churns against its minted live name. A PRIMARY
//   KEY is the column half's business (ALTER PRIMARY KEY).
// - A declared constraint pairs with the live one of its name, else (rename hints allowed) with
//   the live one carrying its `quereus.id`, else one named by its `quereus.previous_name`.
// - Tag drift compares tag sets ignoring order and the rename hints (`quereus.id`,
//   `quereus.previous_name`); a drifted set is replaced whole by the declared one (hints kept).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

struct ConstraintDiff {
  std::vector<std::pair<std::string, std::string>> renames;  // {live name, declared name}
  std::vector<std::string> drops;                            // live names
  std::vector<std::string> adds;                             // fragments for `ALTER TABLE … ADD`
  std::vector<std::pair<std::string, ast::Tags>> retags;     // declared name, its whole tag set
};

ConstraintDiff diffNamedConstraints(const ast::CreateTable& declared, const TableSchema& live, bool useHints);

// Whether two tag sets differ as state: order and the rename hints do not count.
bool tagsDrifted(const ast::Tags& declared, const ast::Tags& live);

}  // namespace optic
