// The reference engine's boolean diagnostics/optimizer pragmas (Settings::plannerFlags): each is
// accepted with any boolean spelling and echoed back; an unknown pragma is still an error.
#include <gtest/gtest.h>

#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;

TEST(PlannerFlagPragmas, SetAndReadBack) {
  Database db;
  EXPECT_EQ(rows(db, "pragma runtime_fuse_scalars"), "runtime_fuse_scalars|true");
  db.exec("pragma runtime_fuse_scalars = off");
  EXPECT_EQ(rows(db, "pragma runtime_fuse_scalars"), "runtime_fuse_scalars|false");
  db.exec("pragma validate_plan = yes");
  EXPECT_EQ(rows(db, "pragma validate_plan"), "validate_plan|true");
  EXPECT_THROW(db.exec("pragma validate_plan = maybe"), Error);
  EXPECT_THROW(rows(db, "pragma no_such_flag"), Error);
}

}  // namespace
}  // namespace optic
