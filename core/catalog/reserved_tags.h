// Reserved tags: the `quereus.*` key namespace of `with tags (…)` (sql-core.md §3, views.md §2)
// is validated, so a mistyped key fails loudly instead of being carried along as inert data.
//
// Known keys: `quereus.id` and `quereus.previous_name` (rename hints for apply schema),
// `quereus.expose_implicit_index`, `quereus.lens.writable`. The retired `quereus.update.*`
// routing keys (target, policy, delete_via, default_for.<column>, …) are unknown everywhere:
// predicates and `with defaults (…)` replaced them. A DML statement takes no reserved key at
// all: an unknown one is unknown, a known one is mis-sited. Keys outside the namespace are free.
#pragma once

#include "core/parser/ast.h"

namespace optic {

extern const char* const kIdTag;            // "quereus.id"
extern const char* const kPreviousNameTag;  // "quereus.previous_name"

// Throws "unknown reserved tag 'k'" for a `quereus.*` key that is not a known one.
void validateReservedTags(const ast::Tags& tags);
// The tags of an INSERT, UPDATE or DELETE: any `quereus.*` key throws, unknown ones as above,
// known ones with "reserved tag 'k' is not allowed on a DML statement".
void validateStatementTags(const ast::Tags& tags);

}  // namespace optic
