// View write-through tests (core/planner/view_mutation.h and friends): the base statement a
// write through a view lowers to, per column class; every diagnostic with its structured
// reason; and a randomized differential test — random single-source views over random data,
// each write through the view against the equivalent hand-written base statement.
#include <gtest/gtest.h>

#include <random>

#include "core/api/database.h"
#include "core/common/value_ops.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "tests/unit/sql_test_util.h"
#include "core/planner/view_mutation.h"

namespace optic {
namespace {

using testing_sql::reasonOf;
using testing_sql::rows;

std::string describe(const ast::Statement& s) {
  std::string out;
  auto assignments = [&](const std::vector<ast::Assignment>& set) {
    for (const ast::Assignment& a : set) out += " set " + a.column + " = " + printExpr(*a.value);
  };
  switch (s.kind) {
    case ast::StatementKind::kUpdate:
      out = "update " + s.update->table.name + " as " + s.update->alias;
      assignments(s.update->set);
      if (s.update->where) out += " where " + printExpr(*s.update->where);
      for (const auto& rc : s.update->returning) out += " returning " + printExpr(*rc.expr) + " as " + rc.alias;
      break;
    case ast::StatementKind::kDelete:
      out = "delete from " + s.del->table.name + " as " + s.del->alias;
      if (s.del->where) out += " where " + printExpr(*s.del->where);
      break;
    default: {
      out = "insert into " + s.insert->table.name + " (";
      for (size_t i = 0; i < s.insert->columns.size(); ++i) out += (i ? ", " : "") + s.insert->columns[i];
      out += ")";
      if (s.insert->source) {
        for (const auto& row : s.insert->source->values) {
          out += " (";
          for (size_t i = 0; i < row.size(); ++i) out += (i ? ", " : "") + printExpr(*row[i]);
          out += ")";
        }
      }
    }
  }
  return out;
}

std::string lowered(Database& db, const std::string& sql) {
  auto stmts = parseSql(sql);
  Binder binder(db.engine());
  const ast::Statement& s = *stmts[0];
  std::unique_ptr<ast::Statement> out;
  if (s.kind == ast::StatementKind::kUpdate) out = lowerViewUpdate(binder, *s.update);
  else if (s.kind == ast::StatementKind::kDelete) out = lowerViewDelete(binder, *s.del);
  else out = lowerViewInsert(binder, *s.insert);
  return out ? describe(*out) : "(base table)";
}

class ViewMutation : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table t (id integer primary key, b integer null, s text null, color text default 'red');"
            "create view v as select id, b as bee, b + 1 as bp, 10 - b as tenminus, lower(s) as ls, s collate nocase as sc "
            "from t where color = 'green'");
  }
  Database db;
};

TEST(ViewMutationHomeSchema, BodyTablesResolveInTheViewsSchema) {
  Database db;
  db.exec("declare schema myapp { table products (id integer primary key, name text) }");
  db.exec("apply schema myapp");
  db.exec("create view myapp.product_names as select id, name from products");
  // The session path is main; the body's `products` is myapp's, for writes as for reads.
  db.exec("insert into myapp.product_names (id, name) values (4, 'Gizmo')");
  db.exec("update myapp.product_names set name = 'Gizmo II' where id = 4");
  EXPECT_EQ(rows(db, "select name from myapp.products"), "Gizmo II");
  db.exec("create table products (id integer primary key, name text)");
  db.exec("delete from myapp.product_names where id = 4");
  EXPECT_EQ(rows(db, "select count(*) from myapp.products"), "0");
}

TEST_F(ViewMutation, BaseTableTargetsAreNotLowered) {
  EXPECT_EQ(lowered(db, "update t set b = 1"), "(base table)");
}

TEST_F(ViewMutation, UpdateLowersEachColumnClassAndConjoinsThePredicate) {
  EXPECT_EQ(lowered(db, "update v set bee = 5 where id = 1"),
            "update t as t set b = 5 where t.id = 1 and color = 'green'");
  EXPECT_EQ(lowered(db, "update v set bp = 9"), "update t as t set b = 9 - 1 where color = 'green'");
  EXPECT_EQ(lowered(db, "update v set tenminus = 3"), "update t as t set b = 10 - 3 where color = 'green'");
  EXPECT_EQ(lowered(db, "update v set sc = 'x' where bp = id + 100"),
            "update t as t set s = 'x' where t.b + 1 = t.id + 100 and color = 'green'");
}

TEST_F(ViewMutation, ReturningProjectsThroughTheViewColumns) {
  EXPECT_EQ(lowered(db, "update v set bee = 1 returning bp, ls"),
            "update t as t set b = 1 where color = 'green' returning t.b + 1 as bp returning lower(t.s) as ls");
}

