// Join cost (join_cost.h).
#include "core/optimizer/join_cost.h"

#include <algorithm>

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

double joinRows(const JoinSideEstimate& outer, const JoinSideEstimate& inner, bool innerJoin) {
  if (outer.scanRows < 0 || inner.scanRows < 0) return -1;
  double rows = inner.keyedByOn ? outer.scanRows * inner.rowsPerProbe : std::max(outer.scanRows, inner.scanRows);
  return innerJoin ? rows : std::max(rows, outer.scanRows);
}

bool swapPays(const JoinSideEstimate& left, const JoinSideEstimate& right) {
  double written = joinCost(left, right), swapped = joinCost(right, left);
  return swapped * kSwapFactor <= written && written - swapped >= kSwapMinSaving;
}

}  // namespace optic
