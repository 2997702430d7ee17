// FunctionRegistry: the built-in and user-defined scalar, aggregate and table-valued functions,
// looked up by case-insensitive name and argument count.
//
// A scalar function is a plain function pointer over already-evaluated arguments; aggregates
// create one AggregateState per group. Functions report failure by throwing optic::Error.
// Registration happens once per Database; lookups are hot (bind time only, never per row).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/collation.h"
#include "core/common/logical_type.h"
#include "core/common/value.h"

namespace optic {

class Context;

// Per-statement facts a function may read. Time is fixed for the statement so 'now' is stable.
struct FunctionContext {
  // The statement's time, Unix epoch milliseconds: read from the clock when a function first
  // asks (a statement that never asks reads no clock: the clock is a call out of the wasm),
  // then the same for the rest of the statement. Set it to fix the time (tests).
  int64_t statementTime() const;
  mutable int64_t statementTimeMs = 0;  // 0: not read yet
  uint64_t* randomState = nullptr;  // PRNG state (xorshift64*), owned by the Database
  int64_t mutationOrdinal = 0;      // 1-based row ordinal inside the current DML statement
  Context* ctx = nullptr;         // the database (catalog table-valued functions read it)
};

using Args = std::span<const Value>;
using ScalarImpl = std::function<Value(Args, FunctionContext&)>;

struct ScalarFunction {
  std::string name;          // lower-case
  int minArgs = 0;
  int maxArgs = 0;           // -1 = variadic
  bool deterministic = true;
  LogicalType returnType = LogicalType::kAny;  // static result type (kAny = depends on input)
  ScalarImpl impl;
  // Plan-time gate (abs, round, floor, clamp, …): the first `numericArgs` arguments (the
  // reference's validateArgTypes: abs/round/floor/ceil/sqrt their first, clamp all three) may
  // not be statically TEXT, BLOB, a temporal type or JSON — "Invalid argument types for
  // function <name>". NULL and ANY arguments pass; at run time a non-numeric value yields NULL.
  int numericArgs = 0;
  // deterministic stays true, but a call with an argument equal to 'now' (case-insensitive)
  // reads the statement clock and must be treated as non-deterministic (date('now') in a
  // DEFAULT or CHECK is refused).
  bool nowSensitive = false;
  // The result is NULL or one of the arguments, chosen by comparing them (nullif, greatest,
  // least). Over an operand of a semantic-ordering type the call compares comparands
  // (semanticComparand) and returns the chosen argument itself.
  bool picksArgument = false;
  // How the static result type follows the arguments' (the reference's inferReturnType), when
  // returnType is kAny: the first argument's (nullif), the common type of all of them
  // (coalesce, greatest, least) or of all but the first (iif, choose). The common type of equal
  // types is that type, of numeric ones INTEGER or (any REAL) REAL, else the first one's.
  enum class ReturnFrom : uint8_t { kDeclared, kFirstArgument, kCommonType, kCommonTypeAfterFirst };
  ReturnFrom returnFrom = ReturnFrom::kDeclared;
  // The reference declares the result not nullable (abs, round, floor, ceil, sqrt, length,
  // substr, lower, upper, trim, replace, instr, reverse, lpad, rpad): a maintained table's shape
  // gate reads a call of it as NOT NULL, whatever its arguments.
  bool notNullResult = false;
};

class AggregateState {
 public:
  virtual ~AggregateState() = default;
  virtual void step(Args args) = 0;
  virtual Value finish() = 0;        // the result for the rows stepped so far (may be called once)
  // Window support: remove a row previously stepped. Aggregates that cannot, return false.
  virtual bool inverse(Args args) { return false; }
};

struct AggregateFunction {
  std::string name;
  int minArgs = 0;
  int maxArgs = 0;
  LogicalType returnType = LogicalType::kAny;
  // A fresh state for one group or frame. `collation` and `argType` are the first argument's:
  // min/max order text under the collation and values of a semantic-ordering type (JSON,
  // TIMESPAN) under that type's order (DISTINCT identity is the caller's, under the same rules).
  std::function<std::unique_ptr<AggregateState>(Collation collation, LogicalType argType)> create;
  // The reference's aggregate argument coercion: every aggregate except count, group_concat and
  // the json_* family reads a non-blank numeric-looking text argument as its number before
  // stepping (and before DISTINCT), so min('10', '9') is 9 and string_concat skips '7'.
  bool coercesNumericText = true;
};

// Applies that coercion in place: text that is wholly a finite number (surrounding whitespace
// allowed, blank text excluded) becomes the number; every other value is left as it is.
void coerceAggregateArgument(Value& v);

// A table-valued function returns its rows whole (the catalog TVFs and json_each are small).
struct TableFunction {
  std::string name;
  int minArgs = 0;
  int maxArgs = 0;
  bool deterministic = true;  // the catalog TVFs are not: the schema changes under them
  std::vector<std::string> columns;
  std::function<std::vector<Row>(Args, FunctionContext&)> impl;
};

// One registration as introspection lists it (function_info(), schema()): a function taking a
// range of argument counts lists once per count, a variadic one once with numArgs -1.
struct FunctionListing {
  std::string name;
  int numArgs = 0;
  const char* kind = "scalar";  // "scalar" | "aggregate" | "table"
  bool deterministic = true;
};

class FunctionRegistry {
 public:
  void addScalar(ScalarFunction f);
  void addAggregate(AggregateFunction f);
  void addTable(TableFunction f);

  // nullptr when no function of that name accepts nargs arguments.
  const ScalarFunction* findScalar(std::string_view name, int nargs) const;
  const AggregateFunction* findAggregate(std::string_view name, int nargs) const;
  const TableFunction* findTable(std::string_view name) const;
  bool hasName(std::string_view name) const;  // any kind, any arity
  // Every registration, by name then argument count.
  std::vector<FunctionListing> listing() const;

 private:
  std::unordered_map<std::string, std::vector<ScalarFunction>> scalars_;
  std::unordered_map<std::string, std::vector<AggregateFunction>> aggregates_;
  std::unordered_map<std::string, TableFunction> tables_;
};

// Built-ins, one registration function per family (core/execution/functions/*.cpp).
void registerStringFunctions(FunctionRegistry& r);
void registerMathFunctions(FunctionRegistry& r);
void registerConversionFunctions(FunctionRegistry& r);  // integer(), real(), text(), typeof(), …
void registerTemporalFunctions(FunctionRegistry& r);
void registerJsonFunctions(FunctionRegistry& r);        // scalars + json_each/json_tree TVFs
void registerAggregateFunctions(FunctionRegistry& r);
void registerMiscFunctions(FunctionRegistry& r);        // coalesce, nullif, iif, random, generate_series, …
void registerBuiltinFunctions(FunctionRegistry& r);     // all of the above

}  // namespace optic
