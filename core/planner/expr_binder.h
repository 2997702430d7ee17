// ExprBinder: binds one AST expression over a Scope into a BoundExpr.
//
// In aggregate mode (after GROUP BY / aggregates) the current row is the aggregate's output:
// group values then aggregate results. A subexpression that matches a group key binds to its
// slot, an aggregate call to its result slot, and any other column of the grouped level is the
// strict-GROUP-BY error. Window mode works the same way over the window operator's output.
#pragma once

#include <string>
#include <vector>

#include "core/planner/binder.h"

namespace optic {

// Slots the current row offers in aggregate/window mode, keyed by canonical expression text.
struct DerivedSlots {
  const Scope* inputScope = nullptr;        // the scope the group keys/aggregates were bound in
  std::vector<std::string> keyTexts;        // printed group key expressions
  std::vector<int> keyColumns;              // input column index when a key is a plain column, else -1
  std::vector<std::string> aggTexts;        // printed aggregate/window calls
  int aggBase = 0;                          // slot of the first aggregate
  std::vector<std::string> passthroughTexts;  // window mode: input columns pass through by index
  bool windowMode = false;
  bool implicitGroup = false;  // aggregates without GROUP BY: the whole input is one group
  bool having = false;         // binding HAVING, which words an ungrouped column its own way
};

class ExprBinder {
 public:
  ExprBinder(Binder& binder, const Scope& scope, const DerivedSlots* slots = nullptr)
      : binder_(binder), scope_(scope), slots_(slots) {}

  BoundExprPtr bind(const ast::Expr& e);

  // Select-list aliases visible to this expression (HAVING, ORDER BY): an unqualified name that
  // is no column binds to the aliased expression.
  using Aliases = std::vector<std::pair<std::string, const ast::Expr*>>;
  ExprBinder& withAliases(const Aliases* aliases) {
    aliases_ = aliases;
    return *this;
  }

  // Column resolution: {depth, index} or throws. `table` may be "".
  std::pair<int, int> resolveColumn(const std::string& table, const std::string& name,
                                    const ast::SourcePos& pos) const;

 private:
  // A column called `name` in a scope nearer than `outer` (the subquery levels in between).
  bool capturedBelow(const Scope* outer, const std::string& name) const;
  BoundExprPtr bindColumn(const ast::Expr& e);
  BoundExprPtr bindBinary(const ast::Expr& e);
  BoundExprPtr bindFunction(const ast::Expr& e);
  BoundExprPtr bindDerived(const ast::Expr& e);  // aggregate-mode slot lookup; null if none
  BoundExprPtr bindOuterGroupKey(const ast::Expr& e) const;  // a correlated grouping key; null if none
  BoundExprPtr slotRef(int slot) const;           // a reference to a derived slot of the current row
  const ast::Expr* aliasFor(const ast::Expr& e) const;  // the aliased expression, or null

  Binder& binder_;
  const Scope& scope_;
  const DerivedSlots* slots_;
  const Aliases* aliases_ = nullptr;
};

// The type an expression is known to have at plan time: its declared type, or for an untyped
// literal the class of its value (kAny when nothing is known).
LogicalType staticType(const BoundExpr& a);
// True for the number types a comparison with TEXT converts the text toward (sql-core.md §1.9).
bool isNumberType(LogicalType t);

// True when `e` is a call of an aggregate function (not a window call).
bool isAggregateCall(const ast::Expr& e, const Context& ctx);

// One operand's vote in the reference's collation lattice: its collation and provenance rank
// (3 an explicit COLLATE, 2 declared on a column, 1 a defaulted non-BINARY one, 0 none).
struct RankedCollation {
  Collation collation = Collation::kBinary;
  int rank = 0;
};
RankedCollation rankedCollation(const BoundExpr& e);
// Merges votes symmetrically: the highest rank wins. Different collations at that rank are a
// conflict: at rank 3 or 2 the reference's error ("conflicting COLLATE clauses in comparison:
// …", "ambiguous collation for comparison: column collations … differ; …") when
// `conflictIsError`; otherwise, and at rank 1, no collation (BINARY, rank 0).
RankedCollation mergeCollations(const std::vector<RankedCollation>& votes, bool conflictIsError);
// The collation a comparison of a and b runs under: mergeCollations of both, conflicts errors.
Collation comparisonCollation(const BoundExpr& a, const BoundExpr& b);
// Collects aggregate calls in `e`, not descending into subqueries.
void collectAggregates(const ast::Expr& e, const Context& ctx, std::vector<const ast::Expr*>& out);
// Collects window calls (function with OVER) in `e`.
void collectWindowCalls(const ast::Expr& e, std::vector<const ast::Expr*>& out);

}  // namespace optic
