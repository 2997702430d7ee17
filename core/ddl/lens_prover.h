// Lens prover (views.md §4.3–4.4): proves one compiled lens body realizes its logical table and
// decides how each logical constraint becomes real at the lens boundary.
//
// Per logical column it classifies the body term: a bare basis column (writable, inverse
// `inferred`), an authored inverse (`with inverse`, `authored`) or computed (`none`). Then:
// - errors (block the deploy): `lens.type-mismatch` (a cross-family type: numeric vs text vs
//   blob), `lens.nullability-mismatch` (NOT NULL logical column over a nullable term with no
//   default), `lens.non-invertible` (`quereus.lens.writable = true` on a column with no write
//   path), `lens.putget-violation` (an authored inverse the forward provably does not undo over
//   the column's enumerable CHECK domain), `lens.unrealizable-constraint` (a CHECK over a
//   computed column, or over an authored one on a multi-source body; a UNIQUE over a column that
//   is neither bare nor a proved bijection), `lens.unenforceable-conflict-action` (a key's
//   REPLACE/IGNORE that neither the basis key carrying it nor a commit-time scan can honour);
// - advisories: `lens.pk-not-reconstructible` (the table deploys read-only),
//   `lens.no-backing-index` (a key enforced by a commit-time scan), `lens.getput-lossy` (an
//   authored inverse not proved bijective over the basis CHECK domain), `lens.partial-override`,
//   `lens.no-answering-structure` (a `quereus.lens.access.<col>` no basis key or index serves),
//   `lens.over-restrictive-basis-key` (a logical key enforced by a narrower basis key).
// A key is `proved` when its columns map (bare, or through a bijective put) onto a declared basis
// key; otherwise it is scanned at the COMMIT of a transaction that wrote through the lens.
// Row-local rules (NOT NULL and CHECK rewritten to basis terms, and each FOREIGN KEY's child-side
// existence: the referenced logical parent row must exist, read through the parent's lens view)
// attach to single-source bodies.
//
// Soundness over completeness: what cannot be established (a term that does not fold, a domain
// with no CHECK in-list) degrades to the safe verdict — an advisory, never a false error.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/lens.h"
#include "core/ddl/lens_body.h"

namespace optic {

struct LensDiagnostic {
  std::string code;  // "lens.type-mismatch", …
  std::string table;
  std::optional<std::string> constraint;
  std::optional<std::string> column;
  std::string message;
  std::string fingerprint;  // the facts an acknowledgement is pinned to
  std::vector<std::string> ackTargets;  // names a `quereus.lens.ack.<code>:<target>` may use
};

struct LensProof {
  std::vector<LensDiagnostic> errors;
  std::vector<LensDiagnostic> warnings;
  std::shared_ptr<LensSlot> slot;  // everything but schema/table names is filled in
};

// `siblings`: every logical table of the declaration by lower-case name (FK parents).
using LogicalTables = std::map<std::string, std::shared_ptr<TableSchema>>;
LensProof proveLens(Context& ctx, const std::string& logicalSchema, const TableSchema& logical,
                    const CompiledLensBody& body, const LogicalTables& siblings);

}  // namespace optic
