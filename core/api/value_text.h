// Value as an embedder converts it to and from its host language (the wasm bindings' wire format
// and JS callbacks): the cell type itself (core/common/value.h), and text forms of the kinds a
// host language may have no exact counterpart for: integers as decimal text (whether they fit
// int64 or not) and JSON values as their serialized document.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/common/value.h"

namespace optic {

// The decimal text of an integer value (ValueKind::kInteger or kBigInt).
std::string integerText(const Value& v);
// The integer value of decimal text (optional sign, then digits only); nullopt when it is not one.
std::optional<Value> integerFromText(std::string_view decimal);

// The serialized document of a JSON value (ValueKind::kJson), in its own key order.
std::string jsonValueText(const Value& v);
// The JSON value of one document's text; throws Error(kMisuse) when the text is not one.
Value jsonValueFromText(std::string_view text);

}  // namespace optic
