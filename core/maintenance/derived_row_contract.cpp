// The row contract of a declared materialized-view schema (derived_row_contract.h).
#include "core/maintenance/derived_row_contract.h"

#include "core/catalog/materialized_view.h"
#include "core/common/error.h"

namespace optic {

DerivedRowContract::DerivedRowContract(const TableSchema& ts, const MvAnalysis& a) {
  if (!ts.derivation || !ts.derivation->schemaDeclared) return;
  schema_ = ts.schemaName;
  table_ = ts.name;
  for (size_t i = 0; i < ts.columns.size(); ++i) {
    const ColumnSchema& c = ts.columns[i];
    names_.push_back(c.name);
    LogicalType derived = i < a.columns.size() ? a.columns[i].type : c.type;
    if (derived != c.type && c.type != LogicalType::kAny) convert_.emplace_back(static_cast<int>(i), c.type);
    if (c.notNull) notNull_.push_back(static_cast<int>(i));
  }
}

bool DerivedRowContract::compatible(const TableSchema& ts, const MvAnalysis& a) {
  if (a.columns.size() != ts.columns.size()) return false;
  for (size_t i = 0; i < ts.columns.size(); ++i) {
    if (!convertsWithoutFailure(a.columns[i].type, ts.columns[i].type)) return false;
  }
  return true;
}

void DerivedRowContract::failNotNull(int column) const {
  const std::string& name = names_[column];
  throw Error(ErrorCode::kConstraint,
              "NOT NULL constraint failed: " + table_ + "." + name + " (a row derived into materialized view '" +
                  schema_ + "." + table_ + "' has NULL in column '" + name + "', which its schema declares NOT NULL)",
              0, 0, schema_ + "." + table_ + "." + name);
}

}  // namespace optic
