// Lens deployment (lens_deploy.h).
#include "core/ddl/lens_deploy.h"

#include <map>

#include "core/catalog/catalog.h"
#include "core/catalog/lens.h"
#include "core/catalog/reserved_tags.h"
#include "core/common/error.h"
#include "core/common/names.h"
#include "core/ddl/ddl.h"
#include "core/ddl/lens_ack.h"
#include "core/ddl/lens_body.h"
#include "core/ddl/lens_prover.h"
#include "core/execution/context.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"

namespace optic {
namespace {

[[noreturn]] void failAt(const std::string& message, const ast::SourcePos& pos) {
  if (pos.line > 0) throw Error(ErrorCode::kError, message, pos.line, pos.column);
  fail(message);
}

// Indexes, materialized views and modules are basis constructs.
void rejectPhysicalConstructs(const DeclaredSchema& d) {
  const std::string where = "logical schema '" + d.name + "'";
  for (const ast::CreateIndex* ix : d.indexes) {
    failAt("lens: " + std::string(ix->unique ? "unique index" : "index") + " '" + ix->name.name + "' is not allowed in " +
               where + "; indexes are a basis-layer construct (a materialized view over the basis)",
           ix->name.pos);
  }
  for (const ast::Statement* mv : d.materializedViews) {
    std::string name = mv->createView ? mv->createView->name.name : mv->createTable->name.name;
    failAt("lens: materialized view '" + name + "' is not allowed in " + where +
               "; materialized views are a basis-layer construct",
           mv->pos);
  }
  for (const ast::CreateTable* ct : d.tables) {
    if (ct->module.name.empty()) continue;
    failAt("lens: module association 'using " + ct->module.name + "(...)' on table '" + ct->name.name +
               "' is not allowed in " + where + "; logical tables declare columns and constraints only",
           ct->name.pos);
  }
}

// Reserved tags at the logical sites: the table, each column, each constraint.
void validateLogicalTags(const ast::CreateTable& ct) {
  validateReservedTags(ct.tags, TagSite::kLogicalTable);
  for (const ast::ColumnDef& c : ct.columns) {
    validateReservedTags(c.tags, TagSite::kLogicalColumn);
    for (const ast::ColumnConstraint& cc : c.constraints) validateReservedTags(cc.tags, TagSite::kLogicalConstraint);
  }
  for (const ast::TableConstraint& tc : ct.constraints) validateReservedTags(tc.tags, TagSite::kLogicalConstraint);
}

// The lens's override bodies by lower-case table name (two for one table are refused).
std::map<std::string, const ast::CreateView*> overridesOf(const ast::DeclareLens& lens) {
  std::map<std::string, const ast::CreateView*> out;
  for (const ast::StatementPtr& item : lens.views) {
    const ast::CreateView& cv = *item->createView;
    if (!out.emplace(lowerName(cv.name.name), &cv).second) {
      failAt("lens: logical table '" + cv.name.name + "' has more than one override body in the lens for '" +
                 lens.name.name + "'",
             cv.name.pos);
    }
  }
  return out;
}

bool isLogical(Context& ctx, const std::string& schema) {
  std::shared_ptr<const DeclaredSchema> d = ctx.declaredSchemas().find(schema);
  const Schema* s = ctx.catalog().findSchema(schema);
  return (d && d->logical) || (s && s->lens);
}

std::string inferBasis(Context& ctx, const std::string& logical) {
  std::vector<std::string> candidates;
  for (const auto& [name, s] : ctx.catalog().schemas()) {
    if (name == lowerName(logical) || name == "temp" || s.tables.empty() || isLogical(ctx, name)) continue;
    candidates.push_back(name);
  }
  if (candidates.size() == 1) return candidates.front();
  fail("lens: cannot infer a default basis for logical schema '" + logical + "' (found " +
       std::to_string(candidates.size()) + " candidates); supply 'declare lens for " + logical + " over <basis>'");
}

std::string basisOf(Context& ctx, const DeclaredSchema& d, const ast::DeclareLens* lens) {
  if (!lens) return inferBasis(ctx, d.name);
  std::string basis = lowerName(lens->basis);
  if (!ctx.catalog().findSchema(basis)) {
    fail("lens: basis schema '" + lens->basis + "' for logical schema '" + d.name + "' does not exist (declared via "
         "'declare lens for " + d.name + " over " + lens->basis + "')");
  }
  return basis;
}

std::string blockedMessage(const std::string& schema, const std::vector<LensDiagnostic>& errors) {
  std::string out = "lens: deploy of logical schema '" + schema + "' blocked by " + std::to_string(errors.size()) + " error(s):";
  for (const LensDiagnostic& e : errors) out += "\n - [" + e.code + "] " + e.message;
  return out;
}

struct CompiledTable {
  std::shared_ptr<LensSlot> slot;
  std::string viewSql;
};

// Compiles, proves and governs every logical table; throws the aggregated errors.
std::shared_ptr<LensDeployment> compileDeployment(Context& ctx, const DeclaredSchema& d,
                                                  std::shared_ptr<const ast::Statement> lensStmt,
                                                  std::vector<CompiledTable>& compiled) {
  const ast::DeclareLens* lens = lensStmt ? lensStmt->declareLens.get() : nullptr;
  rejectPhysicalConstructs(d);
  std::map<std::string, const ast::CreateView*> overrides = lens ? overridesOf(*lens) : std::map<std::string, const ast::CreateView*>{};
  auto deployment = std::make_shared<LensDeployment>();
  deployment->declarationSql = d.keepAlive->text;
  deployment->lensSql = lensStmt ? lensStmt->text : "";
  std::string key = lowerName(d.name);
  std::vector<LensDiagnostic> errors;
  LogicalTables logicalTables;
  for (const ast::CreateTable* ct : d.tables) {
    validateLogicalTags(*ct);
    std::shared_ptr<TableSchema> logical = buildTableSchema(ctx, *ct, key, d.keepAlive);
    logicalTables[lowerName(logical->name)] = logical;
  }
  for (const ast::CreateTable* ct : d.tables) {
    if (deployment->basisSchema.empty()) deployment->basisSchema = basisOf(ctx, d, lens);
    std::shared_ptr<TableSchema> logical = logicalTables.at(lowerName(ct->name.name));
    auto it = overrides.find(lowerName(logical->name));
    CompiledLensBody body = compileLensBody(ctx, d.name, *logical, deployment->basisSchema,
                                            it == overrides.end() ? nullptr : it->second);
    if (it != overrides.end()) overrides.erase(it);
    LensProof proof = proveLens(ctx, d.name, *logical, body, logicalTables);
    LensGovernance gov = governAdvisories(*logical, proof.warnings);
    errors.insert(errors.end(), proof.errors.begin(), proof.errors.end());
    errors.insert(errors.end(), gov.errors.begin(), gov.errors.end());
    deployment->advisories.insert(deployment->advisories.end(), gov.advisories.begin(), gov.advisories.end());
    proof.slot->schema = key;
    proof.slot->table = logical->name;
    proof.slot->basisSchema = deployment->basisSchema;
    deployment->slots[lowerName(logical->name)] = proof.slot;
    compiled.push_back(CompiledTable{proof.slot, "create view " + printIdent(key) + "." + printIdent(logical->name) +
                                                     " as " + printSelect(*body.select)});
  }
  if (!overrides.empty()) {
    const ast::CreateView& stray = *overrides.begin()->second;
    failAt("lens: the lens for '" + d.name + "' overrides '" + stray.name.name + "', which is not a table of logical schema '" +
               d.name + "'",
           stray.name.pos);
  }
  if (!errors.empty()) fail(blockedMessage(d.name, errors));
  return deployment;
}

void runDdlText(Context& ctx, const std::string& sql) {
  for (ast::StatementPtr& s : parseSql(sql)) executeDdl(ctx, std::shared_ptr<const ast::Statement>(std::move(s)));
}

void installDeployment(Context& ctx, const std::string& key, std::shared_ptr<const LensDeployment> deployment) {
  Catalog& cat = ctx.catalog();
  Schema& schema = cat.schema(key);
  std::shared_ptr<const LensDeployment> previous = schema.lens;
  schema.lens = std::move(deployment);
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, key, previous] {
    if (Schema* s = cat.findSchema(key)) s->lens = previous;
    cat.bumpVersion();
  });
}

}  // namespace

