#include "core/planner/window_planner.h"

#include "core/common/error.h"

namespace optic {

OperatorPtr planWindows(Binder& binder, OperatorPtr input, const Scope& inputScope, const DerivedSlots* inputSlots,
                        const std::vector<const ast::Expr*>& calls) {
  (void)binder;
  (void)input;
  (void)inputScope;
  (void)inputSlots;
  throw Error(ErrorCode::kUnsupported, "not supported yet: window functions", calls[0]->pos.line, calls[0]->pos.column);
}

}  // namespace optic
