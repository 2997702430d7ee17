// The durable catalog, differentially: random sequences of DDL (views and materialized views of
// every maintenance strategy, store- and memory-hosted, drops, table renames) and DML on the file
// store, with clean closes and crashes in between. After every reopen the catalog holds exactly
// the objects the sequence left, nothing is reported unrestorable, and every view and
// materialized view equals its body evaluated from scratch. The seed is printed on failure;
// OPTIC_CATALOG_SEEDS sets how many run (default 12).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;
using testing_sql::TempDatabaseFile;

// Bodies over tables {t} and {g}, named by their current names (renames rewrite them).
const std::vector<std::string> kBodies = {
    "select id, v from {t} where v > 3",                                            // projection
    "select count(*) as n, sum(v) as s from {t}",                                   // scalar aggregate
    "select g, count(*) as n, max(v) as hi from {t} group by g",                    // grouped aggregate
    "select {t}.id, {t}.v, {g}.label from {t} join {g} on {g}.id = {t}.g",          // join
    "select {t}.id, f.value as k from {t} cross join lateral generate_series(1, {t}.g) f",  // fan-out
    "select distinct g from {t}",                                                   // full rebuild
    "select id, label from {g} where id > 0",
};

struct Object {
  bool materialized;
  int body;
};

class CatalogRandom {
 public:
  explicit CatalogRandom(unsigned seed) : rng_(seed) {}

  void run(int steps) {
    open();
    db_->exec("create table t (id integer primary key, v integer null, g integer null)");
    db_->exec("create table g (id integer primary key, label text)");
    for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
      int roll = pick(100);
      if (roll < 35) writeRows();
      else if (roll < 55) createObject();
      else if (roll < 65) dropObject();
      else if (roll < 72) renameTable();
      else if (roll < 78) rolledBackDdl();
      else reopen(pick(2) == 0);
    }
    reopen(true);
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string body(int i) const {
    std::string s = kBodies[i];
    for (auto [from, to] : {std::pair<std::string, std::string>{"{t}", t_}, {"{g}", g_}}) {
      for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
    }
    return s;
  }

  void open() { db_ = file_.open(); }

  std::string value(int range) { return pick(6) == 0 ? "null" : std::to_string(pick(range) - 2); }

  void writeRows() {
    switch (pick(4)) {
      case 0:
        db_->exec("insert or replace into " + t_ + " values (" + std::to_string(pick(40)) + ", " + value(12) + ", " +
                  value(6) + ")");
        break;
      case 1:
        db_->exec("update " + t_ + " set v = v + 1, g = " + value(6) + " where id % 5 = " + std::to_string(pick(5)));
        break;
      case 2:
        db_->exec("delete from " + t_ + " where id % 7 = " + std::to_string(pick(7)));
        break;
      default:
        db_->exec("insert or replace into " + g_ + " values (" + std::to_string(pick(5)) + ", 'l" +
                  std::to_string(pick(9)) + "')");
    }
  }

  void createObject() {
    std::string name = "o" + std::to_string(next_++);
    Object o{pick(3) != 0, pick(static_cast<int>(kBodies.size()))};
    std::string module = o.materialized && pick(4) == 0 ? " using memory" : "";
    db_->exec(std::string(o.materialized ? "create materialized view " : "create view ") + name + module + " as " +
              body(o.body));
    objects_[name] = o;
  }

  void dropObject() {
    if (objects_.empty()) return;
    auto it = std::next(objects_.begin(), pick(static_cast<int>(objects_.size())));
    db_->exec(std::string(it->second.materialized ? "drop materialized view " : "drop view ") + it->first);
    objects_.erase(it);
  }

  void renameTable() {
    std::string& name = pick(2) == 0 ? t_ : g_;
    std::string base = name.substr(0, 1);
    std::string to = name == base ? base + "_r" : base;
    db_->exec("alter table " + name + " rename to " + to);
    name = to;
  }

  // DDL and DML in a transaction that rolls back: nothing of it is stored or kept.
  void rolledBackDdl() {
    db_->exec("begin");
    db_->exec("create materialized view doomed as " + body(pick(static_cast<int>(kBodies.size()))));
    writeRows();
    if (!objects_.empty()) {
      auto it = objects_.begin();
      db_->exec(std::string(it->second.materialized ? "drop materialized view " : "drop view ") + it->first);
    }
    db_->exec("rollback");
  }

  void reopen(bool clean) {
    std::string data = rows(*db_, "select * from " + t_ + " order by id") + "/" +
                       rows(*db_, "select * from " + g_ + " order by id");
    if (clean) db_->close();
    db_.reset();  // without close(): a crash, no clean-shutdown marker
    open();
    const Rehydration& r = db_->rehydration();
    EXPECT_TRUE(r.errors.empty()) << r.errors.front();
    EXPECT_EQ(rows(*db_, "select * from " + t_ + " order by id") + "/" + rows(*db_, "select * from " + g_ + " order by id"),
              data);
    std::string expected;
    for (const auto& [name, o] : objects_) expected += (expected.empty() ? "" : ";") + name;
    EXPECT_EQ(rows(*db_, "select name from schema() where type in ('view', 'materialized_view') order by name"),
              expected);
    for (const auto& [name, o] : objects_) {
      EXPECT_EQ(sorted(rows(*db_, "select * from " + name)), sorted(rows(*db_, body(o.body))))
          << name << " = " << body(o.body) << (clean ? " after a clean close" : " after a crash");
    }
    if (!objects_.empty()) writeRows();  // maintained after the reopen, then checked again
    for (const auto& [name, o] : objects_) {
      EXPECT_EQ(sorted(rows(*db_, "select * from " + name)), sorted(rows(*db_, body(o.body)))) << name << " after a write";
    }
  }

  static std::vector<std::string> sorted(const std::string& text) {
    std::vector<std::string> out;
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find(';', at);
      if (end == std::string::npos) end = text.size();
      out.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::mt19937 rng_;
  TempDatabaseFile file_;
  std::unique_ptr<Database> db_;
  std::map<std::string, Object> objects_;
  std::string t_ = "t", g_ = "g";
  int next_ = 0;
};

TEST(StoreCatalogRandom, EveryViewEqualsItsBodyAfterEveryReopen) {
  const char* env = std::getenv("OPTIC_CATALOG_SEEDS");
  int seeds = env ? std::atoi(env) : 12;
  for (int i = 0; i < seeds && !HasFailure(); ++i) {
    unsigned seed = 1000 + static_cast<unsigned>(i);
    SCOPED_TRACE("seed " + std::to_string(seed));
    CatalogRandom(seed).run(80);
  }
}

}  // namespace
}  // namespace optic
