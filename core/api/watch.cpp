// Post-commit delivery of watches and events (watch.h).
#include "core/api/watch.h"

#include <exception>

#include "core/common/error.h"

namespace optic {

namespace {
constexpr size_t kMaxMessages = 256;
}

Json toJson(const WatchEvent& e) {
  Json j = Json::object();
  Json matched = Json::array();
  for (const MatchedWatch& m : e.matched) {
    Json hits = Json::array();
    for (const Row& r : m.hits) {
      Json t = Json::array();
      for (const Value& v : r) t.push_back(scopeValueToJson(v));
      hits.push_back(std::move(t));
    }
    matched.push_back(Json{{"watch", tableWatchToJson(m.watch)}, {"hits", std::move(hits)}});
  }
  j["matched"] = std::move(matched);
  j["txnId"] = e.txnId;
  return j;
}

ChangeNotifier::ChangeNotifier(Engine& engine) : engine_(engine) { engine_.setCommitObserver(this); }

ChangeNotifier::~ChangeNotifier() { engine_.setCommitObserver(nullptr); }

void ChangeNotifier::log(const std::string& msg) {
  if (logger_) {
    try {
      logger_(msg);
    } catch (...) {
    }
    return;
  }
  messages_.push_back(msg);
  if (messages_.size() > kMaxMessages) messages_.pop_front();
}

template <typename Fn>
void ChangeNotifier::guarded(const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    log(std::string(what) + " failed: " + e.what());
  } catch (...) {
    log(std::string(what) + " failed");
  }
}

std::string ChangeNotifier::watch(const ChangeScope& scope, WatchHandler handler) {
  if (!handler) throw Error(ErrorCode::kMisuse, "watch: a handler is required");
  uint64_t reg = registry_.add(engine_.catalog(), scope);
  std::string id = "watch:" + scopeHash(scope) + ":" + std::to_string(++nonce_);
  handlers_[reg] = {id, std::make_shared<WatchHandler>(std::move(handler))};
  byId_[id] = reg;
  if (scope.watches.empty() && scope.nonDeterministicSources.empty()) {
    log("watch " + id + ": the scope is empty and will never fire");
  }
  return id;
}

bool ChangeNotifier::unwatch(const std::string& id) {
  auto it = byId_.find(id);
  if (it == byId_.end()) return false;
  registry_.remove(it->second);
  handlers_.erase(it->second);
  byId_.erase(it);
  return true;
}

bool ChangeNotifier::isWatching(const std::string& id) const { return byId_.count(id) > 0; }

ListenerId ChangeNotifier::onDataChange(DataChangeListener l) {
  dataListeners_[nextListener_] = std::make_shared<DataChangeListener>(std::move(l));
  return nextListener_++;
}

ListenerId ChangeNotifier::onSchemaChange(SchemaChangeListener l) {
  schemaListeners_[nextListener_] = std::make_shared<SchemaChangeListener>(std::move(l));
  return nextListener_++;
}

ListenerId ChangeNotifier::onTransactionCommit(TransactionCommitListener l) {
  commitListeners_[nextListener_] = std::make_shared<TransactionCommitListener>(std::move(l));
  return nextListener_++;
}

bool ChangeNotifier::removeListener(ListenerId id) {
  return dataListeners_.erase(id) + schemaListeners_.erase(id) + commitListeners_.erase(id) > 0;
}

bool ChangeNotifier::observing() const {
  return delivering_ || !handlers_.empty() || !dataListeners_.empty() || !schemaListeners_.empty() ||
         !commitListeners_.empty();
}

void ChangeNotifier::committed(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote) {
  queue_.push_back(Commit{std::move(changes), std::move(schema), remote});
  if (delivering_) return;  // a handler's own commit: delivered after the current one
  delivering_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{delivering_};
  while (!queue_.empty()) {
    Commit c = std::move(queue_.front());
    queue_.pop_front();
    deliver(c);
  }
}

void ChangeNotifier::deliverWatches(const std::vector<SubscriptionMatch>& matches, const std::string& txnId) {
  // Snapshot the handlers first: a handler that (un)subscribes affects the next commit only.
  std::vector<std::pair<std::shared_ptr<WatchHandler>, const SubscriptionMatch*>> calls;
  for (const SubscriptionMatch& m : matches) {
    auto h = handlers_.find(m.subscription);
    if (h != handlers_.end()) calls.emplace_back(h->second.second, &m);
  }
  for (auto& [handler, match] : calls) {
    WatchEvent e{match->matched, txnId};
    guarded("watch handler", [&, h = handler] { (*h)(e); });
  }
}

void ChangeNotifier::deliver(Commit& c) {
  std::string txnId = "txn:" + std::to_string(++txnCounter_);
  for (const SchemaChangeEvent& s : c.schema) {
    if (s.disposesTable.empty()) continue;
    for (uint64_t reg : registry_.disposeTable(s.disposesSchema, s.disposesTable)) {
      auto h = handlers_.find(reg);
      if (h == handlers_.end()) continue;
      log("watch " + h->second.first + " disposed: " + s.disposesSchema + "." + s.disposesTable + " changed");
      byId_.erase(h->second.first);
      handlers_.erase(h);
    }
  }
  if (!handlers_.empty()) deliverWatches(registry_.match(c.changes), txnId);
  if (!dataListeners_.empty() && !c.changes.empty()) {
    std::vector<std::shared_ptr<DataChangeListener>> ls;
    for (auto& [id, l] : dataListeners_) ls.push_back(l);
    std::vector<DataChangeEvent> events = dataChangeEvents(engine_.catalog(), c.changes, c.schema);
    for (DataChangeEvent& e : events) e.remote = c.remote;
    for (const DataChangeEvent& e : events) {
      for (auto& l : ls) guarded("onDataChange listener", [&] { (*l)(e); });
    }
  }
  if (!schemaListeners_.empty()) {
    std::vector<std::shared_ptr<SchemaChangeListener>> ls;
    for (auto& [id, l] : schemaListeners_) ls.push_back(l);
    for (const SchemaChangeEvent& e : c.schema) {
      for (auto& l : ls) guarded("onSchemaChange listener", [&] { (*l)(e); });
    }
  }
  if (!commitListeners_.empty()) {
    std::vector<std::shared_ptr<TransactionCommitListener>> ls;
    for (auto& [id, l] : commitListeners_) ls.push_back(l);
    TransactionCommitEvent e{txnId, c.changes.size(), c.schema.size(), c.remote};
    for (auto& l : ls) guarded("onTransactionCommit listener", [&] { (*l)(e); });
  }
}

void ChangeNotifier::notifyExternalChange(const std::string& table, const std::string& schema) {
  std::string s = lowerName(schema.empty() ? engine_.searchPath().front() : schema);
  std::vector<SubscriptionMatch> matches = registry_.matchWholeTable(s, lowerName(table));
  if (matches.empty()) return;
  deliverWatches(matches, "txn:" + std::to_string(++txnCounter_));
}

}  // namespace optic
