// Temporal arithmetic (sql-core.md §1.5): DATE/DATETIME − DATE/DATETIME → TIMESPAN (whole days),
// TIME − TIME → TIMESPAN, DATE/TIME/DATETIME ± TIMESPAN → the same type (either operand order
// for +), TIMESPAN ± TIMESPAN, TIMESPAN ×/÷ number → TIMESPAN, TIMESPAN ÷ TIMESPAN → REAL.
//
// One table of cases, reached two ways that must agree: the planner asks temporalResultType()
// with the operands' declared types (to announce the result type), and evalTemporal() picks the
// case from the runtime values' shapes (temporal values are canonical text at run time, so the
// shape is the kind). The planner routes an arithmetic operator here whenever either operand's
// declared type is DATE, TIME, DATETIME or TIMESPAN.
//
// Errors: a pairing the table lacks raises "Unsupported temporal operation" when a row is
// evaluated; NULL operands give NULL; a value that does not parse as its shape gives NULL.
#pragma once

#include <optional>

#include "core/common/logical_type.h"
#include "core/common/value.h"

namespace optic {

enum class TemporalOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod };

// The declared result type of `l op r`, or kAny when a declared type settles nothing
// (TEXT, ANY, NULL, TIMESTAMP …) or the pairing is unsupported.
LogicalType temporalResultType(TemporalOp op, LogicalType l, LogicalType r);

// nullopt when neither value has a temporal shape (the operator is then plain arithmetic).
std::optional<Value> evalTemporal(TemporalOp op, const Value& l, const Value& r);

}  // namespace optic
