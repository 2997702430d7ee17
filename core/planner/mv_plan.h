// Materialized-view planning: eligibility, the backing table's shape and key, and the plans
// row-time maintenance runs (views.md §3.3, §3.4).
//
// analyseMaterializedBody() decides, from the body's AST and the catalog, what a maintained
// table derived from it looks like: its columns (name, type, collation, nullability), its
// logical key (the body's provable unique key: a covering projection's source PK, an
// aggregate's group key, a 1:1 join's driving PK, a DISTINCT/set body's whole row), and the
// physical key (the body's ORDER BY columns first, so an unordered scan returns body order).
// It refuses the bodies the spec refuses, with the spec's messages: non-deterministic output,
// no provable key (a bag), no source table.
//
// It also picks the maintenance strategy. Keyed: the logical key is a set of columns of one
// base table of the body (the keyed source), so a change to a row of that table can affect
// only the MV rows whose key the old or new row carries; maintenance re-evaluates the body
// restricted to those keys (residual recompute; for a projection/filter body that is the
// per-row inverse projection) and diffs. Aggregates whose functions all have an algebraic
// delta (count/sum/total/avg) and no HAVING also carry the per-group state layout the
// maintainer keeps to update a group in O(1). Anything else is the full-rebuild floor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

struct MvColumn {
  std::string name;
  LogicalType type = LogicalType::kAny;
  Collation collation = Collation::kBinary;
  bool notNull = false;
};

// One aggregate output of a delta-maintainable grouped body.
struct MvAggregate {
  enum class Kind : uint8_t { kCountStar, kCount, kSum, kTotal, kAvg, kMin, kMax } kind = Kind::kCountStar;
  int output = 0;       // output column index
  const ast::Expr* arg = nullptr;  // the argument (null for count(*))
};

struct MvAnalysis {
  std::vector<MvColumn> columns;
  std::vector<int> key;                // logical key: output column indices ({} = one row at most)
  std::vector<std::vector<int>> keys;  // every provable key the analysis found (key is the smallest)
  // The body proves no key and the logical key is a declared one the caller supplied (a declared
  // schema restored or re-planned after the analysis weakened): its rows are not provably a set.
  bool keyUnproven = false;
  std::vector<KeyColumn> physicalKey;  // the backing table's primary key
  std::vector<std::string> sources;    // "schema.table" (lower-case) of every base table read
  std::vector<std::string> readsMaterialized;  // sources that are themselves maintained tables
  // The attributes (name, type, nullability, collation) of every source column the body can
  // observe: a source ALTER that changes it freezes the snapshot until a refresh.
  std::string sourceSignature;

  // Keyed strategy ("" = the full-rebuild floor for every change).
  std::string keyedSource;
  std::string keyedQualifier;          // the keyed source's name or alias in the body
  std::vector<int> keySourceColumns;   // per logical key column: its column in the keyed source
  std::vector<bool> keySourceNullable;
  bool keyedOnly = false;              // the keyed source is the body's only source
  // A projection/filter of the keyed source alone: each source row maps to at most one MV row,
  // computed from that row (the per-row inverse projection; no query runs).
  bool rowProjection = false;

  // Algebraic aggregate delta (set only when every output is a group column or an MvAggregate).
  bool aggregateDelta = false;
  std::vector<MvAggregate> aggregates;
  const ast::Expr* filter = nullptr;   // the body's WHERE (rows outside it contribute nothing)
};

// Throws the eligibility errors. `columnNames` renames the outputs (an MV column list or a
// maintained table's rename list); `mvName` names the view in messages.
// The key rules the analysis applies, all on. Switching one off stands for an engine whose
// analysis is weaker than the one that created a view (an upgrade that lost a rule): tests use it
// to check that a declared key the running analysis cannot prove is dropped, not fatal.
struct KeyRules {
  bool sourceUniqueIndexes = true;  // a source's non-partial UNIQUE over NOT NULL columns is a key
};
KeyRules& keyRules();

// `fallbackKey`: when the body proves no key, the logical key to use instead of refusing it as
// a bag (a declared key of a materialized view being restored or re-planned); null at create.
MvAnalysis analyseMaterializedBody(Context& ctx, const ast::Select& body, const std::string& homeSchema,
                                   const std::string& mvName, const std::vector<std::string>& columnNames,
                                   const std::vector<int>* fallbackKey = nullptr);

// True when the output columns `columns` are provably unique in the body: they contain one of
// the keys the analysis found.
bool provesKey(const MvAnalysis& a, const std::vector<int>& columns);

// The smallest provable unique key of a query's result (output column indices; {} = at most one
// row), by the same analysis as a materialized view's logical key; nullopt when rows may repeat
// or the shape is not traced to `outputColumns` columns. Parameters do not matter: a key holds
// whatever their values. Live queries key their diffs by it.
std::optional<std::vector<int>> provableKey(Context& ctx, const ast::Select& query, const std::string& homeSchema,
                                            size_t outputColumns);

// The body with `qualifier.column = ?i` (i = 1…) conjoined for each key column: the residual
// query of the keyed strategy.
ast::SelectPtr residualQuery(const ast::Select& body, const MvAnalysis& a, const TableSchema& keyedSource);

}  // namespace optic