TEST_F(ViewMutation, DeleteConjoinsThePredicate) {
  EXPECT_EQ(lowered(db, "delete from v where bee > 2"), "delete from t as t where t.b > 2 and color = 'green'");
}

TEST_F(ViewMutation, InsertFillsPinnedColumnsFromThePredicate) {
  EXPECT_EQ(lowered(db, "insert into v (id, bee) values (1, 2)"), "insert into t (id, b, color) (1, 2, 'green')");
  EXPECT_EQ(lowered(db, "insert into v values (1, 2, 'q')"), "insert into t (id, b, s, color) (1, 2, 'q', 'green')");
}

TEST_F(ViewMutation, WritesLandInTheBaseTable) {
  db.exec("insert into v (id, bee, sc) values (1, 7, 'Hi')");
  db.exec("update v set bp = 20 where id = 1");
  EXPECT_EQ(rows(db, "select id, b, s, color from t"), "1|19|Hi|green");
  EXPECT_EQ(rows(db, "update v set tenminus = 4 where id = 1 returning bee, tenminus"), "6|4");
  db.exec("delete from v where ls = 'hi'");
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

TEST_F(ViewMutation, DiagnosticsCarryReasonViewColumnAndOperation) {
  EXPECT_EQ(reasonOf(db, "update v set ls = 'x'"), "no-inverse|v|ls|update");
  EXPECT_EQ(reasonOf(db, "insert into v (id, bp) values (1, 2)"), "no-inverse|v|bp|insert");
  EXPECT_EQ(reasonOf(db, "update v set bee = 1 where color = 'x'"), "unknown-view-column|v|color|update");
  EXPECT_EQ(reasonOf(db, "delete from v returning b"), "unknown-view-column|v|b|delete");
  EXPECT_EQ(reasonOf(db, "update v set bee = 1, bp = 2"), "conflicting-assignment|v|bp|update");
  db.exec("create view g as select id, color from t where color = 'green'");
  EXPECT_EQ(reasonOf(db, "insert into g values (1, 'blue')"), "predicate-contradiction|g|color|insert");
  db.exec("create table n (id integer primary key, req text); create view nv as select id from n");
  EXPECT_EQ(reasonOf(db, "insert into nv values (1)"), "no-default|nv|req|insert");
  EXPECT_EQ(reasonOf(db, "insert into g (id) select id from t"), "unsupported-source|g|color|insert");
}

TEST_F(ViewMutation, UnwritableBodyShapesAreRejected) {
  db.exec("create view va as select count(*) as c from t; create view vd as select distinct b from t;"
          "create view vl as select id from t limit 1; create view vv as values (1)");
  EXPECT_EQ(reasonOf(db, "delete from va"), "unsupported-aggregate|va||delete");
  EXPECT_EQ(reasonOf(db, "delete from vd"), "unsupported-distinct|vd||delete");
  EXPECT_EQ(reasonOf(db, "delete from vl"), "unsupported-limit|vl||delete");
  EXPECT_EQ(reasonOf(db, "insert into vv values (2)"), "no-base-lineage|vv||insert");
  EXPECT_EQ(reasonOf(db, "with recursive r as (select 1 as n union all select n + 1 from r where n < 3) update r set n = 0"),
            "recursive-cte|r||update");
}

TEST_F(ViewMutation, RejectedWritesChangeNothing) {
  db.exec("insert into t values (1, 1, 'a', 'green')");
  EXPECT_NE(reasonOf(db, "update v set bee = 5, bp = 6"), "");
  EXPECT_EQ(rows(db, "select b from t"), "1");
}

TEST_F(ViewMutation, CteAndSubqueryTargets) {
  db.exec("insert into t values (1, 1, 'a', 'green')");
  db.exec("with c as (select id, b as x from t) update c set x = 3 where id = 1");
  EXPECT_EQ(rows(db, "select b from t"), "3");
  db.exec("update (select id, b from t) as q set b = 4 where q.id = 1");
  EXPECT_EQ(rows(db, "select b from t"), "4");
  db.exec("with c as (select id, b from t with defaults (color = 'blue')) insert into c values (2, 9)");
  EXPECT_EQ(rows(db, "select id, b, color from t order by id"), "1|4|green;2|9|blue");
}

// Regression (stack overflow): a CTE target named like the table its body reads writes that
// real table; the body's self-named source is not the CTE itself.
TEST_F(ViewMutation, CteTargetShadowingItsOwnSourceTable) {
  db.exec("create table sbase (id integer primary key, color text); insert into sbase values (1, 'red'), (2, 'green')");
  db.exec("with sbase as (select id, color from sbase) update sbase set color = 'x' where id = 1");
  EXPECT_EQ(rows(db, "select id, color from sbase order by id"), "1|x;2|green");
  // The target's body sees its earlier siblings only: `later` is out of scope, `a` is inlined.
  db.exec("create table later (id integer primary key, color text); insert into later values (1, 'l')");
  db.exec("with x as (select id, color from later), later as (select 1 as id, 'c' as color) update x set color = 'y'");
  EXPECT_EQ(rows(db, "select color from later"), "y");
  db.exec("with a as (select id, color from sbase), sbase as (select * from a) update sbase set color = 'z' where id = 2");
  EXPECT_EQ(rows(db, "select id, color from sbase order by id"), "1|x;2|z");
  // `with recursive` alone does not make a non-recursing member unwritable.
  db.exec("with recursive r as (select 1 as n union all select n + 1 from r where n < 3), "
          "t as (select id, color from sbase) update t set color = 'r' where id = 1");
  EXPECT_EQ(rows(db, "select color from sbase where id = 1"), "r");
}

TEST(ViewDefinition, ColumnListArityAndDuplicateDefaults) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  EXPECT_THROW(db.exec("create view bad (a) as select id, x from t"), Error);
  EXPECT_THROW(db.exec("create view d as select id from t with defaults (x = 1, x = 2)"), Error);
  db.exec("create view ok (a, b) as select id, x from t");
  db.exec("insert into ok values (1, 2)");
  EXPECT_EQ(rows(db, "select id, x from t"), "1|2");
}

