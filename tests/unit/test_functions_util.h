// Test helpers for the built-in function tests: call a registered function by name.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/function_registry.h"

namespace optic::testing_fn {

inline const FunctionRegistry& builtins() {
  static const FunctionRegistry* r = [] {
    auto* reg = new FunctionRegistry();
    registerBuiltinFunctions(*reg);
    return reg;
  }();
  return *r;
}

inline Value call(std::string_view name, std::vector<Value> args, FunctionContext ctx = {}) {
  const ScalarFunction* f = builtins().findScalar(name, static_cast<int>(args.size()));
  if (f == nullptr) throw std::runtime_error("no function " + std::string(name));
  return f->impl(Args(args.data(), args.size()), ctx);
}

inline Value aggregate(std::string_view name, const std::vector<std::vector<Value>>& rows) {
  int nargs = rows.empty() ? 1 : static_cast<int>(rows[0].size());
  const AggregateFunction* f = builtins().findAggregate(name, nargs);
  if (f == nullptr) throw std::runtime_error("no aggregate " + std::string(name));
  std::unique_ptr<AggregateState> s = f->create(Collation::kBinary, LogicalType::kAny);
  for (const auto& row : rows) s->step(Args(row.data(), row.size()));
  return s->finish();
}

inline Value I(int64_t v) { return Value::integer(v); }
inline Value R(double v) { return Value::real(v); }
inline Value T(std::string v) { return Value::text(std::move(v)); }
inline Value B(bool v) { return Value::boolean(v); }
inline Value N() { return Value(); }

// Text rendering, with NULL spelled "NULL" so expectations can say it.
inline std::string str(const Value& v) { return v.isNull() ? "NULL" : toText(v); }

}  // namespace optic::testing_fn
