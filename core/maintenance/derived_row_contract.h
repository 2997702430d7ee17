// The row contract of a materialized view with a declared schema (views.md §3.2,
// core/ddl/declared_shape.h): before maintenance writes a derived row into such a backing, each
// output whose derived type differs from the declared one converts to it as INSERT converts
// (the create proved the conversion cannot fail), and each declared NOT NULL column must hold a
// value, whatever nullability the analysis infers (inference may be wrong; the declaration is a
// contract). A NULL fails the writing statement with a kConstraint error naming the view and the
// column (subject "schema.view.column"); the statement's writes, source rows included, roll back.
//
// Invariants: a view without a declared schema has an empty contract and pays nothing; the body's
// key columns never convert, so a row's backing key is the same before and after apply().
#pragma once

#include <utility>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/planner/mv_plan.h"

namespace optic {

class DerivedRowContract {
 public:
  DerivedRowContract() = default;
  // The contract of maintained table `ts` whose body `a` analyses (empty unless declared).
  DerivedRowContract(const TableSchema& ts, const MvAnalysis& a);

  bool empty() const { return convert_.empty() && notNull_.empty(); }
  bool converts() const { return !convert_.empty(); }
  // The body's output types convert to the declared ones without failing (a source ALTER may
  // have changed them since the create): false leaves the backing frozen until a refresh.
  static bool compatible(const TableSchema& ts, const MvAnalysis& a);

  // Converts and checks `row` in place; throws the NOT NULL error.
  void apply(Row& row) const {
    for (const auto& [column, type] : convert_) row[column] = convertStrict(row[column], type);
    for (int column : notNull_) {
      if (row[column].isNull()) failNotNull(column);
    }
  }

 private:
  [[noreturn]] void failNotNull(int column) const;

  std::vector<std::pair<int, LogicalType>> convert_;
  std::vector<int> notNull_;
  std::string schema_, table_;
  std::vector<std::string> names_;
};

}  // namespace optic
