// Reserved tags (reserved_tags.h).
#include "core/catalog/reserved_tags.h"

#include <set>
#include <string>

#include "core/catalog/catalog.h"
#include "core/common/error.h"

namespace optic {

const char* const kIdTag = "quereus.id";
const char* const kPreviousNameTag = "quereus.previous_name";

namespace {

bool isReserved(const std::string& key) { return key.rfind("quereus.", 0) == 0; }

bool isKnown(const std::string& key) {
  static const std::set<std::string> kKnown = {kIdTag, kPreviousNameTag, "quereus.expose_implicit_index",
                                               "quereus.lens.writable"};
  return kKnown.count(key) > 0;
}

}  // namespace

void validateReservedTags(const ast::Tags& tags) {
  for (const ast::Tag& t : tags) {
    std::string k = lowerName(t.key);
    if (isReserved(k) && !isKnown(k)) throw Error(ErrorCode::kError, "unknown reserved tag '" + t.key + "'");
  }
}

void validateStatementTags(const ast::Tags& tags) {
  validateReservedTags(tags);
  for (const ast::Tag& t : tags) {
    if (isReserved(lowerName(t.key))) {
      throw Error(ErrorCode::kError, "reserved tag '" + t.key + "' is not allowed on a DML statement");
    }
  }
}

}  // namespace optic
