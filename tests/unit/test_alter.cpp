// ALTER TABLE tests (core/ddl/alter.cpp): each arm's effect on rows and schema, its refusals,
// all-or-nothing failure, and the non-transactional rule (an explicit ROLLBACK keeps the ALTER
// but unwinds the rows).
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "core/common/value_ops.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;  // tests/unit/sql_test_util.h
using testing_sql::rows;

TEST(AlterTable, AddColumnBackfillsDefault) {
  Database db;
  db.exec("create table t (id integer primary key, a integer null); insert into t values (1, 10);");
  db.exec("alter table t add column b integer default 7");
  EXPECT_EQ(rows(db, "select id, a, b from t"), "1|10|7");
}

TEST(AlterTable, AddNotNullColumnWithoutDefaultRefusedOnNonEmptyTable) {
  Database db;
  db.exec("create table t (id integer primary key); insert into t values (1);");
  EXPECT_NE(errorOf(db, "alter table t add column b integer not null"), "");
  EXPECT_EQ(rows(db, "select * from t"), "1");
}

TEST(AlterTable, FailedBackfillCheckLeavesTableUnchanged) {
  Database db;
  db.exec("create table t (id integer primary key, a integer not null); insert into t values (1, 5);");
  EXPECT_NE(errorOf(db, "alter table t add column d integer not null default 0 check (d <> 0)"), "");
  EXPECT_EQ(rows(db, "select * from t"), "1|5");
}

TEST(AlterTable, RenameColumnAndTable) {
  Database db;
  db.exec("create table t (id integer primary key, a integer null check (a > 0)); insert into t values (1, 10);");
  db.exec("alter table t rename column a to b");
  EXPECT_EQ(rows(db, "select b from t"), "10");
  EXPECT_NE(errorOf(db, "insert into t values (2, -1)").find("CHECK"), std::string::npos);
  db.exec("alter table t rename to u");
  EXPECT_EQ(rows(db, "select count(*) from u"), "1");
  EXPECT_NE(errorOf(db, "alter table u rename column id to b").find("already exists"), std::string::npos);
}

TEST(AlterTable, DropColumnRealignsRowsAndRefusesKey) {
  Database db;
  db.exec("create table t (id integer primary key, v text, x integer); insert into t values (1, 'a', 10);");
  db.exec("alter table t drop column v");
  EXPECT_EQ(rows(db, "select * from t"), "1|10");
  EXPECT_NE(errorOf(db, "alter table t drop column id").find("Cannot drop PRIMARY KEY column"), std::string::npos);
}

TEST(AlterTable, SetNotNullFailsOnNullsAndSetDataTypeConverts) {
  Database db;
  db.exec("create table t (id integer primary key, c text null); insert into t values (1, '10'), (2, null);");
  EXPECT_NE(errorOf(db, "alter table t alter column c set not null").find("contains NULL values"), std::string::npos);
  db.exec("delete from t where id = 2");
  db.exec("alter table t alter column c set data type integer");
  EXPECT_EQ(rows(db, "select typeof(c) from t where c = 10"), "integer");
  EXPECT_NE(errorOf(db, "alter table t alter column id set data type text").find("PRIMARY KEY"), std::string::npos);
}

TEST(AlterTable, AlterPrimaryKeyRekeysRows) {
  Database db;
  db.exec("create table t (id integer primary key, k integer); insert into t values (1, 20), (2, 10);");
  db.exec("alter table t alter primary key (k)");
  EXPECT_EQ(rows(db, "select id from t"), "2;1");
  db.exec("insert into t values (3, 30)");
  EXPECT_NE(errorOf(db, "insert into t values (4, 30)").find("UNIQUE"), std::string::npos);
}

