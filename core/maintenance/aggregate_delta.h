// Aggregate delta: O(changed rows) maintenance of a grouped materialized view (views.md §3.4).
//
// For a body `select g…, agg(x)… from T [where p] group by g…` whose aggregates are count(*),
// count, sum, total, avg, min and max, the maintainer keeps one state row per group in a private
// ordered store: count(*), and per aggregate count(x), sum(x), min(x), max(x), avg(x), total(x)
// and the number of non-integer inputs. A changed source row adds or removes its contribution;
// the group's MV row is then computed from the state alone. Two cases need the group's rows
// again and re-run the state query restricted to that group: a delete of the group's current
// min/max, and non-integer inputs (whose floating-point sums must be the body's exactly).
//
// The state store is undo-logged like any table write, so statement failure, savepoints and
// rollback restore it with the source. It is built from the source on first use (and again
// after a rollback past its construction, or when the body or the source's schema changed);
// a backing-as-state delta (below) over an exact backing has nothing to build.
//
// When the backing row itself carries the whole state (the body outputs count(*), and every
// other aggregate is a count, or a sum/min/max whose input count is known: a NOT NULL column
// argument counts as count(*), else a count(x) of the same argument), there is no state store:
// the group's backing row is read, a copy of it is updated in place (the counts first, then the
// sums and extrema that read them) and written once, so a maintained change costs one backing
// read and one backing write.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/expression.h"
#include "core/planner/binder.h"
#include "core/planner/mv_plan.h"

namespace optic {

class Context;
class DerivedRowContract;
class TableStore;

class AggregateDelta {
 public:
  // `backingExact`: the backing holds exactly the body's rows now. A delta whose state is the
  // backing then starts ready instead of rebuilding it on first use.
  AggregateDelta(Context& ctx, const MvAnalysis& analysis, const ast::Select& body,
                 std::shared_ptr<const TableSchema> source, const MaterializedView* derivation,
                 bool backingExact);
  ~AggregateDelta();

  // True when this state was built for the same derivation and source shape.
  bool matches(const MaterializedView* derivation, const TableSchema* source) const {
    return derivation == derivation_ && source == source_.get();
  }
  // Applies the change log entries `changes` (all of the keyed source) to the state and the
  // backing. Returns false when the state was not ready: the caller rebuilds the backing
  // (the state is then built from the source as it is now).
  bool apply(Table& backing, const std::vector<size_t>& changes);
  // The declared schema's NOT NULL checks every backing row written from now on (null: none;
  // a contract that converts never reaches a delta).
  void setContract(const DerivedRowContract* contract) { contract_ = contract; }

 private:
  struct Group;
  void build();
  void markBuilt();
  Row recompute(const std::vector<Value>& key);
  Row outputRow(const std::vector<Value>& key, const Row& state, size_t width) const;
  void planBackingState();
  void contribute(const Row& row, int sign, ExecState& st, const TableStore& out);
  void contributeToBacking(Group& g, int sign, const EvalContext& ctx);
  Group& groupOf(const Row& row, const TableStore& out);
  void load(Group& g, const TableStore& out);
  void write(Group& g, TableStore& out);

  Context& ctx_;
  const DerivedRowContract* contract_ = nullptr;
  MvAnalysis analysis_;
  std::shared_ptr<const TableSchema> source_;
  const MaterializedView* derivation_;
  std::unique_ptr<KVStore> state_;
  std::shared_ptr<bool> valid_;  // shared with the undo closure that invalidates a rolled-back build
  ast::SelectPtr stateAst_;
  ast::SelectPtr stateResidualAst_;
  QueryPlan statePlan_;
  QueryPlan stateResidual_;
  BoundExprPtr filter_;
  std::vector<BoundExprPtr> args_;  // per aggregate; null for count(*)
  std::vector<KeyColumn> keyColumns_;  // group key encoding (the backing's key collations)
  // Backing-as-state (see above): the count(*) output, and per aggregate the output holding its
  // input count (-1: count(*)'s).
  bool backingState_ = false;
  int countStarOutput_ = -1;
  std::vector<int> countOutput_;
  // apply()'s scratch, kept between calls so a single-row write allocates only what moves into
  // the logs: groups_[0, used_) are the call's groups (found through index_ once there are many).
  std::vector<std::unique_ptr<Group>> groups_;
  size_t used_ = 0;
  std::unordered_map<std::string_view, size_t> index_;
  std::string id_;       // the group identity being looked up
  std::string encoded_;  // an encoded state or backing row
  Row probe_;            // a backing-shaped row carrying a group's key columns
};

}  // namespace optic