// ---- randomized differential test ------------------------------------------------------------

TEST(ViewMutationDifferential, RandomWritesMatchHandWrittenBaseStatements) {
  std::mt19937 rng(12345);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 40; ++round) {
    Database viaView, direct;
    std::string schema = "create table t (id integer primary key, g integer, b integer null, s text null)";
    viaView.exec(schema);
    direct.exec(schema);
    for (int id = 1; id <= 12; ++id) {
      std::string ins = "insert into t values (" + std::to_string(id) + ", " + std::to_string(pick(0, 2)) + ", " +
                        std::to_string(pick(-5, 5)) + ", 's" + std::to_string(pick(0, 3)) + "')";
      viaView.exec(ins);
      direct.exec(ins);
    }
    int64_t k = pick(-3, 3), pin = pick(0, 2);
    std::string ks = std::to_string(k), pins = std::to_string(pin);
    viaView.exec("create view v as select id as vid, b + " + ks + " as bp, s as vs from t where g = " + pins);
    for (int step = 0; step < 8; ++step) {
      int id = pick(1, 14), val = pick(-9, 9);
      std::string ids = std::to_string(id), vals = std::to_string(val);
      switch (pick(0, 3)) {
        case 0:
          viaView.exec("update v set bp = " + vals + " where vid <= " + ids);
          direct.exec("update t set b = " + vals + " - " + ks + " where id <= " + ids + " and g = " + pins);
          break;
        case 1:
          viaView.exec("update v set vs = 'u' || bp where bp > " + vals);
          direct.exec("update t set s = 'u' || (b + " + ks + ") where b + " + ks + " > " + vals + " and g = " + pins);
          break;
        case 2:
          viaView.exec("delete from v where vid = " + ids);
          direct.exec("delete from t where id = " + ids + " and g = " + pins);
          break;
        default: {
          std::string nid = std::to_string(100 + round * 10 + step);
          viaView.exec("insert into v (vid, vs) values (" + nid + ", 'n')");
          direct.exec("insert into t (id, s, g) values (" + nid + ", 'n', " + pins + ")");
        }
      }
      ASSERT_EQ(rows(viaView, "select * from t order by id"), rows(direct, "select * from t order by id"))
          << "round " << round << " step " << step;
    }
    EXPECT_EQ(rows(viaView, "select vid, bp, vs from v order by vid"),
              rows(direct, "select id, b + " + ks + ", s from t where g = " + pins + " order by id"));
  }
}

}  // namespace
}  // namespace optic

namespace optic {
namespace {

TEST(ColumnInfo, MaintainedTableColumnsTraceToTheirSourceColumns) {
  Database db;
  db.exec("create table mt (id integer primary key, v integer, name text);"
          "create materialized view m (pk, label, vp, dbl) as select id, name, v + 1, v * 2 from mt");
  EXPECT_EQ(testing_sql::rows(db, "select name, column_name, is_updatable, base_table, base_column from column_info('m')"),
            "m|pk|YES|mt|id;m|label|YES|mt|name;m|vp|YES|mt|v;m|dbl|NO|null|null");
}

}  // namespace
}  // namespace optic
