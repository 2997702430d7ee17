// Drop guard (core/ddl/drop_guard.h) and the drop-column guard for assertions
// (core/ddl/alter.cpp): a DROP is refused while a stored expression can still reach the
// object, directly or through view bodies, and a refused DROP changes nothing.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(DropGuard, CheckReadingTheTableRefusesItsDrop) {
  Database db;
  db.exec("create table src (id integer primary key, v integer)");
  db.exec("insert into src values (1, 10)");
  db.exec("create table ref (id integer primary key, n integer, constraint ck check (n < (select max(v) from src)))");
  EXPECT_EQ(errorOf(db, "drop table src"),
            "cannot drop table 'main.src': it is referenced by CHECK constraint 'ck' on table 'ref'");
  EXPECT_EQ(errorOf(db, "insert into ref values (1, 99)").find("ck") != std::string::npos, true);  // still enforced
  db.exec("insert into ref values (2, 1)");
  db.exec("alter table ref drop constraint ck");
  db.exec("drop table src");  // the escape hatch
  EXPECT_EQ(rows(db, "select count(*) from ref"), "1");
}

TEST(DropGuard, DefaultAndGeneratedReadersAreNamed) {
  Database db;
  db.exec("create table src (id integer primary key, v integer)");
  db.exec("create table d (id integer primary key, w integer default ((select max(v) from src)))");
  EXPECT_EQ(errorOf(db, "drop table src"),
            "cannot drop table 'main.src': it is referenced by the DEFAULT of column 'w' on table 'd'");
  db.exec("drop table d");
  db.exec("create table g (id integer primary key, x integer, gg integer generated always as ((select count(*) from src)))");
  EXPECT_EQ(errorOf(db, "drop table src"),
            "cannot drop table 'main.src': it is referenced by the GENERATED expression of column 'gg' on table 'g'");
}

TEST(DropGuard, ReachThroughAViewChainIsNamedOutermostFirst) {
  Database db;
  db.exec("create table base (id integer primary key, v integer)");
  db.exec("create view v1 as select id, v from base");
  db.exec("create view v2 as select id, v from v1");
  db.exec("create table ref (id integer primary key, n integer, constraint ck check (n < (select max(v) from v2)))");
  EXPECT_EQ(errorOf(db, "drop table base"),
            "cannot drop table 'main.base': CHECK constraint 'ck' on table 'ref' reaches it through view 'v2' -> "
            "view 'v1' — drop or redefine it first");
  EXPECT_EQ(errorOf(db, "drop view v1"),
            "cannot drop view 'main.v1': CHECK constraint 'ck' on table 'ref' reaches it through view 'v2' — drop or "
            "redefine it first");
  EXPECT_EQ(errorOf(db, "drop view v2"), "cannot drop view 'main.v2': it is referenced by CHECK constraint 'ck' on table 'ref'");
  EXPECT_EQ(rows(db, "select count(*) from v2"), "0");  // nothing was dropped
}

TEST(DropGuard, MaterializedViewsAreReachedAndGuarded) {
  Database db;
  db.exec("create table base (id integer primary key, v integer)");
  db.exec("create materialized view m as select id, v from base");
  db.exec("create table ref (id integer primary key, n integer, constraint ck check (n < (select max(v) from m)))");
  EXPECT_EQ(errorOf(db, "drop table base"),
            "cannot drop table 'main.base': CHECK constraint 'ck' on table 'ref' reaches it through materialized view "
            "'m' — drop or redefine it first");
  EXPECT_EQ(errorOf(db, "drop materialized view m"),
            "cannot drop materialized view 'main.m': it is referenced by CHECK constraint 'ck' on table 'ref'");
}

TEST(DropGuard, OwnExpressionsPlainViewsAndShadowingNamesDoNotBlock) {
  Database db;
  db.exec("create table self (id integer primary key, v integer, check (v <= (select max(v) from self)))");
  db.exec("drop table self");  // its CHECK goes with it
  db.exec("create table viewed (id integer primary key); create view pv as select id from viewed");
  db.exec("drop table viewed");  // a plain view over it does not block
  db.exec("create table cte (id integer primary key, v integer)");
  db.exec("create table cref (id integer primary key, n integer, check ((with cte as (select 1 as v) select max(v) from cte) >= 0))");
  db.exec("drop table cte");  // the CTE shadows the name
  db.exec("create table al (id integer primary key, v integer); create table other (k integer primary key, v integer)");
  db.exec("create table aref (id integer primary key, n integer, check ((select max(al.v) from other as al) >= 0))");
  db.exec("drop table al");  // so does an alias
  EXPECT_EQ(rows(db, "select count(*) from cref"), "0");
}

TEST(DropGuard, AssertionsReachingTheObjectRefuseItsDrop) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  db.exec("create view v as select id, x from t");
  db.exec("create assertion a1 check (not exists (select 1 from v where x < 0))");
  EXPECT_EQ(errorOf(db, "drop view v"), "cannot drop view 'main.v': it is referenced by assertion 'a1'");
  EXPECT_EQ(errorOf(db, "drop table t"),
            "cannot drop table 'main.t': assertion 'a1' reaches it through view 'v' — drop or redefine it first");
  db.exec("drop assertion a1");
  db.exec("drop view v");
  db.exec("drop table t");
}

TEST(DropColumnGuard, AssertionNamingTheColumnRefusesTheDrop) {
  Database db;
  db.exec("create table a (id integer primary key, x integer, y integer)");
  db.exec("create assertion nonneg check (not exists (select 1 from a where x < 0))");
  EXPECT_EQ(errorOf(db, "alter table a drop column x"),
            "Cannot drop column 'x' from 'a': it is referenced by assertion 'nonneg'");
  db.exec("alter table a drop column y");  // the body does not name y
  db.exec("create table s (id integer primary key, p integer, q integer)");
  db.exec("create assertion star check (not exists (select * from s where id < 0))");
  db.exec("alter table s drop column p");  // `select *` names no column
  db.exec("insert into s values (1, 8)");
  EXPECT_EQ(rows(db, "select q from s"), "8");
}

TEST(DropColumnGuard, OtherTablesExpressionsAndViewChainsAreNamed) {
  Database db;
  db.exec("create table src (id integer primary key, v integer, w integer)");
  db.exec("create table ref (id integer primary key, n integer, constraint ck check (n < (select max(v) from src)))");
  EXPECT_EQ(errorOf(db, "alter table src drop column v"),
            "Cannot drop column 'v' from 'src': it is referenced by CHECK constraint 'ck' on table 'ref'");
  db.exec("alter table src drop column w");  // nothing names w
  db.exec("alter table ref drop constraint ck");
  db.exec("create view sv as select id, v from src");
  db.exec("create table vref (id integer primary key, n integer, constraint ck2 check (n < (select max(v) from sv)))");
  EXPECT_EQ(errorOf(db, "alter table src drop column v"),
            "Cannot drop column 'v' from 'src': CHECK constraint 'ck2' on table 'vref' reaches it through view 'sv' — "
            "drop or redefine it first");
  db.exec("create assertion pos check (not exists (select 1 from sv where v < 0))");
  db.exec("alter table vref drop constraint ck2");
  EXPECT_EQ(errorOf(db, "alter table src drop column v"),
            "Cannot drop column 'v' from 'src': it is referenced by assertion 'pos' through view 'sv'");
  EXPECT_EQ(rows(db, "select count(*) from src"), "0");
}

}  // namespace
}  // namespace optic
