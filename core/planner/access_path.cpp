// Primary-key access paths (access_path.h).
#include "core/planner/access_path.h"

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"
#include "core/common/value_ops.h"
#include "core/execution/expression_nodes.h"
#include "core/execution/operators.h"
#include "core/planner/expr_binder.h"
#include "core/planner/predicates.h"

namespace optic {
namespace {

// True when `e` reads no column of the current query level (only literals, parameters and
// columns of enclosing queries), so it can be evaluated before the scan starts.
bool readsNoLocalColumn(const ast::Expr& e, const std::string& qualifier, const TableSchema& schema) {
  if (e.kind == ast::ExprKind::kColumn) return false;
  if (e.kind == ast::ExprKind::kSubquery || e.kind == ast::ExprKind::kExists || e.kind == ast::ExprKind::kInSelect)
    return false;
  if (e.kind == ast::ExprKind::kFunction && e.window) return false;
  for (const auto& a : e.args) if (a && !readsNoLocalColumn(*a, qualifier, schema)) return false;
  for (const auto& w : e.whens) {
    if (!readsNoLocalColumn(*w.when, qualifier, schema) || !readsNoLocalColumn(*w.then, qualifier, schema)) return false;
  }
  if (e.elseExpr && !readsNoLocalColumn(*e.elseExpr, qualifier, schema)) return false;
  return true;
}

// The key column `e` names, or -1 (a column of this table, by its qualifier or unqualified).
int keyColumnOf(const ast::Expr& e, const std::string& qualifier, const TableSchema& schema) {
  if (e.kind != ast::ExprKind::kColumn) return -1;
  if (!e.table.empty() && lowerName(e.table) != lowerName(qualifier)) return -1;
  int col = schema.findColumn(e.name);
  if (col < 0) return -1;
  for (size_t k = 0; k < schema.primaryKey.size(); ++k) {
    if (schema.primaryKey[k].column == col) return static_cast<int>(k);
  }
  return -1;
}

}  // namespace

OperatorPtr planTableAccess(Binder& binder, const std::shared_ptr<Table>& table, const std::string& qualifier,
                            const ast::Expr* where, const Scope* outer, std::vector<const ast::Expr*>* consumed) {
  const TableSchema& schema = table->schema();
  std::vector<const ast::Expr*> parts = conjunctsOf(where);
  // Equalities pinning key columns, in key order; stop at the first unpinned key column.
  Scope probeScope{{}, outer};
  std::vector<BoundExprPtr> pinned(schema.primaryKey.size());
  for (const ast::Expr* p : parts) {
    if (!isEquality(*p)) continue;
    for (int side = 0; side < 2; ++side) {
      int k = keyColumnOf(*p->args[side], qualifier, schema);
      const ast::Expr& other = *p->args[1 - side];
      if (k < 0 || pinned[k] || !readsNoLocalColumn(other, qualifier, schema)) continue;
      BoundExprPtr probe = ExprBinder(binder, probeScope).bind(other);
      // A TEXT key compared with a number compares cast(key as number) (sql-core.md §1.9):
      // '1abc' = 1, so no single stored key answers it; the filter does.
      LogicalType keyType = schema.columns[schema.primaryKey[k].column].type;
      if (keyType == LogicalType::kText && isNumberType(staticType(*probe))) continue;
      pinned[k] = std::move(probe);
      break;
    }
  }
  size_t prefix = 0;
  while (prefix < pinned.size() && pinned[prefix]) ++prefix;
  if (prefix == 0) return std::make_unique<TableScanOp>(table);

  auto probes = std::make_shared<std::vector<BoundExprPtr>>();
  for (size_t k = 0; k < prefix; ++k) probes->push_back(std::move(pinned[k]));
  std::vector<KeyColumn> keyCols(schema.primaryKey.begin(), schema.primaryKey.begin() + prefix);
  std::vector<LogicalType> types;
  for (const KeyColumn& k : keyCols) types.push_back(schema.columns[k.column].type);
  auto range = [probes, keyCols, types](const EvalContext& ctx) -> std::optional<KeyRange> {
    std::string key;
    for (size_t i = 0; i < probes->size(); ++i) {
      Value v = (*probes)[i]->eval(ctx);
      if (v.isNull()) return std::nullopt;  // `key = NULL` is never true
      LogicalType t = types[i];
      if (isNumberType(t) && v.isText()) {
        // A number key compared with text casts the text (sql-core.md §1.9): '42abc' finds 42.
        v = castTo(v, t);
      } else if (t != LogicalType::kAny && t != LogicalType::kBlob) {
        // Probe in the column's type so '42' finds 42 in an INTEGER key; unconvertible values
        // cannot equal any stored key.
        try {
          v = convertStrict(v, t);
        } catch (const Error&) {
          return std::nullopt;
        }
      }
      encodeColumnKey(v, t, keyCols[i].collation, keyCols[i].desc, key);
    }
    KeyRange r;
    r.lower = key;
    r.upper = key;
    return r;
  };
  (void)consumed;
  return std::make_unique<TableScanOp>(table, range);
}

}  // namespace optic
