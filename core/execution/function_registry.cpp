// FunctionRegistry: name → overloads tables, and registerBuiltinFunctions.
//
// Names are stored lower-case; lookups lower-case the probe, so they are case-insensitive.
// Several overloads may share a name (date(x) and date(x, modifiers…)); a lookup picks the
// overload with the narrowest arity range that admits the call, so an exact-arity entry beats a
// variadic one. Adding an overload with exactly the same arity range replaces the old one (a
// user-defined function may shadow a built-in).
#include "core/common/names.h"
#include "core/execution/function_registry.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

#include "core/common/value_ops.h"

namespace optic {

int64_t FunctionContext::statementTime() const {
  using namespace std::chrono;
  if (statementTimeMs == 0) statementTimeMs = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  return statementTimeMs;
}


namespace {

bool admits(int minArgs, int maxArgs, int nargs) {
  return nargs >= minArgs && (maxArgs < 0 || nargs <= maxArgs);
}

// Width of an arity range; variadic ranges are the widest.
long span(int minArgs, int maxArgs) { return maxArgs < 0 ? LONG_MAX : maxArgs - minArgs; }

// Inserts f into overloads, replacing an entry with the same arity range.
template <typename F>
void addOverload(std::vector<F>& overloads, F f) {
  for (F& existing : overloads) {
    if (existing.minArgs == f.minArgs && existing.maxArgs == f.maxArgs) {
      existing = std::move(f);
      return;
    }
  }
  overloads.push_back(std::move(f));
}

template <typename F>
const F* bestOverload(const std::unordered_map<std::string, std::vector<F>>& table,
                      std::string_view name, int nargs) {
  auto it = table.find(lowerName(name));
  if (it == table.end()) return nullptr;
  const F* best = nullptr;
  for (const F& f : it->second) {
    if (!admits(f.minArgs, f.maxArgs, nargs)) continue;
    if (best == nullptr || span(f.minArgs, f.maxArgs) < span(best->minArgs, best->maxArgs)) {
      best = &f;
    }
  }
  return best;
}

}  // namespace

void coerceAggregateArgument(Value& v) {
  if (!v.isText()) return;
  std::optional<Value> n = parseNumber(v.asText());
  if (n && !(n->kind() == ValueKind::kReal && !std::isfinite(n->asReal()))) v = std::move(*n);
}

void FunctionRegistry::addScalar(ScalarFunction f) {
  f.name = lowerName(f.name);
  std::string key = f.name;
  addOverload(scalars_[key], std::move(f));
}

void FunctionRegistry::addAggregate(AggregateFunction f) {
  f.name = lowerName(f.name);
  std::string key = f.name;
  addOverload(aggregates_[key], std::move(f));
}

void FunctionRegistry::addTable(TableFunction f) {
  f.name = lowerName(f.name);
  std::string key = f.name;
  tables_[key] = std::move(f);
}

const ScalarFunction* FunctionRegistry::findScalar(std::string_view name, int nargs) const {
  return bestOverload(scalars_, name, nargs);
}

const AggregateFunction* FunctionRegistry::findAggregate(std::string_view name, int nargs) const {
  return bestOverload(aggregates_, name, nargs);
}

const TableFunction* FunctionRegistry::findTable(std::string_view name) const {
  auto it = tables_.find(lowerName(name));
  return it == tables_.end() ? nullptr : &it->second;
}

bool FunctionRegistry::hasName(std::string_view name) const {
  std::string key = lowerName(name);
  return scalars_.count(key) > 0 || aggregates_.count(key) > 0 || tables_.count(key) > 0;
}

namespace {

void listArities(std::vector<FunctionListing>& out, const std::string& name, int minArgs, int maxArgs, const char* kind,
                 bool deterministic) {
  if (maxArgs < 0) {
    out.push_back({name, -1, kind, deterministic});
    return;
  }
  for (int n = minArgs; n <= maxArgs; ++n) out.push_back({name, n, kind, deterministic});
}

}  // namespace

std::vector<FunctionListing> FunctionRegistry::listing() const {
  std::vector<FunctionListing> out;
  for (const auto& [name, overloads] : scalars_) {
    for (const ScalarFunction& f : overloads) listArities(out, name, f.minArgs, f.maxArgs, "scalar", f.deterministic);
  }
  for (const auto& [name, overloads] : aggregates_) {
    for (const AggregateFunction& f : overloads) listArities(out, name, f.minArgs, f.maxArgs, "aggregate", true);
  }
  for (const auto& [name, f] : tables_) {
    out.push_back({name, f.minArgs == f.maxArgs ? f.minArgs : -1, "table", f.deterministic});
  }
  std::sort(out.begin(), out.end(), [](const FunctionListing& a, const FunctionListing& b) {
    return a.name != b.name ? a.name < b.name : a.numArgs < b.numArgs;
  });
  return out;
}

void registerBuiltinFunctions(FunctionRegistry& r) {
  registerStringFunctions(r);
  registerMathFunctions(r);
  registerConversionFunctions(r);
  registerTemporalFunctions(r);
  registerJsonFunctions(r);
  registerAggregateFunctions(r);
  registerMiscFunctions(r);
}

}  // namespace optic
