// JsonType: a TypeScript-like type expression matched against JSON documents, the language
// json_schema(doc, type) takes (the reference engine's is the moat-maker package's).
//
//   primitives   string number boolean null undefined unknown any never object bigint symbol
//   literals     'text' "text" 42 -1.5 true false null
//   objects      { name: string, age?: number; 'quoted key': T, [key: string]: T }
//   arrays       T[]  Array<T>  Record<string, T>   tuples [A, B?, ...C[]]
//   combinations A | B   A & B   (T)
//
// Matching is structural, as in TypeScript: an object may carry keys its type does not name, an
// optional key may be absent, an index signature constrains every value of the object, and
// `object` is any array or object. A JSON document has no undefined or bigint, so `undefined`
// only fits an optional key's absence and `bigint`/`symbol` never match.
#pragma once

#include <memory>
#include <string_view>

#include "core/common/json.h"

namespace optic {

class JsonType {
 public:
  // nullptr when `text` is not a type expression of the language above.
  static std::shared_ptr<const JsonType> parse(std::string_view text);
  virtual ~JsonType() = default;
  virtual bool matches(const Json& j) const = 0;
};

}  // namespace optic
