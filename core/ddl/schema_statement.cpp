// Schema statements (schema_statement.h): the policy gate, then one dispatch.
#include "core/ddl/schema_statement.h"

#include "core/catalog/reserved_tags.h"
#include "core/common/error.h"
#include "core/ddl/alter.h"
#include "core/ddl/analyze.h"
#include "core/ddl/ddl.h"
#include "core/ddl/lens_deploy.h"
#include "core/ddl/materialized_view_statements.h"
#include "core/ddl/pragma.h"
#include "core/ddl/schema_change.h"
#include "core/ddl/schema_diff.h"

namespace optic {
namespace {

// The name of a module-dispatching DDL statement (sql-core.md §6: the statements
// `pragma ddl_transaction_policy = 'strict'` refuses inside an explicit transaction), or null.
const char* moduleDdlVerb(const ast::Statement& s) {
  using K = ast::StatementKind;
  switch (s.kind) {
    case K::kCreateTable: return "CREATE TABLE";
    case K::kCreateIndex: return "CREATE INDEX";
    case K::kCreateView: return s.createView->materialized ? "CREATE MATERIALIZED VIEW" : nullptr;
    case K::kRefreshMaterializedView: return "REFRESH MATERIALIZED VIEW";
    case K::kAlterTable: return "ALTER TABLE";
    case K::kSchemaCommand: return s.schemaCommand->kind == ast::SchemaCommand::Kind::kApply ? "APPLY SCHEMA" : nullptr;
    case K::kDrop:
      switch (s.drop->kind) {
        case ast::Drop::Kind::kTable: return "DROP TABLE";
        case ast::Drop::Kind::kIndex: return "DROP INDEX";
        case ast::Drop::Kind::kMaterializedView: return "DROP MATERIALIZED VIEW";
        default: return nullptr;
      }
    default: return nullptr;
  }
}

// DROP of a name that resolves to nothing fails (or is a no-op) as it would outside a
// transaction: the policy gate concerns only DDL that would reach a module.
bool dropResolves(Context& ctx, const ast::Drop& d) {
  std::vector<std::string> path = d.name.schema.empty() ? ctx.searchPath() : std::vector<std::string>{lowerName(d.name.schema)};
  for (const std::string& sc : path) {
    if (d.kind == ast::Drop::Kind::kIndex) {
      if (ctx.catalog().findIndex(sc, d.name.name, isStandaloneIndex).first) return true;
    } else if (ctx.catalog().findTable(sc, d.name.name)) {
      return true;
    }
  }
  return false;
}

void requireAllowedInTransaction(Context& ctx, const ast::Statement& s) {
  if (!ctx.settings().strictDdlTransactions || !ctx.inExplicitTransaction()) return;
  const char* verb = moduleDdlVerb(s);
  if (verb && (s.kind != ast::StatementKind::kDrop || dropResolves(ctx, *s.drop))) {
    fail(std::string(verb) + " is not allowed inside a transaction (ddl_transaction_policy = strict): "
         "commit or roll back first, or set pragma ddl_transaction_policy = 'permissive'");
  }
}

}  // namespace

SchemaStatementResult executeSchemaStatement(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::Statement& s = *stmt;
  requireAllowedInTransaction(ctx, s);
  validateDdlTags(s);
  SchemaStatementResult out;
  switch (s.kind) {
    case ast::StatementKind::kCreateTable:
    case ast::StatementKind::kCreateIndex:
    case ast::StatementKind::kCreateView:
    case ast::StatementKind::kCreateAssertion:
    case ast::StatementKind::kDrop:
    case ast::StatementKind::kAlterTable:
      out.announcement = schemaChangeOf(ctx, s);
      executeDdl(ctx, stmt);
      if (out.announcement) completeSchemaChange(ctx, *out.announcement);
      return out;
    case ast::StatementKind::kAlterObjectTags:
      if (s.alterObjectTags->kind != ast::AlterObjectTags::Kind::kIndex) break;
      executeAlterIndexTags(ctx, stmt);
      return out;
    case ast::StatementKind::kRefreshMaterializedView:
      executeRefreshMaterializedView(ctx, *s.refresh);
      return out;
    case ast::StatementKind::kPragma:
      if (std::optional<Row> row = executePragma(ctx, *s.pragma)) out.rows.push_back(std::move(*row));
      return out;
    case ast::StatementKind::kAnalyze:
      out.rows = executeAnalyze(ctx, *s.analyze);
      return out;
    case ast::StatementKind::kDeclareSchema:
      executeDeclareSchema(ctx, stmt);
      return out;
    case ast::StatementKind::kSchemaCommand:
      out.rows = executeSchemaCommand(ctx, *s.schemaCommand);
      return out;
    case ast::StatementKind::kDeclareLens:
      executeDeclareLens(ctx, stmt);
      return out;
    default:
      break;
  }
  throw Error(ErrorCode::kUnsupported, "not supported yet: " + s.text.substr(0, std::min<size_t>(s.text.size(), 40)),
              s.pos.line, s.pos.column);
}

}  // namespace optic
