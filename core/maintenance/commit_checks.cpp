// Deferred CHECKs and assertions at COMMIT (commit_checks.h).
#include "core/maintenance/commit_checks.h"


#include "core/catalog/assertion.h"
#include "core/catalog/lens.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/dml.h"
#include "core/execution/operator.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"
#include "core/planner/expr_binder.h"
#include "core/storage/row_codec.h"

namespace optic {

namespace {

ExecState commitState(Context& ctx) {
  ExecState st;
  st.ctx = &ctx;
  st.fn.randomState = ctx.randomState();
  st.fn.ctx = &ctx;
  st.runId = ctx.nextRunId();
  return st;
}

// `select 1 from L.T where <cols not null> group by <cols> having count(*) > 1 limit 1`.
std::string keyScanSql(const LensSlot& slot, const LensKeyScan& k) {
  std::string cols, notNull;
  for (const std::string& c : k.columns) {
    cols += (cols.empty() ? "" : ", ") + printIdent(c);
    notNull += (notNull.empty() ? "" : " and ") + printIdent(c) + " is not null";
  }
  return "select 1 from " + printIdent(slot.schema) + "." + printIdent(slot.table) + " where " + notNull +
         " group by " + cols + " having count(*) > 1 limit 1";
}

}  // namespace

void checkLensKeys(Context& ctx, const std::string& schema, const std::string& table) {
  const Schema* s = ctx.catalog().findSchema(schema);
  std::shared_ptr<const LensDeployment> lens = s ? s->lens : nullptr;  // kept alive while the scans run
  const LensSlot* slot = lens ? lens->find(table) : nullptr;
  if (!slot) return;
  for (const LensKeyScan& k : slot->keyScans) {
    std::vector<ast::StatementPtr> parsed = parseSql(keyScanSql(*slot, k));
    Binder binder(ctx);
    QueryPlan plan = binder.bindQuery(*parsed.at(0)->select, nullptr);
    ExecState st = commitState(ctx);
    if (!drain(*plan.root, st, nullptr).empty()) failConstraint("CHECK constraint failed: " + k.constraint, k.constraint);
  }
}

void runDeferredRowCheck(Context& ctx, const DeferredCheck& d, const TableSchema& table, const CheckConstraint& ck) {
  std::shared_ptr<Table> t = ctx.catalog().findTable(d.schema, d.table);
  if (!t) return;
  TableStore store(*t, ctx.txn());
  std::optional<Row> current = store.get(store.primaryKey(d.row));
  // A delete's check stands while its key stays empty; a write's while its row is the one stored.
  bool superseded = d.deleted ? current.has_value() : !current || encodeRow(*current) != encodeRow(d.row);
  if (superseded) return;
  ExecState st = commitState(ctx);
  Binder binder(ctx);
  BoundExprPtr check = bindCheck(binder, table, ck);
  checkDeferredCheck(table, ck, *check, d.row, d.oldRow ? &*d.oldRow : nullptr, d.context, st);
}

void checkAssertions(Context& ctx) {
  // Collected first: evaluating a body must not see the catalog maps change under it.
  std::vector<std::shared_ptr<const AssertionSchema>> all;
  for (const auto& [name, schema] : ctx.catalog().schemas()) {
    for (const auto& [key, a] : schema.assertions) all.push_back(a);
  }
  for (const auto& a : all) {
    Binder binder(ctx);
    binder.setHomeSchema(a->schemaName);
    Scope empty;
    BoundExprPtr body = ExprBinder(binder, empty).bind(*a->check);
    ExecState st = commitState(ctx);
    static const Row kNoRow;
    EvalContext ctx{&kNoRow, nullptr, &st};
    std::optional<bool> ok = truthValue(body->eval(ctx));
    if (ok && !*ok) throw Error(ErrorCode::kConstraint, "Integrity assertion failed: " + assertionDisplayName(*a));
  }
}

}  // namespace optic
