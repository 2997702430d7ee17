// The durable catalog (store.md §4–5, the view-persistence seed): views and materialized views
// survive a reopen of the file store, after a clean close (stored rows adopted) and after a crash
// (refilled); their entries join the atomic commit of the DDL that changes them; unencodable
// definitions are refused as a clean no-op; what cannot be restored is reported and refuses reads.
#include <gtest/gtest.h>

#include <string>

#include "core/api/database.h"
#include "core/catalog/store_layout.h"
#include "core/storage/file_store.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;
using testing_sql::TempDatabaseFile;

// A materialized view and the query its rows must equal.
struct Derived {
  std::string name;
  std::string body;
  std::string order;  // orders both sides
};

const std::vector<Derived> kDerived = {
    {"proj", "select id, v from t where v > 0", "id"},
    {"agg", "select count(*) as n, sum(v) as s from t", "n"},
    {"grp", "select g, count(*) as n, max(v) as hi from t group by g", "g"},
    {"joined", "select t.id, t.v, g.label from t join g on g.id = t.g", "id"},
    {"fan", "select t.id, f.value as k from t cross join lateral generate_series(1, t.g) f", "id, k"},
    {"floor", "select distinct g from t", "g"},
    {"upper", "select g, n from grp where n > 1", "g"},
    {"mem", "select id, v * 2 as w from t", "id"},
};

class StoreCatalog : public ::testing::Test {
 protected:
  std::unique_ptr<Database> open() { return file_.open(); }
  // Every catalog entry as stored, "key=value" lines.
  std::string storedCatalog() {
    std::unique_ptr<FileStore> f = FileStore::open(file_.path());
    std::string out;
    forEachInStore(f->contents(), kCatalogStoreName, [&](std::string_view k, std::string_view v) {
      out += std::string(k) + "=" + std::string(v) + "\n";
    });
    return out;
  }
  static void createAll(Database& db) {
    db.exec("create table g (id integer primary key, label text)");
    db.exec("create table t (id integer primary key, v integer, g integer, tags json)");
    db.exec("insert into g values (1, 'one'), (2, 'two')");
    db.exec("insert into t values (1, 5, 1, '[\"a\",\"b\"]'), (2, -3, 2, '[]'), (3, 8, 1, '[\"c\"]')");
    db.exec("create view tv as select id, v from t where v > 0");
    db.exec("create view tvv (ident) as select id from tv where id < 3");
    for (const Derived& d : kDerived) {
      std::string module = d.name == "mem" ? " using memory" : "";
      db.exec("create materialized view " + d.name + module + " as " + d.body);
    }
    db.exec("create view over_mv as select n from agg");
  }
  // Each materialized view equals its body evaluated now.
  static void expectCurrent(Database& db) {
    for (const Derived& d : kDerived) {
      EXPECT_EQ(rows(db, "select * from " + d.name + " order by " + d.order),
                rows(db, "select * from (" + d.body + ") order by " + d.order))
          << d.name;
    }
  }
  TempDatabaseFile file_;
};

TEST_F(StoreCatalog, ViewsAndMaterializedViewsSurviveACleanClose) {
  std::string schemaBefore, viewInfoBefore;
  {
    auto db = open();
    createAll(*db);
    expectCurrent(*db);
    schemaBefore = rows(*db, "select type, name, sql from schema() order by type, name");
    viewInfoBefore = rows(*db, "select * from view_info() order by 1, 2");
    db->close();
  }
  auto db = open();
  const Rehydration& r = db->rehydration();
  EXPECT_EQ(r.views.size(), 3u);
  EXPECT_EQ(r.materializedViews.size(), kDerived.size());
  EXPECT_EQ(r.refilled, std::vector<std::string>{"main.mem"});  // a memory backing is never stored
  EXPECT_EQ(r.adopted.size(), kDerived.size() - 1);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(rows(*db, "select type, name, sql from schema() order by type, name"), schemaBefore);
  EXPECT_EQ(rows(*db, "select * from view_info() order by 1, 2"), viewInfoBefore);
  EXPECT_FALSE(viewInfoBefore.empty());
  EXPECT_EQ(rows(*db, "select * from tv order by id"), "1|5;3|8");
  EXPECT_EQ(rows(*db, "select ident from tvv"), "1");
  expectCurrent(*db);
  // Maintained after the reopen, inside the writing transaction.
  db->exec("insert into t values (4, 7, 2, '[\"d\"]')");
  db->exec("update t set v = 1 where id = 2");
  db->exec("delete from t where id = 1");
  db->exec("update g set label = 'TWO' where id = 2");
  expectCurrent(*db);
  EXPECT_EQ(rows(*db, "select n, s from agg"), "3|16");
  EXPECT_EQ(rows(*db, "select * from over_mv"), "3");
}

