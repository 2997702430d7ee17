// ChangeNotifier: the post-commit half of reactivity for one Database (api-and-watch.md §5–8).
//
// The engine hands it each successful commit (CommitObserver): the transaction's change log and
// the schema changes its DDL noted. It then, in this order: disposes the subscriptions whose
// tables were dropped or altered; matches the change log against the WatchRegistry and calls each
// matched subscription's handler once with all of its matched watches; calls the data-change
// listeners with each event in write order; the schema-change listeners; the transaction-commit
// listeners. Nothing is delivered for a rollback (the change log was truncated) or an empty match.
//
// Handlers never break a commit: an exception from one is reported to the logger and swallowed.
// Handlers may run statements on the database; a commit they make is queued and delivered after
// the current one, so every listener sees commits in commit order and each exactly once.
// Subscribing or unsubscribing inside a handler takes effect from the next commit (each commit
// works on a snapshot of the handlers).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/api/engine.h"
#include "core/maintenance/change_events.h"
#include "core/maintenance/watch_registry.h"

namespace optic {

struct WatchEvent {
  std::vector<MatchedWatch> matched;
  std::string txnId;  // "txn:N"
};
Json toJson(const WatchEvent& e);

using WatchHandler = std::function<void(const WatchEvent&)>;
using DataChangeListener = std::function<void(const DataChangeEvent&)>;
using SchemaChangeListener = std::function<void(const SchemaChangeEvent&)>;
using TransactionCommitListener = std::function<void(const TransactionCommitEvent&)>;
using ListenerId = uint64_t;

class ChangeNotifier final : public CommitObserver {
 public:
  explicit ChangeNotifier(Engine& engine);
  ~ChangeNotifier() override;

  // Subscription id 'watch:<6-char scope hash>:<nonce>'. Throws like WatchRegistry::add; warns
  // (logger) on a scope that can never fire.
  std::string watch(const ChangeScope& scope, WatchHandler handler);
  bool unwatch(const std::string& id);  // idempotent: false when unknown or already disposed
  bool isWatching(const std::string& id) const;

  ListenerId onDataChange(DataChangeListener l);
  ListenerId onSchemaChange(SchemaChangeListener l);
  ListenerId onTransactionCommit(TransactionCommitListener l);
  bool removeListener(ListenerId id);

  // Fires every watch on schema.table as if the whole table changed, without a commit.
  void notifyExternalChange(const std::string& table, const std::string& schema);
  // Receives handler errors and warnings; default: kept in messages() (newest last, bounded).
  void setLogger(std::function<void(const std::string&)> logger) { logger_ = std::move(logger); }
  const std::deque<std::string>& messages() const { return messages_; }

  bool observing() const override;
  void committed(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote) override;

 private:
  struct Commit {
    std::vector<RowChange> changes;
    std::vector<SchemaChangeEvent> schema;
    bool remote = false;  // another connection's commit (its events say remote: true)
  };
  void deliver(Commit& c);
  void deliverWatches(const std::vector<SubscriptionMatch>& matches, const std::string& txnId);
  void log(const std::string& msg);
  template <typename Fn>
  void guarded(const char* what, Fn&& fn);

  Engine& engine_;
  WatchRegistry registry_;
  std::map<uint64_t, std::pair<std::string, std::shared_ptr<WatchHandler>>> handlers_;  // by registry id
  std::map<std::string, uint64_t> byId_;
  std::map<ListenerId, std::shared_ptr<DataChangeListener>> dataListeners_;
  std::map<ListenerId, std::shared_ptr<SchemaChangeListener>> schemaListeners_;
  std::map<ListenerId, std::shared_ptr<TransactionCommitListener>> commitListeners_;
  ListenerId nextListener_ = 1;
  uint64_t nonce_ = 0;
  uint64_t txnCounter_ = 0;
  std::deque<Commit> queue_;
  bool delivering_ = false;
  std::function<void(const std::string&)> logger_;
  std::deque<std::string> messages_;
};

}  // namespace optic
