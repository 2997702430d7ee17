// JSON text of events and change scopes (json_text.h): each the serialized form of its toJson.
#include "core/api/json_text.h"

#include "core/common/error.h"
#include "core/common/json.h"

namespace optic {

std::string toJsonText(const WatchEvent& e) { return serializeJson(toJson(e)); }
std::string toJsonText(const LiveResult& r) { return serializeJson(toJson(r)); }
std::string toJsonText(const DataChangeEvent& e) { return serializeJson(toJson(e)); }
std::string toJsonText(const SchemaChangeEvent& e) { return serializeJson(toJson(e)); }
std::string toJsonText(const TransactionCommitEvent& e) { return serializeJson(toJson(e)); }

std::string serializeChangeScopeText(const ChangeScope& s) { return serializeJson(serializeChangeScope(s)); }

ChangeScope deserializeChangeScopeText(std::string_view text) {
  std::shared_ptr<const JsonDoc> doc = parseJson(text);
  if (!doc) throw Error(ErrorCode::kMisuse, "malformed change scope: not JSON");
  return deserializeChangeScope(doc->doc);
}

}  // namespace optic
