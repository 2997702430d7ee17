// Schema diff: `declare schema`, `diff schema`, `apply schema` and `explain schema`
// (sql-core.md §10).
//
// The differ compares a declaration (core/catalog/declared_schema.h) with the live catalog and
// produces the migration as DDL text, in a fixed order: table renames, assertion drops, table
// drops (children before parents), view / materialized-view / index drops, table creates
// (parents before children), view, materialized-view and index creates, per-table ALTERs
// (column renames, added columns, attribute changes, primary key, dropped columns),
// materialized-view re-attaches (`set maintained`), assertion creates. `apply` executes exactly
// that text through the ordinary DDL execution (core/ddl/ddl.h), inside the apply
// statement, so a failing step rolls the whole apply back; `with seed` then inserts the seed
// rows with `on conflict (<pk>) do nothing` (existing rows are left alone).
//
// Renames follow the hint tags: `quereus.id` pairs objects across names, `quereus.previous_name`
// (a comma-separated list) names what a table or column was called. A view or index has no
// rename primitive: a hinted rename is a drop plus a create.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/declared_schema.h"
#include "core/common/value.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

struct SchemaDiffOptions {
  enum class RenamePolicy : uint8_t { kAllow, kRequireHint, kDeny } renamePolicy = RenamePolicy::kAllow;
  bool allowDestructive = false;  // accepted; the reference engine applies drops without it
};

struct MigrationStep {
  std::string ddl;   // as `diff schema` shows it (unqualified in main)
  std::string exec;  // what `apply` runs (always schema-qualified)
};

// `declare schema …`: validates and stores the declaration (undone with the statement).
void executeDeclareSchema(Context& ctx, std::shared_ptr<const ast::Statement> stmt);

std::vector<MigrationStep> diffSchema(Context& ctx, const DeclaredSchema& declared, const SchemaDiffOptions& options);

// Runs the migration, then (withSeed) the seeds.
void applySchema(Context& ctx, const DeclaredSchema& declared, const SchemaDiffOptions& options, bool withSeed);

// `hash:<16 hex digits>` (FNV-1a) over the declaration's items as printed DDL.
std::string declaredSchemaHash(const DeclaredSchema& declared);

// apply / diff / explain: the result columns and rows of the statement.
std::vector<std::string> schemaCommandColumns(const ast::SchemaCommand& cmd);
std::vector<Row> executeSchemaCommand(Context& ctx, const ast::SchemaCommand& cmd);

}  // namespace optic
