// Miscellaneous built-ins: coalesce, nullif, iif, choose, random, randomblob, zeroblob,
// mutation_ordinal, and the generate_series(start, stop[, step]) table function.
//
// random()/randomblob() are the only non-deterministic functions here; they draw from the
// Database's xorshift64* state (FunctionContext::randomState), so no state lives in this file.
// mutation_ordinal() reads the 1-based row ordinal of the current DML statement and is NULL
// outside one.
#include <algorithm>
#include <cmath>

#include "core/common/value_limits.h"
#include "core/execution/context.h"
#include "core/execution/functions/function_util.h"

namespace optic {

namespace {

// xorshift64*: small, fast and good enough for random()/randomblob(). A zero state would stay
// zero forever, so it is reseeded from the statement clock.
uint64_t nextRandom(FunctionContext& ctx) {
  uint64_t local = 0;
  uint64_t& x = ctx.randomState != nullptr ? *ctx.randomState : local;
  if (x == 0) x = static_cast<uint64_t>(ctx.statementTime()) ^ 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  return x * 0x2545F4914F6CDD1Dull;
}

Value coalesceValue(Args a, FunctionContext&) {
  for (const Value& v : a) {
    if (!v.isNull()) return v;
  }
  return Value();
}

Value nullifValue(Args a, FunctionContext&) {
  if (a[0].isNull()) return Value();
  if (!a[1].isNull() && compareValues(a[0], a[1]) == 0) return Value();
  return a[0];
}

Value iifValue(Args a, FunctionContext&) {
  std::optional<bool> t = truthValue(a[0]);
  return t.value_or(false) ? a[1] : (a.size() > 2 ? a[2] : Value());
}

// choose(i, v1, v2, …): the i-th value (1-based); NULL when i is out of range.
Value chooseValue(Args a, FunctionContext&) {
  std::optional<int64_t> i = a[0].isNull() ? std::nullopt : fn::intArg(a[0]);
  if (!i || *i < 1 || *i >= static_cast<int64_t>(a.size())) return Value();
  return a[static_cast<size_t>(*i)];
}

// random(): an integer in JavaScript's safe range, ±(2^53 − 1), as the reference draws it.
Value randomValue(Args, FunctionContext& ctx) {
  constexpr uint64_t kSafeSpan = (uint64_t{1} << 54) - 1;  // 2·(2^53 − 1) + 1 values
  constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;
  return Value::integer(static_cast<int64_t>(nextRandom(ctx) % kSafeSpan) - kMaxSafe);
}

// A blob length argument: NULL, non-numeric and negative lengths give an empty blob.
size_t blobLength(const Value& v) {
  std::optional<int64_t> n = v.isNull() ? std::nullopt : fn::intArg(v);
  if (!n || *n <= 0) return 0;
  requireValueFits(static_cast<double>(*n));
  return static_cast<size_t>(*n);
}

// randomblob(n): n random bytes, at most 1 MiB. A length that is not a number (NULL, text) gives
// NULL; a number that is not a positive integer gives an empty blob (the reference's rules).
Value randomblobValue(Args a, FunctionContext& ctx) {
  if (!a[0].isNumeric()) return Value();
  double n = a[0].toDouble();
  constexpr double kMaxRandomBlob = 1024 * 1024;
  Bytes out(n > 0 && n == std::trunc(n) ? static_cast<size_t>(std::min(n, kMaxRandomBlob)) : 0);
  for (size_t i = 0; i < out.size(); i += 8) {
    uint64_t r = nextRandom(ctx);
    for (size_t k = 0; k < 8 && i + k < out.size(); ++k) out[i + k] = static_cast<uint8_t>(r >> (8 * k));
  }
  return Value::blob(std::move(out));
}

Value zeroblobValue(Args a, FunctionContext&) { return Value::blob(Bytes(blobLength(a[0]), 0)); }

Value mutationOrdinalValue(Args, FunctionContext& ctx) {
  return ctx.mutationOrdinal > 0 ? Value::integer(ctx.mutationOrdinal) : Value();
}

// generate_series(start, stop[, step = 1]): the integers start, start+step, … not passing stop.
// A zero step or a NULL bound yields no rows.
std::vector<Row> generateSeries(Args a, FunctionContext& ctx) {
  std::vector<Row> rows;
  if (fn::anyNull(a)) return rows;
  std::optional<int64_t> start = fn::intArg(a[0]);
  std::optional<int64_t> stop = fn::intArg(a[1]);
  std::optional<int64_t> step = a.size() > 2 ? fn::intArg(a[2]) : std::optional<int64_t>(1);
  if (!start || !stop || !step || *step == 0) return rows;
  constexpr size_t kMaxRows = 10'000'000;
  for (int64_t v = *start; *step > 0 ? v <= *stop : v >= *stop;) {
    if (rows.size() >= kMaxRows) fail("generate_series: too many rows");
    if (ctx.ctx) ctx.ctx->interrupt().tick();
    rows.push_back(Row{Value::integer(v)});
    if (__builtin_add_overflow(v, *step, &v)) break;
  }
  return rows;
}

}  // namespace

void registerMiscFunctions(FunctionRegistry& r) {
  const LogicalType any = LogicalType::kAny;
  using From = ScalarFunction::ReturnFrom;
  fn::addScalar(r, "coalesce", 1, -1, any, coalesceValue, From::kCommonType);
  fn::addPickingScalar(r, "nullif", 2, 2, nullifValue, From::kFirstArgument);
  fn::addScalar(r, "iif", 2, 3, any, iifValue, From::kCommonTypeAfterFirst);
  fn::addScalar(r, "choose", 2, -1, any, chooseValue, From::kCommonTypeAfterFirst);
  fn::addScalar(r, "zeroblob", 1, 1, LogicalType::kBlob, zeroblobValue);
  fn::addScalar(r, "mutation_ordinal", 0, 0, LogicalType::kInteger, mutationOrdinalValue);

  ScalarFunction random{"random", 0, 0, false, LogicalType::kInteger, randomValue};
  r.addScalar(std::move(random));
  ScalarFunction randomblob{"randomblob", 1, 1, false, LogicalType::kBlob, randomblobValue};
  r.addScalar(std::move(randomblob));

  TableFunction series;
  series.name = "generate_series";
  series.minArgs = 2;
  series.maxArgs = 3;
  series.columns = {"value"};
  series.impl = generateSeries;
  r.addTable(std::move(series));
}

}  // namespace optic
