// Lens introspection (lens_introspection.h).
#include "core/ddl/lens_introspection.h"

#include "core/catalog/catalog.h"
#include "core/catalog/lens.h"
#include "core/common/error.h"
#include "core/common/names.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"

namespace optic {
namespace {

std::string textArg(Args a, size_t i, const char* fn, const char* what) {
  if (i >= a.size() || !a[i].isText()) fail(std::string(fn) + "(" + what + ") requires a string argument");
  return a[i].asText();
}

// The deployment of a logical schema; an unknown or physical schema fails as the reference does.
const LensDeployment& deploymentOf(FunctionContext& fc, const std::string& schema, const char* fn) {
  if (fc.ctx == nullptr) fail(ErrorCode::kInternal, "catalog function called without a database");
  const Schema* s = fc.ctx->catalog().findSchema(lowerName(schema));
  if (!s) fail(ErrorCode::kNotFound, std::string(fn) + ": schema '" + schema + "' not found");
  if (!s->lens) fail(std::string(fn) + ": schema '" + schema + "' is not a logical schema");
  return *s->lens;
}

Value optionalText(const std::optional<std::string>& s) { return s ? Value::text(*s) : Value(); }

std::vector<Row> effectiveLensRows(Args a, FunctionContext& fc) {
  std::string schema = textArg(a, 0, "quereus_effective_lens", "schema, table");
  std::string table = textArg(a, 1, "quereus_effective_lens", "schema, table");
  const LensSlot* slot = deploymentOf(fc, schema, "quereus_effective_lens").find(table);
  if (!slot) fail(ErrorCode::kNotFound, "quereus_effective_lens: logical table '" + schema + "." + table + "' not found");
  std::vector<Row> rows;
  for (const LensColumn& c : slot->columns) {
    rows.push_back(Row{Value::text(c.name), Value::text(c.source), Value::text(c.inverse), optionalText(c.member),
                       optionalText(c.anchor), Value::text(c.effectiveSql)});
  }
  return rows;
}

std::vector<Row> advisoryRows(Args a, FunctionContext& fc) {
  std::string schema = textArg(a, 0, "quereus_lens_advisories", "logical_schema");
  std::vector<Row> rows;
  for (const LensAdvisory& v : deploymentOf(fc, schema, "quereus_lens_advisories").advisories) {
    rows.push_back(Row{Value::text(v.table), Value::text(v.code), optionalText(v.constraint), optionalText(v.column),
                       Value::text(v.status), optionalText(v.rationale), optionalText(v.currentFingerprint),
                       optionalText(v.recordedFingerprint), Value::text(v.message)});
  }
  return rows;
}

void add(FunctionRegistry& r, std::string name, int args, std::vector<std::string> columns,
         std::function<std::vector<Row>(Args, FunctionContext&)> impl) {
  TableFunction f;
  f.name = std::move(name);
  f.minArgs = args;
  f.maxArgs = args;
  f.columns = std::move(columns);
  f.impl = std::move(impl);
  r.addTable(std::move(f));
}

}  // namespace

void registerLensFunctions(FunctionRegistry& r) {
  add(r, "quereus_effective_lens", 2,
      {"logical_column", "source", "inverse", "advertised_member", "advertisement_anchor", "effective_sql"},
      effectiveLensRows);
  add(r, "quereus_lens_advisories", 1,
      {"logical_table", "code", "constraint", "column", "status", "rationale", "current_fingerprint",
       "recorded_fingerprint", "message"},
      advisoryRows);
}

}  // namespace optic
