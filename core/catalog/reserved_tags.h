// Reserved tags: the `quereus.*` key namespace of `with tags (…)` (sql-core.md §3, views.md §2)
// is validated, so a mistyped or misplaced key fails loudly instead of being carried along as
// inert data. The registry follows the reference's schema/reserved-tags.ts: each known key (or
// key family, `quereus.lens.ack.<code>`) has the sites it is legal at and the shape of its value.
// The retired `quereus.update.*` routing keys (target, policy, delete_via, default_for.<column>,
// …) are unknown everywhere: predicates and `with defaults (…)` replaced them. Keys outside the
// namespace are free.
#pragma once

#include "core/parser/ast.h"

namespace optic {

extern const char* const kIdTag;            // "quereus.id"
extern const char* const kPreviousNameTag;  // "quereus.previous_name"

// Where a tag set was written; a key legal at one site can be misplaced at another.
enum class TagSite : uint8_t {
  kViewDdl,             // create [materialized] view … with tags, alter view … set tags
  kDmlStatement,        // insert/update/delete … with tags
  kTable,               // create table … with tags, alter table … set tags
  kColumn,              // a column's with tags
  kIndex,               // create index … with tags, alter index … set tags
  kConstraint,          // a named constraint's with tags
  // Logical-schema positions: no statement validates at them yet, but keys name them as
  // their legal sites.
  kLogicalTable,
  kLogicalColumn,
  kLogicalConstraint,
};

// Throws "Unknown reserved tag 'k' …" for a `quereus.*` key that is no known key at all,
// wherever it sits.
void validateReservedTags(const ast::Tags& tags);
// As above, and a known key must be legal at `site` ("Reserved tag 'k' is not allowed on …")
// with a well-shaped value ("Reserved tag 'k' on … must be a boolean value").
void validateReservedTags(const ast::Tags& tags, TagSite site);
// The tags of an INSERT, UPDATE or DELETE: no reserved key is legal there.
void validateStatementTags(const ast::Tags& tags);
// The four tag surfaces of a table declaration: the table's, each column's, each column
// constraint's and each table constraint's.
void validateCreateTableTags(const ast::CreateTable& ct);
// Every tag set a CREATE TABLE / INDEX or an ALTER … TAGS statement writes, each at its own
// site. A CREATE [MATERIALIZED] VIEW's tags validate lazily, at the first write through it, as
// the reference's do.
void validateDdlTags(const ast::Statement& stmt);

}  // namespace optic
