// Access-path choice for one table reference: a primary-key point or prefix scan when the WHERE
// clause pins leading key columns to values known before the scan (literals, parameters, outer
// rows), else a full scan in key order. The WHERE filter above still re-checks every conjunct,
// so a chosen path only has to be a superset of the qualifying rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/operator.h"
#include "core/parser/ast.h"
#include "core/planner/binder.h"

namespace optic {

OperatorPtr planTableAccess(Binder& binder, const std::shared_ptr<Table>& table, const std::string& qualifier,
                            const ast::Expr* where, const Scope* outer, std::vector<const ast::Expr*>* consumed);


}  // namespace optic
