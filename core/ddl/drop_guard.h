// Drop guard: DROP TABLE / DROP VIEW / DROP MATERIALIZED VIEW (and ALTER TABLE … DROP COLUMN)
// is refused while a stored expression of a table — a CHECK constraint, a column DEFAULT, a
// GENERATED body — or an assertion can reach the object through a subquery, directly or through
// a chain of view and materialized-view bodies (sql-core.md §3.9, views.md §1).
//
// Left unguarded, the drop would succeed and the referencing table become unwritable at its next
// INSERT, with an error naming neither the drop nor the constraint. A plain view over the object
// does not block the drop: a broken view breaks only queries of that view. A table's own
// expressions never block its own drop (they go with it). References are found by the rename
// walk run read-only and scope-aware (core/parser/rename_walk.h), so a CTE or an alias that only
// shadows the name is not one, and a bare name binds in the expression's own schema.
#pragma once

#include <string>

namespace optic {

class Context;
class Table;

// `kind` names the object as the DROP does: "table", "view" or "materialized view"; `schema` is
// the object's (lower-case) schema.
void rejectExpressionDependents(Context& ctx, const std::string& kind, const std::string& schema,
                                const std::string& name);

// DROP TABLE with foreign keys on: refused while another table holds a row whose key into it is
// all non-NULL (MATCH SIMPLE), which the drop would orphan. A self-reference goes with the table.
void rejectReferencingRows(Context& ctx, const Table& parent);

// DROP COLUMN: refused while a stored expression of any table, or an assertion, names the column
// in a subquery, directly or through view bodies. `why` is the "Cannot drop column …: " prefix.
void rejectColumnDependents(Context& ctx, const Table& table, int column, const std::string& why);

}  // namespace optic
