// View write-through tests (core/planner/views/view_mutation.h and friends): the base statement a
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
#include "core/planner/views/view_mutation.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
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
  // The lowered target row is named by the synthesised __vm_self, never a user-visible name.
  EXPECT_EQ(lowered(db, "update v set bee = 5 where id = 1"),
            "update t as __vm_self set b = 5 where __vm_self.id = 1 and __vm_self.color = 'green'");
  EXPECT_EQ(lowered(db, "update v set bp = 9"), "update t as __vm_self set b = 9 - 1 where __vm_self.color = 'green'");
  EXPECT_EQ(lowered(db, "update v set tenminus = 3"),
            "update t as __vm_self set b = 10 - 3 where __vm_self.color = 'green'");
  EXPECT_EQ(lowered(db, "update v set sc = 'x' where bp = id + 100"),
            "update t as __vm_self set s = 'x' where __vm_self.b + 1 = __vm_self.id + 100 and __vm_self.color = 'green'");
}

TEST_F(ViewMutation, ReturningProjectsThroughTheViewColumns) {
  EXPECT_EQ(lowered(db, "update v set bee = 1 returning bp, ls"),
            "update t as __vm_self set b = 1 where __vm_self.color = 'green' returning __vm_self.b + 1 as bp "
            "returning lower(__vm_self.s) as ls");
}

TEST_F(ViewMutation, DeleteConjoinsThePredicate) {
  EXPECT_EQ(lowered(db, "delete from v where bee > 2"),
            "delete from t as __vm_self where __vm_self.b > 2 and __vm_self.color = 'green'");
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

// An omitted NOT NULL column nothing supplies fails as the base table's NOT NULL constraint would,
// saying why the view could not fill it, and writes nothing.
TEST_F(ViewMutation, UnsuppliedNotNullColumnNamesTheBaseConstraint) {
  db.exec("create table nn (id integer primary key, name text, created integer not null)");
  db.exec("create view nnv as select id, name from nn");
  EXPECT_EQ(errorOf(db, "insert into nnv values (3, 'c')"),
            "cannot insert through view 'nnv': NOT NULL constraint failed: nn.created (base column "
            "'nn.created' is NOT NULL with no default and no value supplied through the view)");
  EXPECT_EQ(reasonOf(db, "insert into nnv values (3, 'c')"), "no-default|nnv|created|insert");
  EXPECT_EQ(rows(db, "select count(*) from nn"), "0");
  db.exec("create view nnd as select id, name from nn with defaults (created = 7)");
  db.exec("insert into nnd values (3, 'c')");
  EXPECT_EQ(rows(db, "select id, name, created from nn"), "3|c|7");
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

// ---- lineage terms re-pointed at the lowered target row (views.md §2.2) ---------------------

// A view whose `note` is a correlated scalar subquery over another table.
class ViewLineage : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table base (id integer primary key, k integer, lbl text);"
            "create table oth (k integer, fk integer, x text);"
            "create table src (id integer, tag text);"
            "insert into base values (1, 10, 'A'), (2, 20, 'B');"
            "insert into oth values (0, 1, 'Q'), (1, 1, 'AA'), (1, 2, 'BB');"
            "insert into src values (99, 'AA');"
            "create view cv as select id, lbl, (select x from oth where fk = id and k = 1) as note from base");
  }
  // `sql` lowers to `base`, and leaves the base rows (id|k|lbl) `after`.
  void expectWrite(const std::string& sql, const std::string& base, const std::string& after) {
    EXPECT_EQ(lowered(db, sql), base);
    db.exec(sql);
    EXPECT_EQ(rows(db, "select id, k, lbl from base order by id"), after);
  }
  Database db;
};

TEST_F(ViewLineage, ACorrelationInsideTheLineageSubqueryIsQualifiedToTheTargetRow) {
  // `src` also has an `id`: the lineage's bare `id` must not re-bind to it; its own `fk` and `k`
  // (columns its own FROM provides, `k` although the base has one too) stay local.
  expectWrite("update cv set lbl = 'C' where exists (select 1 from src where tag = note)",
              "update base as __vm_self set lbl = 'C' where exists (select 1 from src where tag = (select x from oth "
              "where fk = __vm_self.id and k = 1))",
              "1|10|C;2|20|B");
  // The delete lowering threads the same qualifier.
  expectWrite("delete from cv where exists (select 1 from src where tag = note)",
              "delete from base as __vm_self where exists (select 1 from src where tag = (select x from oth where fk = "
              "__vm_self.id and k = 1))",
              "2|20|B");
}

TEST_F(ViewLineage, ReturningReadsTheLineageOfTheOldAndNewRow) {
  // `new.note` / `old.note` re-point the lineage's nested correlation at that row image.
  db.exec("delete from base where id = 2");
  EXPECT_EQ(rows(db, "update cv set id = 2, lbl = 'Z' where id = 1 returning old.note, new.note, note"), "AA|BB|BB");
  EXPECT_EQ(rows(db, "delete from cv returning old.note"), "BB");
}