void executeDeclareLens(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  overridesOf(*stmt->declareLens);
  std::string name = stmt->declareLens->name.name;
  DeclaredSchemas& registry = ctx.declaredSchemas();
  std::shared_ptr<const ast::Statement> previous = registry.putLens(std::move(stmt));
  ctx.txn().recordUndo([&registry, name, previous] { registry.restoreLens(name, previous); });
}

void deployLogicalSchema(Context& ctx, const DeclaredSchema& declared) {
  std::vector<CompiledTable> compiled;
  std::shared_ptr<LensDeployment> deployment =
      compileDeployment(ctx, declared, ctx.declaredSchemas().findLens(declared.name), compiled);
  std::string key = lowerName(declared.name);
  Schema& schema = ensureSchema(ctx, key);
  std::vector<std::string> drops;
  for (const auto& [name, view] : schema.views) drops.push_back("drop view " + printIdent(key) + "." + printIdent(view->name));
  for (const std::string& sql : drops) runDdlText(ctx, sql);
  for (const CompiledTable& t : compiled) runDdlText(ctx, t.viewSql);
  installDeployment(ctx, key, std::move(deployment));
}

std::string lensStoreText(const std::string& declarationSql, const std::string& lensSql) {
  return lensSql.empty() ? declarationSql : declarationSql + ";\n" + lensSql;
}

void restoreLensDeployment(Context& ctx, const std::string& storedText) {
  std::vector<ast::StatementPtr> stmts = parseSql(storedText);
  if (stmts.empty() || stmts[0]->kind != ast::StatementKind::kDeclareSchema) fail("lens: malformed stored lens entry");
  std::shared_ptr<const DeclaredSchema> declared = buildDeclaredSchema(std::shared_ptr<const ast::Statement>(std::move(stmts[0])));
  std::shared_ptr<const ast::Statement> lens;
  if (stmts.size() > 1 && stmts[1]->kind == ast::StatementKind::kDeclareLens) lens = std::shared_ptr<const ast::Statement>(std::move(stmts[1]));
  std::vector<CompiledTable> compiled;
  std::shared_ptr<LensDeployment> deployment = compileDeployment(ctx, *declared, lens, compiled);
  std::string key = lowerName(declared->name);
  ctx.declaredSchemas().put(declared);
  if (lens) ctx.declaredSchemas().putLens(lens);
  ensureSchema(ctx, key).lens = std::move(deployment);
  ctx.catalog().bumpVersion();
}

}  // namespace optic
