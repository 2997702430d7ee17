// WatchRegistry: the registered watch scopes of one database and their matching against a
// commit's change log (api-and-watch.md §5).
//
// Scopes are validated against the catalog when added (no unbound parameters, every table and
// column exists) and indexed by table, then, for `rows` / `rowsByGroup` watches, by the encoded
// key tuple, so a commit costs one hash probe per changed row and key shape whatever the number
// of row-scoped watches. Matching reads only the change log: writes through views, FK actions and
// MV maintenance are in it like any other write.
//
// Invariant: the index holds exactly the watches of the live subscriptions; a subscription whose
// table is dropped or altered is disposed (removed from the index) and never matches again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/planner/change_scope.h"
#include "core/storage/transaction.h"

namespace optic {

class Catalog;

struct MatchedWatch {
  TableWatch watch;
  std::vector<Row> hits;  // full: []; rows/rowsByGroup: the registered tuples hit; groups: touched keys
};

// One subscription's share of a commit.
struct SubscriptionMatch {
  uint64_t subscription = 0;
  std::vector<MatchedWatch> matched;  // in the scope's (canonical) watch order
};

class WatchRegistry {
 public:
  WatchRegistry();
  ~WatchRegistry();
  WatchRegistry(const WatchRegistry&) = delete;
  WatchRegistry& operator=(const WatchRegistry&) = delete;

  // Validates and indexes `scope`; returns the subscription's number. Throws optic::Error
  // (MISUSE for unbound parameters, NOTFOUND for a missing table or column).
  uint64_t add(const Catalog& catalog, ChangeScope scope);
  bool remove(uint64_t subscription);  // false when it was not registered (idempotent)
  // Disposes every subscription with a watch on schema.table (lower-case); returns them.
  std::vector<uint64_t> disposeTable(const std::string& schema, const std::string& table);
  const ChangeScope* scope(uint64_t subscription) const;
  size_t size() const;

  // The subscriptions the changes intersect, in registration order, each with its matched
  // watches and hits. Empty matches are left out.
  std::vector<SubscriptionMatch> match(const std::vector<RowChange>& changes) const;
  // Coarse: as if every row of schema.table changed (notifyExternalChange).
  std::vector<SubscriptionMatch> matchWholeTable(const std::string& schema, const std::string& table) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace optic
