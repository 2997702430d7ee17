// Join cost (join_cost.h).
#include "core/optimizer/join_cost.h"

namespace optic {

bool indexJoinPays(double outerRows, double innerTableRows) {
  return outerRows >= 0 && outerRows * 4 <= innerTableRows;
}

double joinCost(const JoinSideEstimate& outer, const JoinSideEstimate& inner) {
  if (inner.keyedByOn && indexJoinPays(outer.scanRows, inner.tableRows)) {
    return outer.scanRows * (1 + kSeekRows + inner.rowsPerProbe);
  }
  return outer.scanRows + inner.scanRows;
}

bool swapPays(const JoinSideEstimate& left, const JoinSideEstimate& right) {
  double written = joinCost(left, right), swapped = joinCost(right, left);
  return swapped * kSwapFactor <= written && written - swapped >= kSwapMinSaving;
}

}  // namespace optic
