// Join cost: what the planner compares when it decides how two join sides meet.
//
// The unit is rows read. A hash join reads each side's scan once. An index nested-loop join
// reads its outer side once and, for each outer row, seeks its inner side (a seek counts as
// kSeekRows) and reads the rows that seek yields. The planner takes the index join when the ON
// condition keys the inner side and the outer side is small against the inner table
// (indexJoinPays), and lets an inner join of two base tables trade places when that turns a
// scan of the larger one into seeks (swapPays).
//
// Invariant: ties and small savings keep the written order. Swapping the sides changes the
// order of rows a query without ORDER BY returns, so it happens only when the estimates say it
// saves both a factor (kSwapFactor) and a real amount (kSwapMinSaving rows): a query over small
// tables returns its rows in the written join order, whatever the estimates.
#pragma once

namespace optic {

// One side of a two-table join, estimated before it is bound.
struct JoinSideEstimate {
  double scanRows = 0;      // rows its scan reads under the WHERE alone
  double tableRows = 0;     // rows its table holds
  bool keyedByOn = false;   // a key of it takes probes from the other side's row (ON conjuncts)
  double rowsPerProbe = 0;  // rows one such probe reads
};

inline constexpr double kSeekRows = 2;
inline constexpr double kSwapFactor = 4;
inline constexpr double kSwapMinSaving = 1000;

// Whether seeking a table of `innerTableRows` once per outer row beats hashing all of it:
// the outer side reads at most a quarter as many rows. A negative `outerRows` is unknown.
bool indexJoinPays(double outerRows, double innerTableRows);

// The rows the join reads with `outer` driving: an index join when `inner` is keyed by the ON
// condition and indexJoinPays, else a hash join.
double joinCost(const JoinSideEstimate& outer, const JoinSideEstimate& inner);

// The rows a join of `outer` and `inner` yields, for the join above it: per outer row, the rows
// one probe of a keyed inner side reads, else as many as the larger side (an equi-join on a key
// meets each row of the other side about once); at least the outer rows for an outer join
// (`inner` false). Negative (unknown) when a side's estimate is.
double joinRows(const JoinSideEstimate& outer, const JoinSideEstimate& inner, bool innerJoin);

// Whether the join reads so many fewer rows with `right` driving than with `left` (as written)
// that the sides trade places.
bool swapPays(const JoinSideEstimate& left, const JoinSideEstimate& right);

}  // namespace optic
