// LiveQuery: a query whose result follows the data (issue 6, "live queries").
//
// It runs once when created and delivers its rows, then re-runs only after a commit that
// intersects its change scope (a Database::watch on the statement's own scope), delivering the
// new rows and the difference from the previous result. Rows are keyed by the result's inferred
// unique key when there is one (the statement reads one table and outputs every column of its
// primary key under the column's own name): then a key present before and after with other values
// is `changed`. Without a key, rows are compared whole (as a multiset): only added and removed.
//
// Deliveries come from the commit path, so they arrive in commit order, at most one per commit,
// and never see a half-applied transaction. An ALTER or DROP of a watched table disposes the
// watch; the live query then re-derives its scope against the new schema and re-runs (delivering
// only when the result changed), or stops when the statement no longer binds.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/watch.h"
#include "core/common/value.h"

namespace optic {

class Database;
class Statement;

struct LiveResult {
  std::vector<std::string> columns;
  std::vector<Row> rows;                       // the whole current result
  std::vector<Row> added;
  std::vector<Row> removed;
  std::vector<std::pair<Row, Row>> changed;    // (before, after), keyed results only
  std::vector<int> keyColumns;                 // output positions of the inferred key; empty = none
  std::string txnId;                           // "" for the first delivery
  bool initial = false;
};
Json toJson(const LiveResult& r);

using LiveHandler = std::function<void(const LiveResult&)>;

class LiveQuery : public std::enable_shared_from_this<LiveQuery> {
 public:
  // Prepares, binds `params` (1-based), subscribes and delivers the first result. Throws when the
  // statement does not prepare, has unbound parameters or fails to run. The subscription holds
  // the query alive until stop().
  static std::shared_ptr<LiveQuery> start(Database& db, std::string_view sql, std::vector<Value> params,
                                          LiveHandler onResult);
  LiveQuery(Database& db, std::string_view sql, std::vector<Value> params, LiveHandler onResult);  // use start()
  ~LiveQuery();
  LiveQuery(const LiveQuery&) = delete;
  LiveQuery& operator=(const LiveQuery&) = delete;

  bool active() const { return active_; }
  void stop();

 private:
  void subscribe();
  void rerun(const std::string& txnId, bool initial);
  void schemaChanged();
  std::vector<Row> runRows();
  std::vector<int> inferKey() const;  // the result's provable key ({} = none: whole-row diffs)

  Database& db_;
  std::unique_ptr<Statement> st_;
  std::vector<Value> params_;
  LiveHandler onResult_;
  std::string watchId_;
  ListenerId schemaListener_ = 0;
  std::vector<int> key_;
  std::vector<Row> rows_;
  bool active_ = true;
};

}  // namespace optic
