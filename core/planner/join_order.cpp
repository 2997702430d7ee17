// Join order: whether an inner join of two base tables runs its right side first (binder.h).
//
// Each side is estimated by a dry run of its access path (access_path.h): once under the WHERE
// alone (the rows its scan reads when it drives) and once as the inner side of an index join,
// its key bounded by the ON condition over the other table's row (whether a key serves, and the
// rows one probe reads). join_cost.h weighs the two orders. The dry runs bind nothing the
// statement keeps; a side they cannot estimate (a statement that will fail to bind) keeps the
// written order, and binding then reports the error as it would have.
#include <algorithm>

#include "core/common/error.h"
#include "core/execution/committed_scan.h"
#include "core/execution/context.h"
#include "core/optimizer/join_cost.h"
#include "core/planner/access_path.h"
#include "core/planner/binder.h"

namespace optic {

namespace {

std::string qualifierOf(const ast::FromItem& side) { return side.alias.empty() ? side.table.name : side.alias; }

// A table's row under its qualifier, inside `outer`.
Scope rowScopeOf(const Table& table, const std::string& qualifier, const Scope* outer) {
  Scope scope{{}, outer};
  for (const ColumnSchema& c : table.schema().columns) scope.columns.push_back(scopeColumnOf(c, qualifier));
  return scope;
}

}  // namespace

std::shared_ptr<Table> Binder::joinableTable(const ast::FromItem& side) {
  if (side.kind != ast::FromItem::Kind::kTable) return nullptr;
  Catalog& cat = ctx_.catalog();
  if ((side.table.schema.empty() && findCte(side.table.name)) || isCommittedName(cat, side.table)) return nullptr;
  std::string schema = resolveTableSchema(side.table);
  if (cat.findView(schema, side.table.name)) return nullptr;
  return cat.findTable(schema, side.table.name);
}

bool Binder::joinSidesSwap(const ast::FromItem& join, const Scope* outer, const ast::Expr* where) {
  std::shared_ptr<Table> left, right;
  try {
    left = joinableTable(*join.left);
    right = joinableTable(*join.right);
  } catch (const Error&) {
    return false;
  }
  if (!left || !right) return false;
  const std::string leftName = qualifierOf(*join.left), rightName = qualifierOf(*join.right);
  auto estimate = [&](const std::shared_ptr<Table>& table, const std::string& name, const Scope& otherRow,
                      double otherRows) {
    JoinSideEstimate e;
    e.tableRows = tableRowCount(*table);
    AccessRequest alone;
    alone.whereReadsNoColumn = true;
    planTableAccess(*this, table, name, where, outer, &alone);
    e.scanRows = alone.estimatedRows;
    AccessRequest probed;
    probed.whereReadsNoColumn = true;
    probed.joinOn = join.on.get();
    planTableAccess(*this, table, name, where, &otherRow, &probed);
    e.keyedByOn = probed.readsEnclosing;
    // An equi-join key usually refers to the other side's key: each of the other table's rows
    // then meets its share of this one (the path's own guess, a tenth per pinned column, is
    // made for literals).
    e.rowsPerProbe = std::min(probed.estimatedRows, std::max(1.0, e.tableRows / std::max(1.0, otherRows)));
    return e;
  };
  try {
    JoinSideEstimate l = estimate(left, leftName, rowScopeOf(*right, rightName, outer), tableRowCount(*right));
    JoinSideEstimate r = estimate(right, rightName, rowScopeOf(*left, leftName, outer), tableRowCount(*left));
    // No estimate (the naive plan: `pragma use_indexes = off`) keeps the written order.
    return l.scanRows >= 0 && r.scanRows >= 0 && swapPays(l, r);
  } catch (const Error&) {
    return false;
  }
}

}  // namespace optic
