// Row-time materialized-view maintenance (views.md §3.1, §3.4).
//
// The maintainer consumes the transaction's change log (the one log of the architecture): at
// the end of every writing statement it reads the row changes appended since the statement
// began, finds the maintained tables whose sources they touch, and brings each backing up to
// date with ordinary TableStore writes. Those writes are themselves undo-logged and
// change-logged, so rollback and savepoints revert backings with their sources, and an MV over
// an MV is maintained by the next round over the newly appended changes.
//
// Strategies, cheapest first: an aggregate delta (count/sum/total/avg groups updated from the
// changed rows alone; min/max too unless a delete removes the group's extremum), keyed residual
// recompute (the body re-run restricted to the affected keys, then diffed per key: the inverse
// projection of a projection/filter body, a group of an aggregate, a 1:1 join's driving row),
// and the full-rebuild floor (the body evaluated whole and diffed), once per statement.
// Value-identical writes are suppressed in every strategy.
//
// Compiled plans are cached per table and catalog version; a derivation whose body no longer
// binds is stale: reads fail with "… is stale …" and maintenance leaves the snapshot alone.
// A new catalog version (any DDL) recompiles, but what is true of the backing carries over when
// the derivation is the same and was maintained throughout: the backing still equals its body,
// and an aggregate delta's state stays valid, so unrelated DDL never costs a rebuild.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/context.h"

namespace optic {

class AggregateDelta;
struct RowChange;

// The changes of one maintenance round grouped by the source they touch (an index into the
// maintainer's list of the tables materialized views read). Reused across rounds and
// statements, so a steady stream of single-row writes groups its changes without allocating.
class ChangedTables {
 public:
  void clear(size_t sources);  // empties every run; `sources` runs from now on
  bool empty() const { return touched_.empty(); }
  // The run of change indexes for the source.
  std::vector<size_t>& runFor(size_t source);
  // The changes logged against the source, or null when the round has none.
  const std::vector<size_t>* find(size_t source) const {
    return source < runs_.size() && !runs_[source].empty() ? &runs_[source] : nullptr;
  }

 private:
  std::vector<std::vector<size_t>> runs_;  // per source; each keeps its capacity
  std::vector<size_t> touched_;            // the sources with a run this round
};

class MaterializedViewMaintainer final : public MaintenanceHooks {
 public:
  explicit MaterializedViewMaintainer(Context& ctx);
  ~MaterializedViewMaintainer() override;

  // Marks the change log position the statement starts at.
  void beginStatement();
  // Applies the changes logged since beginStatement() (and the ones maintenance itself logs).
  void maintain();
  // Replaces the backing's rows with the body's (create fill, refresh, attach). `strict`:
  // two body rows with one key are an error (create, refresh) instead of last-writer-wins.
  void rebuild(Table& table, bool strict) override;
  // The rows store of a maintained table that a write of `source` rewrites under the same key
  // bytes (a projection keyed by the source's key), or null: the write's lookup of the source
  // row can position it too (KVStore::setFollower). Valid until the catalog changes.
  const KVStore* follower(const Table& source) override;
  // Throws "materialized view 'x' is stale: …" when the derivation no longer binds.
  void requireCurrent(const std::shared_ptr<Table>& table) override;
  // Refills the maintained tables restored from storage without trust (Table::needsRefill) whose
  // rows and sources are in memory, upstream first, through the transaction (so a failing
  // statement puts the need back). Called as a statement starts, before beginStatement(): the
  // refill's changes reach commit observers but are not maintenance input (dependents awaiting
  // refill are rebuilt whole in the same call).
  void refillPending();
  // How many times a backing was rebuilt whole by rebuild() or the full-rebuild floor: a
  // diagnostic, and what the tests hold the incremental strategies to.
  uint64_t fullRebuilds() const { return fullRebuilds_; }

 private:
  struct Compiled;
  Compiled& compiled(const std::shared_ptr<Table>& table);
  void maintainOne(const std::shared_ptr<Table>& table, Compiled& c, const ChangedTables& changed);
  void bindProjection(Compiled& c, const ast::Select& body, const TableSchema& source);
  void projectRows(Table& table, Compiled& c, const std::vector<size_t>& changes);
  // Every maintained table; refreshed with sources_ when the catalog changes.
  const std::vector<std::shared_ptr<Table>>& maintainedTables();
  // The tables a refill of c's backing reads.
  std::vector<std::shared_ptr<Table>> refillInputs(const Compiled& c) const;
  // The changed table's index in sources_, or npos when no maintained table reads it.
  size_t sourceOf(const RowChange& change) const;
  // Points c's sources at their indexes in sources_ (after sources_ was rebuilt).
  void indexSources(Compiled& c) const;

  // One source change's effect on a projection's backing (projectRows), derived before any write.
  struct ProjectionStep {
    bool hasOld = false;
    std::string oldPk;
    std::string newPk;
    std::optional<Row> derived;
  };

  Context& ctx_;
  size_t cursor_ = 0;
  // Scratch of maintain(), which is not re-entrant (cursor_ is shared too); kept between
  // statements so the single-row write path allocates none of them.
  ChangedTables changed_;
  std::vector<std::shared_ptr<Table>> round_;  // this round's maintained tables (a copy: DDL may re-list them)
  std::vector<ProjectionStep> steps_;
  std::map<const Table*, std::unique_ptr<Compiled>> cache_;
  std::vector<std::shared_ptr<Table>> maintained_;  // every maintained table, at maintainedVersion_
  std::vector<std::string> sources_;  // the tables they read ("schema.table", lower-case)
  uint64_t maintainedVersion_ = 0;
  uint64_t fullRebuilds_ = 0;
};

}  // namespace optic