TEST(AlterTable, AddUniqueConstraintChecksExistingRows) {
  Database db;
  db.exec("create table t (id integer primary key, a integer); insert into t values (1, 5), (2, 5);");
  EXPECT_NE(errorOf(db, "alter table t add constraint u unique (a)").find("UNIQUE constraint failed"), std::string::npos);
  db.exec("update t set a = 6 where id = 2");
  db.exec("alter table t add constraint u unique (a)");
  EXPECT_NE(errorOf(db, "insert into t values (3, 6)").find("UNIQUE"), std::string::npos);
  db.exec("alter table t drop constraint u");
  db.exec("insert into t values (3, 6)");
}

TEST(AlterTable, RollbackToSavepointKeepsAlterAndUnwindsRows) {
  Database db;
  db.exec("create table t (id integer primary key, v text)");
  db.exec("begin; insert into t values (1, 'a'); savepoint s; insert into t values (2, 'b');");
  db.exec("alter table t add column w text default 'z'");
  db.exec("insert into t values (3, 'c', 'x'); rollback to savepoint s; commit;");
  EXPECT_EQ(rows(db, "select id, v, w from t"), "1|a|z");
}

TEST(AlterTable, MissingTableIsNotFound) {
  Database db;
  EXPECT_NE(errorOf(db, "alter table nope rename to other").find("not found"), std::string::npos);
}

TEST(AlterTable, AlterPrimaryKeyRefusesDuplicateColumn) {
  Database db;
  db.exec("create table t (id integer primary key, v integer not null)");
  EXPECT_NE(errorOf(db, "alter table t alter primary key (v, v)").find("Duplicate column 'v' in PRIMARY KEY"),
            std::string::npos);
}

TEST(AlterTable, SetCollateRevalidatesPartialUniqueIndexInsideItsPredicateOnly) {
  Database db;
  db.exec("create table p (id integer primary key, code text, active integer)");
  db.exec("create unique index p_code on p(code) where active = 1");
  db.exec("insert into p values (1, 'a', 0), (2, 'A', 0)");
  db.exec("alter table p alter column code set collate nocase");  // the pair is outside the predicate
  db.exec("insert into p values (3, 'a', 1)");
  EXPECT_NE(errorOf(db, "insert into p values (4, 'A', 1)").find("UNIQUE constraint failed"), std::string::npos);
  db.exec("create table q (id integer primary key, code text, active integer)");
  db.exec("create unique index q_code on q(code) where active = 1");
  db.exec("insert into q values (1, 'a', 1), (2, 'A', 1)");
  EXPECT_NE(errorOf(db, "alter table q alter column code set collate nocase").find("UNIQUE constraint failed: q (code)"),
            std::string::npos);
}

TEST(AlterTable, RekeyRefusesWhileRestorableRowsWouldCollide) {
  Database db;
  db.exec("create table t (k text collate binary primary key, v text)");
  db.exec("begin; insert into t values ('A', 'x'), ('a', 'y'); delete from t where k in ('A', 'a');");
  EXPECT_NE(errorOf(db, "alter table t alter column k set collate nocase").find("still collide under the new key definition"),
            std::string::npos);
  db.exec("commit");
  db.exec("alter table t alter column k set collate nocase");
  // A replaced row is not a collision: the delete and the insert cannot both come back.
  db.exec("create table u (k text collate binary primary key, v text); insert into u values ('A', 'x');");
  db.exec("begin; delete from u where k = 'A'; insert into u values ('a', 'y');");
  db.exec("alter table u alter column k set collate nocase; commit;");
  EXPECT_EQ(rows(db, "select k, v from u"), "a|y");
  // Rows the transaction can see collide: the constraint itself fails.
  db.exec("create table w (k text collate binary primary key); insert into w values ('A');");
  db.exec("begin; insert into w values ('a');");
  EXPECT_NE(errorOf(db, "alter table w alter column k set collate nocase").find("collides under the new key definition"),
            std::string::npos);
  db.exec("rollback");
}

