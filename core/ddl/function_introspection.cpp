// Function introspection (function_introspection.h).
#include "core/ddl/function_introspection.h"

#include "core/common/names.h"
#include "core/execution/context.h"

namespace optic {

namespace {

constexpr int64_t kUtf8Flag = 1;
constexpr int64_t kDeterministicFlag = 0x800;

std::string signatureOf(const FunctionListing& f) {
  std::string args;
  if (f.numArgs < 0) {
    args = "...";
  } else {
    for (int i = 0; i < f.numArgs; ++i) args += i == 0 ? "?" : ", ?";
  }
  return "FUNCTION " + f.name + "(" + args + ")";
}

std::vector<Row> functionInfoRows(Args a, FunctionContext& fc) {
  if (fc.ctx == nullptr) return {};
  std::string filter = !a.empty() && a[0].isText() ? lowerName(a[0].asText()) : "";
  bool filtered = !a.empty() && a[0].isText();
  std::vector<Row> rows;
  for (const FunctionListing& f : fc.ctx->functions().listing()) {
    if (filtered && f.name != filter) continue;
    rows.push_back(Row{Value::text(f.name), Value::integer(f.numArgs), Value::text(f.kind),
                       Value::integer(f.deterministic ? 1 : 0),
                       Value::integer(kUtf8Flag | (f.deterministic ? kDeterministicFlag : 0)),
                       Value::text(signatureOf(f))});
  }
  return rows;
}

}  // namespace

void registerFunctionInfo(FunctionRegistry& r) {
  TableFunction f;
  f.name = "function_info";
  f.minArgs = 0;
  f.maxArgs = 1;
  f.deterministic = false;
  f.columns = {"name", "num_args", "type", "deterministic", "flags", "signature"};
  f.impl = functionInfoRows;
  r.addTable(std::move(f));
}

std::vector<Row> functionSchemaRows(const FunctionRegistry& r) {
  std::vector<Row> rows;
  for (const FunctionListing& f : r.listing()) {
    rows.push_back(Row{Value::text("main"), Value::text("function"), Value::text(f.name), Value::text(f.name),
                       Value::text(signatureOf(f)), Value()});
  }
  return rows;
}

}  // namespace optic
