// The JSON text of what the engine delivers and takes in its public objects, for an embedder that
// hands them on as text (the wasm bindings to JS, which parses it there): watch events, live
// results, data/schema/commit events, and change scopes in their wire form (api-and-watch.md §4).
#pragma once

#include <string>
#include <string_view>

#include "core/api/live_query.h"
#include "core/api/watch.h"
#include "core/planner/change_scope.h"

namespace optic {

std::string toJsonText(const WatchEvent& e);
std::string toJsonText(const LiveResult& r);
std::string toJsonText(const DataChangeEvent& e);
std::string toJsonText(const SchemaChangeEvent& e);
std::string toJsonText(const TransactionCommitEvent& e);

// serializeChangeScope / deserializeChangeScope over text; the latter throws Error(kMisuse) on
// text that is not a change scope's wire form.
std::string serializeChangeScopeText(const ChangeScope& s);
ChangeScope deserializeChangeScopeText(std::string_view text);

}  // namespace optic