TEST_F(ViewLineage, NamesTheLineagesOwnSourcesProvideStayLocal) {
  // Negative control: a user FROM without `id` — nothing is over-qualified.
  db.exec("create table ok (tag text); insert into ok values ('BB')");
  db.exec("update cv set lbl = 'OK' where exists (select 1 from ok where tag = note)");
  EXPECT_EQ(rows(db, "select id, lbl from base order by id"), "1|A;2|OK");
}

TEST_F(ViewLineage, AUserSubqueryOverTheSameBaseTableCorrelatesToTheOuterRow) {
  db.exec("create view rv as select id, k, lbl as note from base; insert into base values (3, 30, 'A')");
  // The inner `base` would capture a `base.lbl` qualifier; __vm_self names the outer row.
  expectWrite("update rv set k = 0 where exists (select 1 from base where base.id = 1 and base.lbl = note)",
              "update base as __vm_self set k = 0 where exists (select 1 from base where base.id = 1 and base.lbl = "
              "__vm_self.lbl)",
              "1|0|A;2|20|B;3|0|A");
  expectWrite("update rv set k = 5 where 'B' in (select base.lbl from base where base.lbl = note)",
              "update base as __vm_self set k = 5 where 'B' in (select base.lbl from base where base.lbl = "
              "__vm_self.lbl)",
              "1|0|A;2|5|B;3|0|A");
  EXPECT_EQ(rows(db, "update rv set k = 7 where id = 1 returning (select count(*) from base where base.lbl = note) as c"),
            "2");
  db.exec("delete from rv where exists (select 1 from base where base.id = 2 and base.lbl = note)");
  EXPECT_EQ(rows(db, "select id from base order by id"), "1;3");
}

TEST_F(ViewLineage, ABodyQualifierIsRepointedUnlessTheFragmentsOwnFromBindsIt) {
  // `base.id` inside the lineage correlates out (re-pointed); inside `pin` the subquery FROMs
  // `base` itself, so its `base.` stays local. The body's WHERE is re-pointed the same way (a
  // schema-qualified reference too).
  db.exec("create view qv as select id, k, (select x from oth where oth.fk = base.id and oth.k = 1) as note,"
          " (select base.lbl from base where base.id = 2) as pin from base where main.base.k < 100");
  expectWrite("update qv set k = 1 where note = 'AA' and pin = 'B'",
              "update base as __vm_self set k = 1 where (select x from oth where oth.fk = __vm_self.id and oth.k = 1) = "
              "'AA' and (select base.lbl from base where base.id = 2) = 'B' and __vm_self.k < 100",
              "1|1|A;2|20|B");
}

TEST_F(ViewLineage, AnUnresolvableSourceInsideTheLineageIsRejected) {
  db.exec("create view tv as select id, lbl, (select x from (select * from oth) as o where o.fk = id) as note from base");
  EXPECT_EQ(reasonOf(db, "update tv set lbl = 'X' where exists (select 1 from src where tag = note)"),
            "unsupported-subquery-correlation|tv|note|update");
  EXPECT_EQ(rows(db, "select lbl from base order by id"), "A;B");
}

TEST_F(ViewMutation, ACteTargetsOwnClausesReadItsBodyAsBeforeTheWrite) {
  db.exec("insert into t values (1, 1, 'a', 'green'), (2, 2, 'b', 'green')");
  // Key-mutating self-read: the rows are found before any is changed, so none feeds back.
  db.exec("with c as (select id, b from t) update c set id = id + 10 where id in (select id from c)");
  EXPECT_EQ(rows(db, "select id from t order by id"), "11;12");
  // The CTE named like its source: the lowered target is the schema-qualified real table, and
  // `t.id` in the user's subquery is the CTE's column (23 = 11 + 12), not the target row's.
  const std::string sql = "with t as (select id, b from t) update t set b = (select sum(t.id) from t) where id = 11";
  auto stmts = parseSql(sql);
  Binder binder(db.engine());
  std::unique_ptr<ast::Statement> out = lowerViewUpdate(binder, *stmts[0]->update);
  EXPECT_EQ(out->update->table.schema + "." + out->update->table.name, "main.t");
  ASSERT_TRUE(out->update->with);
  EXPECT_EQ(out->update->with->ctes.at(0).name, "t");
  db.exec(sql);
  EXPECT_EQ(rows(db, "select id, b from t order by id"), "11|23;12|2");
  // A later sibling is outside the target's scope, for the body and the user's clauses alike.
  db.exec("delete from t where id = 12");
  db.exec("with c as (select id, b from t), t as (select 99 as id) update c set b = (select max(id) from t)");
  EXPECT_EQ(rows(db, "select id, b from t order by id"), "11|11");
  // A join-bodied CTE keeps no snapshot of itself: its self-read cannot be proven correlated.
  db.exec("create table p (pid integer primary key, label text); insert into p values (11, 'x')");
  EXPECT_EQ(reasonOf(db, "with j as (select t.id as id, p.label as label from t join p on p.pid = t.id) "
                         "update j set label = 'y' where id in (select id from j)"),
            "unsupported-subquery-correlation|j|id|update");
  EXPECT_EQ(rows(db, "select label from p"), "x");
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
