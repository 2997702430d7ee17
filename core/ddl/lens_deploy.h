// Lens deployment (views.md §4.1): `declare lens`, `apply schema L` for a logical schema, and the
// restore of a deployed lens when a persistent database opens.
//
// Deploying compiles every logical table first (lens_body.h), proves it (lens_prover.h) and
// governs its advisories (lens_ack.h); any error blocks the whole deploy, listed in one message
// ("lens: deploy of logical schema 'L' blocked by N error(s): - [code] message …"), before the
// catalog changes. Then it is clear-and-rebuild: every view of L is dropped, each logical table
// is created as an ordinary view `L.T` over the basis (through the ordinary DDL path, so it is
// persisted, announced and undone like any view), and the new LensDeployment is installed on
// schema L (with undo). Logical removals never touch the basis.
//
// The basis is the lens's `over B`; without a lens, the one physical schema (not L, not temp, not
// another logical schema) holding at least one table. A logical declaration refuses physical
// constructs: indexes, materialized views, `using` modules.
#pragma once

#include <memory>
#include <string>

#include "core/catalog/declared_schema.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

// `declare lens for L over B { … }`: stores it (replacing L's earlier lens; undone with the
// statement). Two bodies for one table are refused here.
void executeDeclareLens(Context& ctx, std::shared_ptr<const ast::Statement> stmt);

// `apply schema L` of a logical declaration.
void deployLogicalSchema(Context& ctx, const DeclaredSchema& declared);

// The stored form of a deployment: its DECLARE LOGICAL SCHEMA and DECLARE LENS texts.
std::string lensStoreText(const std::string& declarationSql, const std::string& lensSql);
// Opening a persistent database: re-declares the stored declaration (and lens) and rebuilds the
// deployment's slots over the views already restored, running no DDL.
void restoreLensDeployment(Context& ctx, const std::string& storedText);

}  // namespace optic