// An exposed constraint index's own tags are part of its table's stored bundle.
TEST_F(StoreCatalog, ExposedConstraintIndexTagsSurviveReopen) {
  {
    auto db = open();
    db->exec("create table t (id integer primary key, a text,"
             " constraint ua unique (a) with tags (\"quereus.expose_implicit_index\" = true))");
    db->exec("alter index ua set tags (purpose = 'lookup', n = 2)");
    db->close();
  }
  auto db = open();
  EXPECT_TRUE(db->rehydration().errors.empty()) << db->rehydration().errors.front();
  EXPECT_EQ(rows(*db, "select name, tags from schema() where type = 'index'"), "ua|{\"purpose\":\"lookup\",\"n\":2}");
  EXPECT_NE(errorOf(*db, "insert into t values (1, 'x'), (2, 'x')").find("UNIQUE"), std::string::npos);
  db->exec("alter table t drop constraint ua");
  EXPECT_EQ(rows(*db, "select count(*) from schema() where type = 'index'"), "0");
}

TEST_F(StoreCatalog, AfterACrashEveryMaterializedViewIsRefilled) {
  {
    auto db = open();
    createAll(*db);
    db->exec("insert into t values (9, 1, 2, '[]')");
  }  // no close(): no clean-shutdown marker
  auto db = open();
  EXPECT_TRUE(db->rehydration().adopted.empty());
  EXPECT_EQ(db->rehydration().refilled.size(), kDerived.size());
  expectCurrent(*db);
  db->exec("insert into t values (10, 4, 1, '[\"z\"]')");
  expectCurrent(*db);
}

TEST_F(StoreCatalog, AViewStaleAtCloseIsRefilledNotAdopted) {
  {
    auto db = open();
    createAll(*db);
  }
  {
    auto db = open();  // after a crash: every view awaits its refill
    db->close();       // before any statement ran: the marker names them all
  }
  auto db = open();
  EXPECT_TRUE(db->rehydration().adopted.empty());
  expectCurrent(*db);
  db->close();
  db.reset();
  auto again = open();
  EXPECT_EQ(again->rehydration().adopted.size(), kDerived.size() - 1);  // refilled and stored, then trusted
  expectCurrent(*again);
}

TEST_F(StoreCatalog, TwoConsecutiveReopensLeaveTheCatalogByteIdentical) {
  {
    auto db = open();
    createAll(*db);
    db->close();
  }
  open()->close();
  std::string first = storedCatalog();
  open()->close();
  EXPECT_EQ(storedCatalog(), first);
  EXPECT_NE(first.find(std::string(kViewCatalogPrefix) + "main.tv="), std::string::npos);
  EXPECT_NE(first.find(std::string(kMaterializedViewCatalogPrefix) + "main.agg="), std::string::npos);
  EXPECT_NE(first.find(std::string(kCleanShutdownKey) + "=[]"), std::string::npos);
}

TEST_F(StoreCatalog, EntriesCommitWithTheirDdlAndRollBackWithIt) {
  {
    auto db = open();
    db->exec("create table t (id integer primary key, v integer)");
    db->exec("begin");
    db->exec("create view a as select id from t");
    db->exec("create materialized view m as select id, v from t");
    db->exec("rollback");
    db->exec("begin");
    db->exec("create view b as select v from t");
    db->exec("commit");
  }
  std::string stored = storedCatalog();
  EXPECT_EQ(stored.find("main.a="), std::string::npos);
  EXPECT_EQ(stored.find("main.m="), std::string::npos);
  auto db = open();
  EXPECT_EQ(db->rehydration().views, std::vector<std::string>{"main.b"});
  EXPECT_NE(errorOf(*db, "select * from a"), "");
}

TEST_F(StoreCatalog, RenamesTagsAndDropsPersist) {
  {
    auto db = open();
    db->exec("create table t (id integer primary key, v integer)");
    db->exec("insert into t values (1, 10)");
    db->exec("create view tv with tags (display = 'list') as select id, v from t");
    db->exec("create materialized view m as select id, v from t");
    db->exec("create materialized view gone as select id from t");
    db->exec("create view dropped as select 1 as one");
    db->exec("alter table t rename to u");
    db->exec("alter table u rename column v to w");
    db->exec("drop materialized view gone");
    db->exec("drop view dropped");
    db->close();
  }
  auto db = open();
  EXPECT_TRUE(db->rehydration().errors.empty());
  EXPECT_EQ(rows(*db, "select sql from schema() where name = 'tv'"),
            "create view tv as select id, w from u with tags (display = 'list')");
  EXPECT_EQ(rows(*db, "select name from schema() where name in ('gone', 'dropped')"), "");
  db->exec("insert into u values (2, 20)");
  EXPECT_EQ(rows(*db, "select * from m order by id"), "1|10;2|20");
  EXPECT_EQ(rows(*db, "select * from tv order by id"), "1|10;2|20");
}

