// Access-path choice for one table reference.
//
// Candidates are the primary key and every non-partial secondary index. For each, the WHERE
// conjuncts that compare one of its columns with a value known before the scan (literals,
// parameters, columns of enclosing scopes, deterministic expressions of them) give a key shape:
// leading columns pinned by `=` or `IN (…)` (IN becomes one point seek per distinct value), then
// a range (`<`, `<=`, `>`, `>=`, BETWEEN, LIKE 'prefix%') on the next column. The best shape wins
// (more pinned columns, then a range, then one that yields the requested ORDER BY, then the
// primary key: no row fetch); with no usable conjunct, an index whose order satisfies ORDER BY is
// scanned when a LIMIT makes stopping early pay (or it is the primary key), else the whole table
// in key order. A join's inner side may also take its probes from the outer row (AccessRequest).
//
// Invariants: a chosen path reads a superset of the qualifying rows (the WHERE filter above
// re-checks every conjunct), so a conjunct is used only where the key order agrees with the
// comparison the filter runs: same collation, a column type whose keys order as its values
// compare (no JSON/TIMESPAN/temporal keys), and the probe converted exactly as sqlCompare would
// convert it; a probe that would convert the column side instead (a TEXT column against a
// number) leaves that key column unbounded at run time. An ordered path is claimed only when
// that can never happen on a column the order relies on, and the dialect's NULL placement
// (NULLs first in both directions unless NULLS LAST) matches the scan's or the column is NOT NULL.
//
// `pragma use_indexes = off` (Settings::plannerFlags) forces the naive plan: a full scan, no
// ordering claimed, so the caller sorts.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/operator.h"
#include "core/execution/operators.h"
#include "core/parser/ast.h"
#include "core/planner/binder.h"

namespace optic {

// What a query level asks of its table's access path, and what it got.
struct AccessRequest {
  // The SELECT whose ORDER BY (and LIMIT) the scan may satisfy; null when order is not wanted
  // (grouping, DISTINCT, DML targets).
  const ast::Select* order = nullptr;
  // The ON condition of a join whose inner side this scan is: its conjuncts may bound the scan
  // with the outer side's row, which the scan's enclosing scope then is.
  const ast::Expr* joinOn = nullptr;
  // The WHERE also reads tables outside the scan's scope (the other sides of a join): its
  // conjuncts bound the scan only with probes that read no column.
  bool whereReadsNoColumn = false;
  // The order is wanted for its first row only (`select min(c)` / `max(c)`: the query reads one
  // row of an ordered scan): claimed only when that row's value is the aggregate's answer (a NOT
  // NULL column whose ties cannot differ: numbers, BINARY text).
  bool firstRowOnly = false;
  // Out: the scan yields rows in the ORDER BY's order, so no sort is needed.
  bool ordered = false;
  // Out: a probe of the chosen path reads a column of an enclosing scope (the joined row or an
  // enclosing query's), so the scan must be re-opened for each of its rows.
  bool readsEnclosing = false;
  // Out: the rows the scan is expected to read (from the table's row count and the path's
  // shape); negative when no table was planned.
  double estimatedRows = -1;
  // Out: the conjuncts that the scan's key ranges answer exactly (the scan yields only rows they
  // hold for), so the filter or join need not test them again: of the WHERE over the scan's
  // table alone (not a join side), and of `joinOn`.
  std::vector<const ast::Expr*> enforced;
  // Out: what the scan's rows must hold, for projectScan() to fill once the query's reads are
  // known.
  std::shared_ptr<ScanProjection> projection;
};

// Narrows a scan to the columns in `needed`, the only ones its query reads. An index scan
// becomes covering when the index entries hold every one of them (a column of its key or of
// the primary key) and decode to exactly the stored value (INTEGER, or TEXT under BINARY);
// otherwise the scan decodes only those columns of each row.
void projectScan(ScanProjection& projection, const TableSchema& schema, const std::set<int>& needed);

// For `select min(c) from t …` / `select max(c) from t …` (one aggregate of one column, no
// GROUP BY, HAVING, DISTINCT or ORDER BY): a SELECT whose ORDER BY (c, or c DESC) and LIMIT 1
// ask the access path for a scan whose first row holds the answer; null when `s` is not that.
std::unique_ptr<ast::Select> extremumOrder(const ast::Select& s);

// Whether the planner optimizes (`pragma use_indexes`, on unless turned off): off, every table
// is a full scan, no order is claimed, joins keep their written order and nothing is pushed
// into views, CTEs or subqueries (the naive plan).
bool indexesEnabled(const Context& ctx);

// The number of rows `table` holds now (a guess for a table not loaded yet).
double tableRowCount(Table& table);

// The scan of `table` (named `qualifier` in `where`). `outer` is the enclosing scope: probes may
// read its columns (a correlated subquery's outer row, a nested-loop join's outer row);
// `request` may be null.
OperatorPtr planTableAccess(Binder& binder, const std::shared_ptr<Table>& table, const std::string& qualifier,
                            const ast::Expr* where, const Scope* outer, AccessRequest* request);

}  // namespace optic
