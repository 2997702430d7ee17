// Lenses (views.md §4): what `apply schema L` on a logical schema deployed, as the catalog keeps
// it next to the compiled views.
//
// A logical table `L.T` is an ordinary view over the basis schema (registered in L like any
// view, so reads ride view resolution and writes the updatable-view lowering). Its LensSlot is
// what the lens boundary adds to that view: whether it is read-only (its primary key is not
// reconstructible), the row-local rules (logical NOT NULL, CHECK and child-side FOREIGN KEY
// existence, rewritten to basis terms over the basis row a write produces in the table that backs
// the columns they read), the key
// constraints enforced by a scan of the logical table at COMMIT (commit-time class: a write through
// the lens records the debt, core/maintenance/commit_checks.h pays it), and the per-column provenance
// `quereus_effective_lens` reports. A LensDeployment is the set of slots of one logical schema
// plus the advisories of its last deploy (`quereus_lens_advisories`) and the declaration texts
// it was compiled from (what a persistent database stores to rebuild the slots when it opens).
//
// Invariants: a deployment is immutable once published (a re-deploy builds a new one and swaps
// the pointer, with undo); every expression a slot holds points into an AST the slot keeps alive.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/parser/ast.h"

namespace optic {

// One logical column as `quereus_effective_lens(schema, table)` reports it.
struct LensColumn {
  std::string name;
  std::string source;              // "override" | "default"
  std::string inverse;             // "authored" | "inferred" | "none"
  std::optional<std::string> member;  // the advertised decomposition member backing it
  std::optional<std::string> anchor;  // the advertisement's anchor
  std::string effectiveSql;        // the body term, basis-qualified
};

// A row-local rule enforced on the writes through the lens it applies to, over the row the write
// produces in basis table `basisTable` (bare column names of that table, `new.*`, `old.*`): the
// one table of a single-source body, or the member of a join or decomposition that backs every
// logical column the rule reads. False (not NULL) fails the write with `message`.
struct LensRowRule {
  const ast::Expr* expr = nullptr;
  std::string message;
  std::string basisTable;
  bool foreignKey = false;  // an FK rule: off under `pragma foreign_keys = off`
  bool onInsert = true;
  bool onUpdate = true;
  bool onDelete = false;    // a parent-side RESTRICT: over the deleted row (new.* = old.*)
};

// A key constraint the body cannot prove and no basis structure answers: at the COMMIT of a
// transaction that wrote through the lens, the logical table must hold no two rows with equal
// non-NULL values of `columns`.
struct LensKeyScan {
  std::string label;                 // "primary key", "unique", "unique 'uq'"
  std::vector<std::string> columns;  // logical column names
  std::string constraint;            // the name a failure reports: "lens:pk", "lens:unique[:<name>]"
};

// A logical FOREIGN KEY referencing this table with ON DELETE CASCADE / SET NULL: deleting a
// parent row through the lens first deletes (or nulls) the child rows referencing it, through the
// child's lens view, so the logical action wins over whatever the basis declares.
struct LensDeleteAction {
  std::string child;                       // the logical child table
  std::vector<std::string> childColumns;   // its referencing columns
  std::vector<std::string> parentColumns;  // this table's referenced columns
  bool setNull = false;                    // SET NULL; else CASCADE
};

struct LensSlot {
  std::string schema;       // the logical schema, lower-case
  std::string table;        // the logical table, as declared
  std::string basisSchema;  // lower-case
  bool readOnly = false;    // lens.pk-not-reconstructible: every write errors
  std::vector<LensColumn> columns;
  std::vector<LensRowRule> rowRules;
  std::vector<LensKeyScan> keyScans;
  std::vector<LensDeleteAction> deleteActions;
  std::vector<std::shared_ptr<const ast::Expr>> keepAlive;
};

// One advisory of the last deploy, as `quereus_lens_advisories(schema)` reports it.
struct LensAdvisory {
  std::string table;
  std::string code;                       // "lens.no-backing-index", …
  std::optional<std::string> constraint;  // the constraint label, when sited at one
  std::optional<std::string> column;
  std::string status;                     // active | re-surfaced | acknowledged | acknowledged-unconditional
  std::optional<std::string> rationale;
  std::optional<std::string> currentFingerprint;
  std::optional<std::string> recordedFingerprint;
  std::string message;
};

struct LensDeployment {
  std::string basisSchema;  // lower-case ("" when the declaration has no table)
  std::map<std::string, std::shared_ptr<const LensSlot>> slots;  // by lower-case table name
  std::vector<LensAdvisory> advisories;
  std::string declarationSql;  // the DECLARE LOGICAL SCHEMA it was compiled from
  std::string lensSql;         // the DECLARE LENS, "" when none

  const LensSlot* find(const std::string& table) const;
};

}  // namespace optic
