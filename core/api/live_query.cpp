// Live queries: re-run on an intersecting commit, diff against the previous result (live_query.h).
#include "core/api/live_query.h"

#include <map>

#include "core/api/database.h"
#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"

namespace optic {

namespace {

std::string encodeValues(const Row& row, const std::vector<int>& columns) {
  std::string out;
  if (columns.empty()) {
    for (const Value& v : row) encodeKey(v, Collation::kBinary, false, out);
  } else {
    for (int c : columns) encodeKey(row[c], Collation::kBinary, false, out);
  }
  return out;
}

// Keyed diff; false when the key is not unique in either result (then diff whole rows).
bool keyedDiff(const std::vector<Row>& before, const std::vector<Row>& after, const std::vector<int>& key,
               LiveResult& r) {
  std::map<std::string, const Row*> b, a;
  for (const Row& row : before) if (!b.emplace(encodeValues(row, key), &row).second) return false;
  for (const Row& row : after) if (!a.emplace(encodeValues(row, key), &row).second) return false;
  for (const auto& [k, row] : a) {
    auto it = b.find(k);
    if (it == b.end()) r.added.push_back(*row);
    else if (encodeValues(*it->second, {}) != encodeValues(*row, {})) r.changed.emplace_back(*it->second, *row);
  }
  for (const auto& [k, row] : b) if (!a.count(k)) r.removed.push_back(*row);
  return true;
}

void wholeRowDiff(const std::vector<Row>& before, const std::vector<Row>& after, LiveResult& r) {
  std::map<std::string, std::pair<int, const Row*>> count;
  for (const Row& row : before) {
    auto& c = count[encodeValues(row, {})];
    --c.first;
    c.second = &row;
  }
  for (const Row& row : after) {
    auto& c = count[encodeValues(row, {})];
    ++c.first;
    c.second = &row;
  }
  for (const auto& [k, c] : count) {
    for (int i = 0; i < c.first; ++i) r.added.push_back(*c.second);
    for (int i = 0; i < -c.first; ++i) r.removed.push_back(*c.second);
  }
}

Json rowsJson(const std::vector<Row>& rows) {
  Json j = Json::array();
  for (const Row& row : rows) {
    Json t = Json::array();
    for (const Value& v : row) t.push_back(scopeValueToJson(v));
    j.push_back(std::move(t));
  }
  return j;
}

}  // namespace

Json toJson(const LiveResult& r) {
  Json j = Json::object();
  j["columns"] = r.columns;
  j["rows"] = rowsJson(r.rows);
  j["added"] = rowsJson(r.added);
  j["removed"] = rowsJson(r.removed);
  Json changed = Json::array();
  for (const auto& [before, after] : r.changed) {
    changed.push_back(Json{{"before", rowsJson({before})[0]}, {"after", rowsJson({after})[0]}});
  }
  j["changed"] = std::move(changed);
  j["keyColumns"] = r.keyColumns;
  j["txnId"] = r.txnId;
  j["initial"] = r.initial;
  return j;
}

LiveQuery::LiveQuery(Database& db, std::string_view sql, std::vector<Value> params, LiveHandler onResult)
    : db_(db), st_(db.prepare(sql)), params_(std::move(params)), onResult_(std::move(onResult)) {
  if (!onResult_) throw Error(ErrorCode::kMisuse, "live: a result handler is required");
  for (size_t i = 0; i < params_.size(); ++i) st_->bind(static_cast<int>(i + 1), params_[i]);
}

LiveQuery::~LiveQuery() = default;

std::shared_ptr<LiveQuery> LiveQuery::start(Database& db, std::string_view sql, std::vector<Value> params,
                                            LiveHandler onResult) {
  auto q = std::make_shared<LiveQuery>(db, sql, std::move(params), std::move(onResult));
  q->subscribe();
  try {
    q->rerun("", true);
  } catch (...) {
    q->stop();
    throw;
  }
  std::weak_ptr<LiveQuery> weak = q;
  q->schemaListener_ = db.onSchemaChange([weak](const SchemaChangeEvent&) {
    if (auto self = weak.lock()) self->schemaChanged();
  });
  return q;
}

void LiveQuery::subscribe() {
  ChangeScope scope = st_->getChangeScope();
  key_ = inferKey();
  std::shared_ptr<LiveQuery> self = shared_from_this();
  // The handler keeps the query alive while a delivery is in flight, even if it stops itself.
  watchId_ = db_.watch(scope, [self](const WatchEvent& e) {
    if (self->active_) self->rerun(e.txnId, false);
  });
}

std::vector<int> LiveQuery::inferKey() const {
  // At most one row ({}) diffs as a whole row, like a result with no key.
  return st_->resultKey().value_or(std::vector<int>{});
}

std::vector<Row> LiveQuery::runRows() {
  std::vector<Row> rows;
  st_->reset();
  while (st_->step()) rows.push_back(st_->row());
  st_->reset();
  return rows;
}

void LiveQuery::rerun(const std::string& txnId, bool initial) {
  std::vector<Row> rows = runRows();
  LiveResult r;
  r.columns = st_->columnNames();
  r.txnId = txnId;
  r.initial = initial;
  if (!initial) {
    if (key_.empty() || !keyedDiff(rows_, rows, key_, r)) {
      r.added.clear();
      r.changed.clear();
      r.removed.clear();
      wholeRowDiff(rows_, rows, r);
    } else {
      r.keyColumns = key_;
    }
    if (r.added.empty() && r.removed.empty() && r.changed.empty()) {
      rows_ = std::move(rows);
      return;  // the commit touched the scope but not the answer
    }
  } else {
    r.added = rows;
    r.keyColumns = key_;
  }
  if (!key_.empty()) r.keyColumns = key_;
  rows_ = rows;
  r.rows = std::move(rows);
  onResult_(r);
}

void LiveQuery::schemaChanged() {
  if (!active_ || db_.notifier().isWatching(watchId_)) return;
  // The watch was disposed by an ALTER/DROP of a table it reads: re-derive against the new schema.
  try {
    subscribe();
    rerun("", false);
  } catch (...) {
    stop();
    throw;  // the notifier logs it
  }
}

void LiveQuery::stop() {
  if (!active_) return;
  active_ = false;
  if (!watchId_.empty()) db_.unwatch(watchId_);
  if (schemaListener_) db_.removeListener(schemaListener_);
}

}  // namespace optic
