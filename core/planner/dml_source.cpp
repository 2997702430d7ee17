// DmlSource (dml_source.h): run-once DML relations and their replay.
#include "core/planner/dml_source.h"

#include "core/execution/dml.h"
#include "core/execution/operators.h"

namespace optic {

DmlSource::DmlSource(std::unique_ptr<DmlPlan> plan) : plan_(std::move(plan)) {}
DmlSource::~DmlSource() = default;

const std::vector<Row>& DmlSource::run(ExecState& state) {
  if (!ran_ || runId_ != state.runId) {
    // Mark first: a failing write must not be retried by a later reference of the same run.
    ran_ = true;
    runId_ = state.runId;
    rows_.clear();
    rows_ = plan_->execute(state);
  }
  return rows_;
}

const std::vector<OutputColumn>& DmlSource::columns() const { return plan_->returningColumns(); }

OperatorPtr DmlSource::replay(std::shared_ptr<DmlSource> source) {
  return std::make_unique<GeneratedRowsOp>(
      [src = std::move(source)](ExecState& st, const EvalContext*) { return src->run(st); });
}

void runEffects(const std::vector<std::shared_ptr<DmlSource>>& effects, ExecState& state) {
  for (const auto& e : effects) e->run(state);
}

}  // namespace optic
