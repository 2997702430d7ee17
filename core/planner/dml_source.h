// DmlSource: a DML statement with RETURNING used as a relation — a FROM item, a scalar/IN/EXISTS
// subquery over `(insert … returning …)`, a data-modifying CTE member, an INSERT's DML source.
//
// Invariants: the write runs exactly once per statement execution (ExecState::runId), however
// often the rest of the statement names the relation or re-opens the subquery holding it; every
// reference replays the one buffer of RETURNING rows. The binder registers each source as a
// statement effect (Binder::effects()), and the statement runs its effects, in binding order,
// before its main body — so an unreferenced data-modifying CTE member still writes, and an outer
// LIMIT 0 cannot skip a write. The write goes through the ordinary DML path, so its changes are
// in the transaction's change log and are undone by the statement's or transaction's rollback.
#pragma once

#include <memory>
#include <vector>

#include "core/execution/operator.h"
#include "core/planner/binder.h"

namespace optic {

class DmlPlan;  // core/execution/dml.h

class DmlSource {
 public:
  explicit DmlSource(std::unique_ptr<DmlPlan> plan);
  ~DmlSource();
  DmlSource(const DmlSource&) = delete;
  DmlSource& operator=(const DmlSource&) = delete;

  // The RETURNING rows of this execution; runs the write on the first call of a run.
  const std::vector<Row>& run(ExecState& state);
  const std::vector<OutputColumn>& columns() const;
  // An operator replaying the rows (running the write first when no effect pass did).
  static OperatorPtr replay(std::shared_ptr<DmlSource> source);

 private:
  std::unique_ptr<DmlPlan> plan_;
  uint64_t runId_ = 0;
  bool ran_ = false;
  std::vector<Row> rows_;
};

// Runs a statement's effects (Binder::effects()) in order, before its main body.
void runEffects(const std::vector<std::shared_ptr<DmlSource>>& effects, ExecState& state);

}  // namespace optic