TEST(AlterTable, AddColumnRunsSubqueryCheckOverBackfilledRows) {
  Database db;
  db.exec("create table d (k integer); insert into d values (1);");
  db.exec("create table t (id integer primary key); insert into t values (1);");
  EXPECT_NE(errorOf(db, "alter table t add column z integer default (new.id) check ((select count(*) from d) = 99)")
                .find("CHECK constraint failed"),
            std::string::npos);
  db.exec("alter table t add column y integer default (new.id) check ((select count(*) from d) = 1)");
  EXPECT_EQ(rows(db, "select * from t"), "1|1");
}

TEST(AlterTable, AddReferencingColumnToMissingParentNamesTheForeignKey) {
  Database db;
  db.exec("create table c (id integer primary key); insert into c values (1);");
  EXPECT_NE(errorOf(db, "alter table c add column p integer default 5 references nope(id)").find("foreign key"),
            std::string::npos);
  db.exec("alter table c add column p2 integer null references nope(id)");  // NULL backfill: no orphan
  EXPECT_EQ(rows(db, "select id, p2 from c"), "1|null");
}

TEST(DropIndex, RollbackToSavepointKeepsTheDropAndUnwindsRows) {
  Database db;
  db.exec("create table t (id integer primary key, v text); create unique index t_v on t(v);");
  db.exec("begin; insert into t values (1, 'a'); savepoint s; insert into t values (2, 'b');");
  db.exec("drop index t_v; insert into t values (3, 'c'); rollback to savepoint s;");
  EXPECT_EQ(rows(db, "select id, v from t"), "1|a");
  db.exec("insert into t values (4, 'a'); commit;");  // the index stays dropped
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;4");
}

TEST(AlterTable, AddColumnDefaultOfTheSameTypeCopiesStoredValues) {
  Database db;
  db.exec("create table t (a integer primary key, j json); insert into t values (1, '\"abc\"'), (2, '9');");
  db.exec("alter table t add column k json default (new.j)");
  EXPECT_EQ(rows(db, "select a, k, typeof(k) from t order by a"), "1|abc|text;2|9|integer");
}

TEST(AlterTable, RetypeDateToTimeKeepsMidnightAndTimeToDateIsRefused) {
  Database db;
  db.exec("create table t (id integer primary key, v text); insert into t values (1, '2024-06-05');");
  db.exec("alter table t alter column v set data type date");
  db.exec("alter table t alter column v set data type time");
  EXPECT_EQ(rows(db, "select v from t"), "00:00:00");
  EXPECT_NE(errorOf(db, "alter table t alter column v set data type date").find("Cannot convert value"), std::string::npos);
}

// The temporal types and JSON take BINARY only: a column keeping NOCASE cannot be retyped into
// them (nor created so), and the refusal changes nothing; INTEGER accepts any collation.
TEST(AlterTable, RetypeIntoACollationlessTypeNeedsBinary) {
  Database db;
  EXPECT_EQ(errorOf(db, "create table bad (d date collate nocase)"), "Unknown collation 'nocase' for type 'DATE'");
  db.exec("create table s (id integer primary key, d text collate nocase, unique (d))");
  db.exec("insert into s values (1, '2024-01-01')");
  for (const char* type : {"date", "time", "datetime", "timespan", "json"}) {
    EXPECT_EQ(errorOf(db, std::string("alter table s alter column d set data type ") + type).rfind("Unknown collation 'NOCASE' for type", 0), 0u)
        << type;
  }
  EXPECT_EQ(rows(db, "select type, collation from table_info('s') where name = 'd'"), "TEXT|NOCASE");
  db.exec("alter table s alter column d set collate binary");
  db.exec("alter table s alter column d set data type date");
  EXPECT_EQ(rows(db, "select type, collation from table_info('s') where name = 'd'"), "DATE|BINARY");
  db.exec("create table n (id integer primary key, v text collate nocase)");
  db.exec("alter table n alter column v set data type integer");  // no collation list: accepted
}

}  // namespace
}  // namespace optic