TEST_F(StoreCatalog, AViewOverAMemorySourceIsReportedAndRefusesReads) {
  {
    auto db = open();
    db->exec("create table mt (id integer primary key, v integer) using memory");
    db->exec("insert into mt values (1, 1)");
    db->exec("create materialized view mm as select id, v from mt");
    db->exec("create table keep (id integer primary key)");
    db->close();
  }
  {
    auto db = open();
    ASSERT_EQ(db->rehydration().errors.size(), 1u);
    EXPECT_NE(db->rehydration().errors[0].find("main.mm"), std::string::npos);
    EXPECT_TRUE(db->rehydration().materializedViews.empty());
    std::string e = errorOf(*db, "select * from mm");
    EXPECT_NE(e.find("could not be restored when the database opened"), std::string::npos) << e;
    db->exec("insert into keep values (1)");  // a commit carries the entry, never serves the rows
    db->close();
  }
  {
    auto db = open();
    EXPECT_EQ(db->rehydration().errors.size(), 1u);  // still reported, the definition kept
    db->exec("drop materialized view mm");
    db->close();
  }
  EXPECT_TRUE(open()->rehydration().errors.empty());
  EXPECT_EQ(storedCatalog().find("mm"), std::string::npos);
}

TEST_F(StoreCatalog, UnstorableDefinitionsAreACleanNoOp) {
  const std::string lone = "\xED\xA0\x80";  // U+D800 as generalized UTF-8
  auto db = open();
  db->exec("create table t (id integer primary key, v text)");
  db->exec("create view tv as select id from t");
  db->exec("begin");
  db->exec("insert into t values (1, 'a')");
  // Each is refused with the store's message: "cannot store persisted schema text containing an
  // unpaired surrogate …" for DDL ("cannot store text …" when the rows the body derives carry it).
  for (const std::string& sql : {"create view \"v" + lone + "\" as select 1 as x",
                                 "create view w as select '" + lone + "' as x",
                                 "create materialized view m as select id, '" + lone + "' as x from t",
                                 "create view w2 with tags (note = '" + lone + "') as select 1 as x",
                                 "alter table t rename to \"t" + lone + "\"",
                                 "alter table t rename column v to \"v" + lone + "\""}) {
    std::string e = errorOf(*db, sql);
    EXPECT_NE(e.find("cannot store"), std::string::npos) << testing::PrintToString(sql) << ": " << e;
  }
  db->exec("commit");  // the transaction carries on: each refusal undid its own statement only
  EXPECT_EQ(rows(*db, "select name from schema() where type not in ('table', 'function') order by name"), "tv");
  EXPECT_EQ(rows(*db, "select sql from schema() where name = 'tv'"), "create view tv as select id from t");
  db->close();
  db.reset();
  auto again = open();
  EXPECT_EQ(rows(*again, "select id, v from t"), "1|a");
  EXPECT_EQ(again->rehydration().views, std::vector<std::string>{"main.tv"});
}

TEST_F(StoreCatalog, AViewDeclaredAsATableKeepsItsForm) {
  std::string before;
  {
    auto db = open();
    db->exec("create table t (id integer primary key, v integer not null)");
    db->exec("insert into t values (1, 2)");
    db->exec("create table m (id INTEGER not null, v INTEGER not null, primary key (id)) maintained as select id, v from t");
    db->exec("create materialized view named (a, b) as select id, v from t");
    before = rows(*db, "select name, sql from schema() where type = 'materialized_view' order by name");
    db->close();
  }
  auto db = open();
  EXPECT_EQ(db->rehydration().adopted.size(), 2u);
  EXPECT_EQ(rows(*db, "select name, sql from schema() where type = 'materialized_view' order by name"), before);
  db->exec("insert into t values (2, 3)");
  EXPECT_EQ(rows(*db, "select * from m order by id"), "1|2;2|3");
  EXPECT_EQ(rows(*db, "select a, b from named order by a"), "1|2;2|3");
}

}  // namespace
}  // namespace optic
