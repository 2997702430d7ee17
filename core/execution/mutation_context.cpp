// Mutation context evaluation (mutation_context.h).
#include "core/execution/mutation_context.h"

#include "core/common/error.h"
#include "core/common/logical_type.h"

namespace optic {

MutationContext::MutationContext(const TableSchema& t, std::vector<BoundExprPtr> values)
    : table_(t.schemaName + "." + t.name), variables_(t.contextVariables), values_(std::move(values)) {}

void MutationContext::requireSupplied(const ast::Expr& e) const {
  if (variables_.empty()) return;
  ast::anyExpr(e, [&](const ast::Expr& x) {
    if (x.kind != ast::ExprKind::kColumn) return false;
    if (!x.table.empty() && lowerName(x.table) != "context") return false;
    for (size_t i = 0; i < variables_.size(); ++i) {
      if (variables_[i].nullable || values_[i] || lowerName(variables_[i].name) != lowerName(x.name)) continue;
      throw Error(ErrorCode::kError, "table '" + table_ + "' requires mutation context variable '" +
                                         variables_[i].name + "'", x.pos.line, x.pos.column);
    }
    return false;
  }, true);
}

Row MutationContext::evaluate(ExecState& st) const {
  static const Row kNoRow;
  EvalContext ctx{&kNoRow, nullptr, &st};
  Row out(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) {
    if (!values_[i]) continue;
    Value v = values_[i]->eval(ctx);
    if (v.isNull()) {
      if (!variables_[i].nullable) {
        fail("mutation context variable '" + variables_[i].name + "' of table '" + table_ + "' may not be NULL");
      }
      continue;
    }
    try {
      out[i] = convertStrict(v, variables_[i].type);
    } catch (const Error& err) {
      throw Error(err.code(), "Type conversion failed for mutation context variable '" + variables_[i].name + "': " +
                                  err.what());
    }
  }
  return out;
}

}  // namespace optic
