// CTE binding (core/planner/binder.cpp, recursive_cte.cpp): a recursive CTE whose body carries
// its own WITH, and the declared-column count check.
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

TEST(Cte, DeclaredColumnCountMismatch) {
  Database db;
  try {
    rows(db, "with bad(a, b) as (select 1) select * from bad");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 declared columns"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace optic
