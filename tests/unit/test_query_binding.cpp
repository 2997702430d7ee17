// Query binding (core/planner/binder.cpp, recursive_cte.cpp): a recursive CTE whose body carries
// its own WITH, a non-recursive member's scope (a body naming itself), the CTE declared-column count check, and correlated subqueries of a grouped
// query reaching its group keys.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;  // tests/unit/sql_test_util.h

TEST(Cte, RecursiveBodyWithOwnWithClause) {
  Database db;
  EXPECT_EQ(rows(db, "with recursive r(n) as (with base as (select 1 as start) select start from base "
                     "union all select n + 1 from r where n < 3) select n from r order by n"),
            "1;2;3");
  // The inner WITH is the body's own: it does not leak to the outer query.
  EXPECT_THROW(rows(db, "with recursive r(n) as (with base as (select 1 as start) select start from base "
                        "union all select n + 1 from r where n < 3) select * from base"),
               Error);
}

TEST(Cte, ANonRecursiveBodySeesOnlyTheSiblingsBeforeIt) {
  Database db;
  db.exec("create table base (id integer primary key); insert into base values (1), (2);"
          "create table later (v integer); insert into later values (7)");
  // The member's own name inside its body is the real table (never itself, which recursed).
  EXPECT_EQ(rows(db, "with base as (select id * 10 as id from base) select id from base order by id"), "10;20");
  // A later sibling is out of the body's scope (`a` reads the real `later`); an earlier one is
  // in it (`b` reads `a`).
  EXPECT_EQ(rows(db, "with a as (select v from later), later as (select 0 as v), b as (select v + 1 as v from a) "
                     "select v from b"),
            "8");
  // The body binds where it is declared: a WITH around the reference does not reach it, also for
  // a `with recursive` member without a recursive step.
  EXPECT_EQ(rows(db, "with a as (select id from base) select * from (with base as (select 99 as id) select min(id) from a) as s"),
            "1");
  EXPECT_EQ(rows(db, "with recursive a as (select id from base) select * from "
                     "(with base as (select 99 as id) select min(id) from a) as s"),
            "1");
}

TEST(Cte, DeclaredColumnCountMismatch) {
  Database db;
  try {
    rows(db, "with bad(a, b) as (select 1) select * from bad");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 declared columns"), std::string::npos) << e.what();
  }
}

// Regression (stack overflow): a non-recursive member does not see itself, so its body's
// same-named source is the real table, also through a sibling that names it back.
TEST(Cte, SelfNamedBodyReadsTheRealTable) {
  Database db;
  db.exec("create table t (id integer primary key, color text); insert into t values (1, 'red'), (2, 'green')");
  EXPECT_EQ(rows(db, "with t as (select id from t where id > 1) select * from t"), "2");
  EXPECT_EQ(rows(db, "with a as (select id from t), t as (select id from a where id < 2) select * from t"), "1");
  // A member sees earlier siblings only: a later one (even one named like a table) is out of scope.
  EXPECT_EQ(rows(db, "with a as (select id from t where id > 1), t as (select id from a) select * from a"), "2");
  EXPECT_THROW(rows(db, "with a as (select id from later), later as (select id from t) select * from a"), Error);
  // A member of a `with recursive` clause without a recursive step is an ordinary member.
  EXPECT_EQ(rows(db, "with recursive t as (select id from t where id = 1) select * from t"), "1");
  // `with recursive` lets a member read a later sibling.
  EXPECT_EQ(rows(db, "with recursive a as (select n from r), r(n) as (select 1 union all select n + 1 from r where n < 2) "
                     "select n from a order by n"),
            "1;2");
}

TEST(GroupedCorrelation, SubqueryReadsGroupKey) {
  Database db;
  db.exec("create table p (id integer primary key, k integer null)");
  db.exec("create table d (id integer primary key, k integer null)");
  db.exec("insert into p values (1, 10), (2, 10), (3, 20), (4, null)");
  db.exec("insert into d values (1, 10), (2, 10), (3, 20)");
  EXPECT_EQ(rows(db, "select p.k, count(*) from p group by p.k order by (select count(*) from d where d.k = p.k), p.k"),
            "null|1;20|1;10|2");
  EXPECT_EQ(rows(db, "select k, (select count(*) from d where d.k = p.k) from p group by k order by k"),
            "null|0;10|2;20|1");
  // A non-key column of the grouped level is still the strict GROUP BY error inside a subquery.
  EXPECT_THROW(rows(db, "select k, (select count(*) from d where d.id = p.id) from p group by k"), Error);
}

// An expression grouping key spelled inside a correlated subquery reads the group's value when
// every column it names comes from outside the subquery; a subquery column of the same name
// keeps it the subquery's own expression.
TEST(GroupedCorrelation, SubqueryReadsExpressionGroupKey) {
  Database db;
  db.exec("create table w (id integer primary key, a text, b integer)");
  db.exec("create table s (id integer primary key, c text, a text)");
  db.exec("create table z (id integer primary key, c text)");
  db.exec("insert into w values (1, 'x', 1), (2, 'y', 2), (3, 'y', 3)");
  db.exec("insert into s values (1, 'x!', 'q'), (2, 'y!', 'y'), (3, 'y!', 'q')");
  db.exec("insert into z values (1, 'x!'), (2, 'y!'), (3, 'y!')");
  EXPECT_EQ(rows(db, "select a || '!' as k, (select count(*) from z where z.c = a || '!') as n from w"
                     " group by a || '!' order by k"),
            "x!|1;y!|2");
  EXPECT_EQ(rows(db, "select a || '!' as k, count(*) over (partition by (select count(*) > 0 from z where z.c = a || '!'))"
                     " as c from w group by a || '!' order by k"),
            "x!|2;y!|2");
  // In s, `a` is s.a: the expression is the subquery's own, and w.a is no grouping key.
  EXPECT_EQ(rows(db, "select a || '!' as k, (select count(*) from s where s.c = a || '!') as n from w"
                     " group by a || '!' order by k"),
            "x!|1;y!|1");
  EXPECT_THROW(rows(db, "select a || '!' as k, (select count(*) from z where z.c = b || '!') from w group by a || '!'"),
               Error);
}

}  // namespace
}  // namespace optic
