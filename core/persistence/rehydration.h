// Rehydration: what opening a persistent database restored (store.md §5), as the embedder sees
// it (Database::rehydration(), the JS `db.rehydration`). Names are qualified (`schema.name`,
// lower-case).
#pragma once

#include <string>
#include <vector>

namespace optic {

struct Rehydration {
  std::vector<std::string> views;
  std::vector<std::string> materializedViews;  // registered; each is adopted or refilled
  std::vector<std::string> adopted;            // stored rows kept as they were: no refill
  std::vector<std::string> refilled;           // refilled from the body before it is first read
  std::vector<std::string> errors;             // "<catalog key>: <why>": entries that did not load
  // "<view>: unique (\"email\")": keys a declared materialized-view schema declares that this
  // engine's analysis of the body no longer proves; the view runs, the key is enforced on its rows
  // but not relied on (core/ddl/declared_shape.h).
  std::vector<std::string> unconfirmedKeys;
};

}  // namespace optic
