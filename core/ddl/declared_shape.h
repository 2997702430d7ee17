// Declared shapes of maintained tables: the one place that checks a declared table against what
// its derivation body derives, for both declaring forms (views.md §3.2):
//
//   - `create table t (…) maintained as …` / `alter table … set maintained`: the exact contract.
//     The body must derive the declared names (or a rename list gives them), types, nullability
//     (both ways), collations and physical key; a mismatch names the component.
//   - `create materialized view m (c type [not null] [collate …], …, primary key (…), unique (…))`:
//     the assignment contract. The declared names and types are the view's schema and the body's
//     output converts to them as INSERT converts, so a conversion that could fail (TEXT into
//     INTEGER) must be written in the body as a cast; the body's own key columns keep their
//     derived type and collation (the backing is keyed by them). A declared NOT NULL is not
//     compared with inference: it is checked on every derived row (core/maintenance). Declared
//     keys must be provable from the body; restoring or re-planning a view whose key the running
//     analysis no longer proves keeps the view and records the key as unconfirmed.
//
// Invariants: nothing inferred is frozen into a declared schema: its table's primary key is the
// body's physical key as analysed now, and the declared keys are enforced by unique indexes on the
// backing whenever they differ from it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/parser/ast.h"
#include "core/planner/mv_plan.h"

namespace optic {

class Context;

enum class ShapeContract : uint8_t { kExact, kAssignment };

// Throws the first component of `ts` the body's analysis does not satisfy. kExact also compares
// the primary key; `renamed`: the names come from a rename list (kAssignment always renames).
void checkDeclaredShape(const TableSchema& ts, const MvAnalysis& a, bool renamed,
                        ShapeContract contract = ShapeContract::kExact);

// A materialized view's declared schema before its body is analysed: the table (declared columns,
// UNIQUE indexes; no primary key yet) and the declared keys.
struct DeclaredMvSchema {
  std::shared_ptr<TableSchema> table;
  std::vector<DeclaredKey> keys;
  std::vector<std::string> names() const;
  const std::vector<int>* primaryKey() const;  // the declared PRIMARY KEY's columns, or null
};

// From the column definitions of `create materialized view m (…)` (built as CREATE TABLE builds
// its columns). Refuses what a derived column cannot declare (DEFAULT, generated) and a column
// without a type.
DeclaredMvSchema declaredFromDefinitions(Context& ctx, const ast::CreateView& cv, const std::string& schema,
                                         std::shared_ptr<const ast::Statement> keep);
// The schema `create or replace materialized view` without a column list inherits from the
// declared view it replaces.
DeclaredMvSchema declaredFromTarget(const TableSchema& target, std::shared_ptr<const ast::Statement> keep);

// Checks the declared schema against the body (kAssignment), proves its keys and keys the table
// by the body's physical key, adding the unique index that enforces a declared primary key other
// than it. Returns the declared keys the analysis does not prove, as declaredKeyText() writes
// them: refused (thrown) unless `lenient` (restoring a stored view).
std::vector<std::string> applyDeclaredSchema(DeclaredMvSchema& declared, const MvAnalysis& a, bool lenient);

// The declared keys of a declared view that `a` (a fresh analysis of its body) does not prove.
std::vector<std::string> unconfirmedKeys(const TableSchema& ts, const MvAnalysis& a);

}  // namespace optic
