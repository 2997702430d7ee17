// The file-backed store module across reopen (store.md §4–5): the catalog (tables, indexes)
// and the data of every value type rehydrate; unencodable text (an unpaired surrogate) is
// refused before anything is written, so the database is unchanged in memory and on disk.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;
using testing_sql::TempDatabaseFile;

class StoreReopen : public ::testing::Test {
 protected:
  std::unique_ptr<Database> open() { return file_.open(); }
  TempDatabaseFile file_;
};

TEST_F(StoreReopen, CatalogAndEveryValueTypeRehydrate) {
  const std::string all = "select id, i, r, t, b, f, j, n, typeof(b) from v order by id";
  std::string before;
  {
    auto db = open();
    db->exec("create table v (id integer primary key, i integer, r real, t text, b blob, f boolean, j json, n integer null)");
    db->exec("create unique index v_t on v(t)");
    db->exec("insert into v values (1, 9007199254740993, 1.5, 'héllo', x'00ff10', true, '{\"a\":[1,2]}', null),"
             "(2, -42, -0.25, '', x'', false, '[]', 7)");
    before = rows(*db, all);
  }
  auto db = open();
  EXPECT_EQ(rows(*db, all), before);
  EXPECT_EQ(rows(*db, "select distinct index_name from index_info('v') where index_name = 'v_t'"), "v_t");
  EXPECT_THROW(db->exec("insert into v values (3, 0, 0, 'héllo', x'01', true, '{}', null)"), Error);  // the index is live
  db->exec("insert into v values (3, 0, 0, 'x', x'01', true, '{}', null)");
  db.reset();
  EXPECT_EQ(rows(*open(), "select count(*) from v"), "3");
}

// Stored DDL with a minus over a minus (a DEFAULT, a CHECK, a view body) is written so it reads
// back: `--` would start a comment, and the table or view was skipped on reopen.
TEST_F(StoreReopen, ANestedMinusInStoredDdlReadsBack) {
  {
    auto db = open();
    db->exec("create table t (id integer primary key, x integer default (- -1), constraint c check (- -x > 0))");
    db->exec("create view v as select - -x as y from t");
    db->exec("insert into t (id) values (1)");
  }
  auto db = open();
  EXPECT_EQ(rows(*db, "select id, x from t"), "1|1");
  EXPECT_EQ(rows(*db, "select y from v"), "1");
  EXPECT_THROW(db->exec("insert into t values (2, -3)"), Error);  // the CHECK came back
}

TEST_F(StoreReopen, UnpairedSurrogateIsRefusedBeforeAnyWrite) {
  const std::string lone = "\xED\xA0\x80";  // U+D800 as generalized UTF-8
  {
    auto db = open();
    db->exec("create table s (id integer primary key, t text)");
    db->exec("insert into s values (1, 'ok')");
    try {
      db->exec("insert into s values (2, 'a" + lone + "')");
      ADD_FAILURE() << "the unpaired surrogate was stored";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("unpaired surrogate"), std::string::npos) << e.what();
    }
    EXPECT_THROW(db->exec("create table \"x" + lone + "\" (id integer primary key)"), Error);
    EXPECT_EQ(rows(*db, "select id from s"), "1");
  }
  auto db = open();
  EXPECT_EQ(rows(*db, "select id, t from s"), "1|ok");
  EXPECT_EQ(rows(*db, "select count(*) from schema() where type = 'table' and name like 'x%'"), "0");
}

// An update that leaves an index's columns alone writes no index entry (TableStore keeps it);
// what is stored must still hold every entry, so after a reopen each indexed lookup answers as a
// scan of the rows. 2000 rows with two indexes; one update per kind: indexed columns untouched,
// one index's column changed, a key that encodes alike (1 → 1.0 in a REAL column), a new key.
TEST_F(StoreReopen, IndexEntriesAnUpdateLeftAloneSurviveReopen) {
  {
    auto db = open();
    db->exec("create table e (id integer primary key, cat integer, score real, note text);"
             "create index e_cat on e (cat); create index e_score on e (score)");
    db->exec("begin");
    auto ins = db->prepare("insert into e values (?, ?, ?, 'n')");
    for (int64_t i = 0; i < 2000; ++i) {
      ins->bind(1, Value::integer(i));
      ins->bind(2, Value::integer(i % 50));
      ins->bind(3, Value::real(static_cast<double>(i % 7)));
      ins->step();
      ins->reset();
    }
    db->exec("commit");
    db->exec("update e set note = note || '!' where cat = 3");
    db->exec("update e set cat = 60 where cat = 4");
    db->exec("update e set score = 1 where score = 1.0 and cat < 10");
    db->exec("update e set score = 9.5 where id % 100 = 0");
  }
  auto db = open();
  const std::vector<std::string> queries = {
      "select count(*), min(note) from e where cat = 3", "select count(*) from e where cat = 4",
      "select count(*) from e where cat = 60",            "select count(*) from e where score = 1",
      "select count(*) from e where score = 9.5",         "select id from e where cat = 60 and score > 5 order by id",
  };
  std::vector<std::string> indexed;
  for (const std::string& q : queries) indexed.push_back(rows(*db, q));
  EXPECT_EQ(indexed[0], "40|n!");
  EXPECT_EQ(indexed[1], "0");
  EXPECT_EQ(indexed[2], "40");
  db->exec("pragma use_indexes = off");
  for (size_t i = 0; i < queries.size(); ++i) EXPECT_EQ(rows(*db, queries[i]), indexed[i]) << queries[i];
}

}  // namespace
}  // namespace optic
