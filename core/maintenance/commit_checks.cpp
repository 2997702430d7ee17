// Deferred CHECKs and assertions at COMMIT (commit_checks.h).
#include "core/maintenance/commit_checks.h"

#include <chrono>

#include "core/catalog/assertion.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/dml.h"
#include "core/planner/expr_binder.h"
#include "core/storage/row_codec.h"
#include "core/storage/table_store.h"

namespace optic {

namespace {

ExecState commitState(Engine& engine) {
  using namespace std::chrono;
  ExecState st;
  st.engine = &engine;
  st.fn.statementTimeMs = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  st.fn.randomState = engine.randomState();
  st.fn.engine = &engine;
  st.runId = engine.nextRunId();
  return st;
}

}  // namespace

void runDeferredRowCheck(Engine& engine, const DeferredCheck& d, const TableSchema& table, const CheckConstraint& ck) {
  std::shared_ptr<Table> t = engine.catalog().findTable(d.schema, d.table);
  if (!t) return;
  TableStore store(*t, engine.txn());
  std::optional<Row> current = store.get(store.primaryKey(d.row));
  // A delete's check stands while its key stays empty; a write's while its row is the one stored.
  bool superseded = d.deleted ? current.has_value() : !current || encodeRow(*current) != encodeRow(d.row);
  if (superseded) return;
  ExecState st = commitState(engine);
  checkDeferredCheck(table, ck, d.row, d.oldRow ? &*d.oldRow : nullptr, d.context, st);
}

void checkAssertions(Engine& engine) {
  // Collected first: evaluating a body must not see the catalog maps change under it.
  std::vector<std::shared_ptr<const AssertionSchema>> all;
  for (const auto& [name, schema] : engine.catalog().schemas()) {
    for (const auto& [key, a] : schema.assertions) all.push_back(a);
  }
  for (const auto& a : all) {
    Binder binder(engine);
    binder.setHomeSchema(a->schemaName);
    Scope empty;
    BoundExprPtr body = ExprBinder(binder, empty).bind(*a->check);
    ExecState st = commitState(engine);
    static const Row kNoRow;
    EvalContext ctx{&kNoRow, nullptr, &st};
    std::optional<bool> ok = truthValue(body->eval(ctx));
    if (ok && !*ok) throw Error(ErrorCode::kConstraint, "Integrity assertion failed: " + assertionDisplayName(*a));
  }
}

}  // namespace optic
