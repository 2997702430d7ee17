// LogicalType: the declared type of a column or the static type of an expression.
//
// Declared names map as sql-core.md §1.2 says (SQLite-style affinity for unknown names; a column
// with no type is BLOB). Writes convert strictly to the declared type (§1.3); CAST converts
// leniently and never throws (§1.4).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/common/collation.h"
#include "core/common/value.h"

namespace optic {

enum class LogicalType : uint8_t {
  kNull, kInteger, kReal, kNumeric, kText, kBlob, kBoolean, kAny,
  kDate, kTime, kDateTime, kTimespan, kTimestamp, kJson,
};

// `int`→INTEGER, `varchar(10)`→TEXT, `double`→REAL, "" → BLOB, … (type arguments ignored).
LogicalType logicalTypeFromName(std::string_view declared);
// Upper-case canonical name, as table_info() reports it ("INTEGER", "TEXT", …).
std::string_view logicalTypeName(LogicalType type);

bool isTextLike(LogicalType type);   // TEXT and the temporal types: the ones that take COLLATE
bool isTemporal(LogicalType type);   // DATE, TIME, DATETIME, TIMESPAN
// Whether a column of the type may carry the collation: the temporal types and JSON compare
// their own way and accept BINARY only; the others accept any registered collation.
bool acceptsCollation(LogicalType type, Collation collation);

// Strict conversion used by writes and by the conversion functions (integer(), date(), …).
// Throws Error(kType, "Cannot convert 'abc' to INTEGER"). NULL passes through. Text into a
// number type is trimmed, empty text becomes NULL and a leading numeric run converts
// ('12abc' → 12), as the reference's type parsers do.
Value convertStrict(const Value& v, LogicalType type);
// convertStrict without the throw: nullopt when the value cannot convert (callers that word
// their own message, e.g. integer() → "Cannot convert to INTEGER").
std::optional<Value> tryConvertStrict(const Value& v, LogicalType type);
// The write path: convertStrict, with the message prefixed
// "Type conversion failed for column '<column>': ". A value already in the type's stored form
// (isStoredForm) is returned as it came, without a copy.
Value convertForColumn(Value v, LogicalType type, std::string_view column);
// True when convertStrict(v, type) is `v` itself: NULL, or a value of the type's own kind (an
// integer for INTEGER, a real for REAL, any text for TEXT, …).
bool isStoredForm(const Value& v, LogicalType type);
// True when every value an expression of static type `from` yields converts to `to` under
// convertStrict without failing (an implicit conversion: INTEGER → REAL, anything → TEXT, …);
// false when some value would fail (TEXT → INTEGER, REAL → INTEGER) or `from` is unknown (ANY).
bool convertsWithoutFailure(LogicalType from, LogicalType to);
// CAST: lenient, never throws. cast('12abc' as integer) = 12, failed JSON/temporal casts = NULL.
Value castTo(const Value& v, LogicalType type);

// Semantic ordering (sql-core.md §1.9): JSON and TIMESPAN values are ordered, compared and
// identified by their type's own compare, not by their storage class (JSON structurally, with
// JSON's type rank; TIMESPAN by elapsed time, so 'PT1H' = 'PT60M').
bool hasSemanticOrdering(LogicalType type);
// The comparand of `v` under `type`'s semantic ordering: a Value whose compareValues, hashValue
// and key encoding follow that ordering (a JSON document, or a TIMESPAN's elapsed seconds).
// `typed`: v is already of `type` (a JSON text scalar stays a string, never re-read as JSON
// source). Otherwise v is cast leniently: text parsed as JSON (else kept as a string scalar), a
// blob is no JSON value (NULL); text that is no duration stays text. JSON null is NULL.
Value semanticComparand(const Value& v, LogicalType type, bool typed);

// The logical type a runtime value naturally has (integer→INTEGER, text→TEXT, …).
LogicalType logicalTypeOf(const Value& v);

}  // namespace optic
