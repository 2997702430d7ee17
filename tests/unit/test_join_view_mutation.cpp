// Writes through multi-source (join) view bodies (core/planner/views/join_mutation.h, views.md §2.5):
// per-side routing of UPDATE, the DELETE side rules, INSERT with a supplied or minted shared
// key, the cardinality proof for cross-source SET values (a partial UNIQUE proves nothing),
// RETURNING against post-mutation state, the structured rejections, and a randomized
// differential test against hand-written base statements.
#include <gtest/gtest.h>

#include <random>

#include "core/api/database.h"
#include "core/common/value_ops.h"
#include "core/planner/mutation_diagnostic.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::reasonOf;
using testing_sql::rows;

class JoinViewMutation : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table p (pid integer primary key, label text);"
            "create table c (cid integer primary key, pref integer references p(pid), note text);"
            "insert into p values (10, 'P10'), (20, 'P20');"
            "insert into c values (1, 10, 'a'), (2, 10, 'b'), (3, 20, 'c');"
            "create view jv as select c.cid as cid, c.note as note, p.label as label "
            "from c join p on p.pid = c.pref");
  }
  Database db;
};

// Two tables that reference each other, joined along one reference: a view delete fans out to
// both, in the order their ON DELETE actions allow, or is refused when no order works.
void mutualPair(Database& db, const std::string& p, const char* onA, const char* onB, const char* joinOn) {
  db.exec("create table " + p + "a (aid integer primary key, lbl text, bref integer null, foreign key (bref) references " +
          p + "b(bid) on delete " + onB + ");"
          "create table " + p + "b (bid integer primary key, lbl text, aref integer null, foreign key (aref) references " +
          p + "a(aid) on delete " + onA + ");"
          "insert into " + p + "a values (1, 'x', null), (2, 'y', null);"
          "insert into " + p + "b values (10, 'x', null), (20, 'y', null);"
          "update " + p + "a set bref = 10 where aid = 1; update " + p + "a set bref = 20 where aid = 2;"
          "update " + p + "b set aref = 1 where bid = 10; update " + p + "b set aref = 2 where bid = 20;"
          "create view " + p + "v as select a.aid as aid, b.bid as bid from " + p + "a a join " + p + "b b on " + joinOn);
}

TEST(JoinViewMutualForeignKeys, SetNullLetsItsSideGoFirstInEitherDirection) {
  Database db;
  // Deleting i_a fires RESTRICT on i_b's reference; deleting i_b fires SET NULL on i_a's: i_b first.
  mutualPair(db, "i_", "restrict", "set null", "b.aref = a.aid");
  db.exec("delete from i_v where aid = 1");
  EXPECT_EQ(rows(db, "select aid, bref from i_a"), "2|20");
  EXPECT_EQ(rows(db, "select bid, aref from i_b"), "20|2");
  mutualPair(db, "j_", "set null", "restrict", "b.aref = a.aid");  // the mirror: j_a first
  db.exec("delete from j_v where aid = 1");
  EXPECT_EQ(rows(db, "select aid from j_a"), "2");
  EXPECT_EQ(rows(db, "select bid from j_b"), "20");
}

TEST(JoinViewMutualForeignKeys, TwoCascadesDeleteInBodyOrder) {
  Database db;
  mutualPair(db, "c_", "cascade", "cascade", "b.aref = a.aid");
  db.exec("delete from c_v where aid = 1");
  EXPECT_EQ(rows(db, "select aid from c_a"), "2");
  EXPECT_EQ(rows(db, "select bid from c_b"), "20");
}

TEST(JoinViewMutualForeignKeys, NoSatisfiableOrderIsRefusedBeforeAnyWrite) {
  Database db;
  mutualPair(db, "g_", "restrict", "cascade", "b.aref = a.aid");
  EXPECT_EQ(reasonOf(db, "delete from g_v where aid = 1"), "mutual-fk-restrict-delete|g_v||delete");
  EXPECT_NE(testing_sql::errorOf(db, "delete from g_v where aid = 1").find("mutual foreign key"), std::string::npos);
  EXPECT_EQ(rows(db, "select aid, bref from g_a"), "1|10;2|20");
  mutualPair(db, "h_", "restrict", "restrict", "a.aid = b.aref");  // either way round in ON
  EXPECT_EQ(reasonOf(db, "delete from h_v where aid = 1"), "mutual-fk-restrict-delete|h_v||delete");
}

TEST(JoinViewMutualForeignKeys, AJoinThatFollowsNeitherReferenceLeavesItToTheRuntimeChecks) {
  Database db;
  // Joined on a label, the rows need not reference each other: no plan-time refusal. Here they do,
  // so the runtime RESTRICT refuses; with the references cleared the same delete succeeds.
  mutualPair(db, "k_", "restrict", "restrict", "a.lbl = b.lbl");
  EXPECT_NE(testing_sql::errorOf(db, "delete from k_v where aid = 1").find("FOREIGN KEY constraint failed"), std::string::npos);
  db.exec("update k_a set bref = null; update k_b set aref = null; delete from k_v where aid = 1");
  EXPECT_EQ(rows(db, "select aid from k_a"), "2");
  EXPECT_EQ(rows(db, "select bid from k_b"), "20");
}

TEST_F(JoinViewMutation, UpdateRoutesEachColumnToItsOwningSide) {
  db.exec("update jv set note = 'A' where cid = 1");
  EXPECT_EQ(rows(db, "select cid, note from c order by cid"), "1|A;2|b;3|c");
  EXPECT_EQ(rows(db, "select pid, label from p order by pid"), "10|P10;20|P20");
  // The parent's key is hidden by the projection: the row is identified through the join.
  db.exec("update jv set label = 'X' where cid = 3");
  EXPECT_EQ(rows(db, "select pid, label from p order by pid"), "10|P10;20|X");
}

TEST(JoinViewGeneratedColumn, ASidesGeneratedColumnIsReadOnly) {
  Database db;
  db.exec("create table gp (pp integer primary key, base integer null, pv integer generated always as (base * 2))");
  db.exec("create table gc (cc integer primary key, pr integer null, cv integer null)");
  db.exec("create view gv as select c.cc as cc, c.cv as cv, p.pv as pv, p.base as base "
          "from gc c left join gp p on p.pp = c.pr");
  db.exec("insert into gp (pp, base) values (1, 10)");
  db.exec("insert into gc values (1, 1, 100)");
  EXPECT_EQ(reasonOf(db, "update gv set pv = 777 where cc = 1"), "no-inverse|gv|pv|update");
  db.exec("update gv set base = 50 where cc = 1");
  EXPECT_EQ(rows(db, "select pv, base from gv"), "100|50");
}

TEST(JoinViewNullKey, NullKeyedSideIsAddressedAndTheMatchFlagPartitions) {
  Database db;
  db.exec("create table jp (pp integer null primary key, jk integer null, pv integer null)");
  db.exec("create table jc (cc integer primary key, pr integer null, cv integer null)");
  db.exec("create view jv as select c.cc as cc, c.cv as cv, p.pv as pv from jc c join jp p on p.jk = c.pr");
  db.exec("insert into jp values (null, 7, 10)");
  db.exec("insert into jc values (1, 7, 100)");
  db.exec("update jv set pv = 42 where cc = 1");
  EXPECT_EQ(rows(db, "select pp, pv from jp"), "null|42");
  // Left join: the NULL-keyed partner of cc=1 is updated in place; cc=2 has none and mints one.
  db.exec("create table lp (pp integer null primary key default (coalesce((select max(pp) from lp), 0) + 1),"
          " jk integer null, pv integer null)");
  db.exec("create table lc (cc integer primary key, pr integer null, cv integer null)");
  db.exec("create view lv as select c.cc as cc, c.cv as cv, p.pv as pv from lc c left join lp p on p.jk = c.pr");
  db.exec("insert into lp (pp, jk, pv) values (null, 7, 10)");
  db.exec("insert into lc values (1, 7, 100), (2, 8, 200)");
  db.exec("update lv set pv = 99 where cc = 1");
  db.exec("update lv set pv = 55 where cc = 2");
  EXPECT_EQ(rows(db, "select jk, pv from lp order by jk"), "7|99;8|55");
}

TEST(JoinViewInsert, AnchorKeyDefaultsSeeThePreStatementState) {
  Database db;
  db.exec("create table u_core (rid integer primary key default (coalesce((select max(rid) from u_core), 0) + "
          "mutation_ordinal()), name text)");
  db.exec("create table u_contact (rid integer primary key, email text)");
  db.exec("create view appuser as select c.name as name, k.email as email from u_core c join u_contact k on k.rid = c.rid");
  db.exec("insert into appuser (name, email) values ('Ada', 'a'), ('Lin', 'l')");
  db.exec("insert into appuser (name, email) values ('Bo', 'b'), ('Cy', 'c')");
  EXPECT_EQ(rows(db, "select rid, name from u_core order by rid"), "1|Ada;2|Lin;3|Bo;4|Cy");
  EXPECT_EQ(rows(db, "select rid, email from u_contact order by rid"), "1|a;2|l;3|b;4|c");
  // A plain multi-row insert still writes incrementally: the second row sees the first.
  db.exec("insert into u_core (name) values ('x'), ('y')");
  EXPECT_EQ(rows(db, "select rid from u_core where name in ('x', 'y') order by rid"), "5;7");
}

TEST(JoinViewInsert, ASideDefaultReadsASiblingAnotherSideSupplies) {
  Database db;
  db.exec("create table xp (pp integer primary key, pv integer null);"
          "create table xc (cc integer primary key, pr integer null references xp(pp), cv integer null,"
          " derived integer not null default (new.pv * 10 + coalesce(new.cv, 0)), own integer null default (new.cv + 1));"
          "create view xv as select c.cc as cc, c.pr as pr, c.cv as cv, p.pv as pv from xc c join xp p on p.pp = c.pr");
  // `new.pv` is the parent side's supplied column; `new.cv` the child's own. Each row reads its own.
  // The same threading holds for a query source (read from the capture).
  db.exec("insert into xv (cc, pr, cv, pv) values (1, 100, 1, 7), (2, 200, null, 3)");
  db.exec("insert into xv (cc, pr, cv, pv) select 3, 300, 5, 9");
  EXPECT_EQ(rows(db, "select cc, cv, derived, own from xc order by cc"), "1|1|71|2;2|null|30|null;3|5|95|6");
  // A DEFAULT is bound only by a write that can run it: supplying `derived` directly (or an
  // UPDATE) never reads the cross-side name; omitting it on the base table does, and fails.
  db.exec("insert into xp values (400, 1); insert into xc (cc, pr, cv, derived) values (4, 400, 0, 44);"
          "update xc set cv = 6 where cc = 4");
  EXPECT_EQ(rows(db, "select cv, derived from xc where cc = 4"), "6|44");
  EXPECT_NE(testing_sql::errorOf(db, "insert into xc (cc, pr, cv) values (5, 400, 0)").find("new.pv"), std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from xc"), "4");
}

TEST_F(JoinViewMutation, UpdateOfBothSidesUsesKeysCapturedBeforeAnyWrite) {
  // The predicate reads the column the parent op rewrites; the child op still finds its rows.
  db.exec("update jv set label = 'Q', note = 'z' where label = 'P10'");
  EXPECT_EQ(rows(db, "select cid, note from c order by cid"), "1|z;2|z;3|c");
  EXPECT_EQ(rows(db, "select pid, label from p order by pid"), "10|Q;20|P20");
}

TEST_F(JoinViewMutation, ReturningSeesThePostMutationJoin) {
  EXPECT_EQ(rows(db, "update jv set label = 'N' where cid = 2 returning cid, note, label"), "2|b|N");
  // Delete returns the pre-mutation image of the removed rows.
  EXPECT_EQ(rows(db, "delete from jv where cid = 3 returning cid, label"), "3|P20");
}

TEST_F(JoinViewMutation, DeleteRemovesOnlyTheForeignKeyChildSide) {
  db.exec("delete from jv where cid = 2");
  EXPECT_EQ(rows(db, "select cid from c order by cid"), "1;3");
  EXPECT_EQ(rows(db, "select pid from p order by pid"), "10;20");
}

TEST_F(JoinViewMutation, InsertThreadsASuppliedSharedKey) {
  db.exec("create table a (k integer primary key, av integer);"
          "create table b (k integer primary key references a(k), bv integer);"
          "create view ab as select a.k as k, a.av as av, b.bv as bv from a join b on b.k = a.k");
  db.exec("insert into ab values (7, 70, 700)");
  EXPECT_EQ(rows(db, "select k, av from a"), "7|70");
  EXPECT_EQ(rows(db, "select k, bv from b"), "7|700");
}

TEST_F(JoinViewMutation, InsertSelectRunsTheSourceOnceAndInsertsEverySide) {
  db.exec("create table a (k integer primary key, av integer);"
          "create table b (k integer primary key references a(k), bv integer);"
          "create table log (id integer primary key, k integer);"
          "create table src (k integer primary key, n integer);"
          "insert into src values (1, 10), (2, 20), (3, 30);"
          "create view ab as select a.k as k, a.av as av, b.bv as bv from a join b on b.k = a.k");
  db.exec("insert into ab (k, av, bv) select k, n, n * 10 from src where k < 3");
  EXPECT_EQ(rows(db, "select k, av, bv from ab order by k"), "1|10|100;2|20|200");
  // A data-modifying CTE feeding the source writes once, not once per view side.
  db.exec("with d as (insert into log values (1, 3) returning k) insert into ab select k, 0, 1 from d");
  EXPECT_EQ(rows(db, "select id, k from log"), "1|3");
  EXPECT_EQ(rows(db, "select k, av, bv from ab where k = 3"), "3|0|1");
  // A source whose width differs from the column list is refused, writing nothing.
  EXPECT_NE(testing_sql::errorOf(db, "insert into ab (k, av, bv) select k, n from src").find("Column count mismatch"),
            std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from a"), "3");
}

TEST_F(JoinViewMutation, InsertSelectThatMustMintTheSharedKeyIsRefused) {
  // The anchor default runs for every row before any write (views.md §2.5): the ordinal tells rows apart.
  db.exec("create table a (k integer primary key default (coalesce((select max(k) from a), 0) + mutation_ordinal()), av integer);"
          "create table b (k integer primary key references a(k), bv integer);"
          "create view ab as select a.av as av, b.bv as bv from a join b on b.k = a.k");
  EXPECT_EQ(reasonOf(db, "insert into ab select 1, 2"), "unsupported-source|ab||insert");
  EXPECT_EQ(rows(db, "select count(*) from a"), "0");
}

TEST_F(JoinViewMutation, InsertMintsTheSharedKeyOncePerRowFromTheAnchorDefault) {
  // The anchor default runs for every row before any write (views.md §2.5): the ordinal tells rows apart.
  db.exec("create table a (k integer primary key default (coalesce((select max(k) from a), 0) + mutation_ordinal()), av integer);"
          "create table b (k integer primary key references a(k), bv integer);"
          "create table d (k integer primary key references a(k), dv integer);"
          "create view abd as select a.k as k, a.av as av, b.bv as bv, d.dv as dv "
          "from a join b on b.k = a.k join d on d.k = a.k");
  db.exec("insert into abd (av, bv, dv) values (1, 2, 3), (4, 5, 6)");
  EXPECT_EQ(rows(db, "select k, av, bv, dv from abd order by k"), "1|1|2|3;2|4|5|6");
  EXPECT_EQ(rows(db, "select count(*) from b"), "2");
  // Without a default on any member of the key class the insert is refused, writing nothing.
  db.exec("create table x (k integer primary key, xv integer);"
          "create table y (k integer primary key references x(k), yv integer);"
          "create view xy as select x.xv as xv, y.yv as yv from x join y on y.k = x.k");
  EXPECT_EQ(reasonOf(db, "insert into xy values (1, 2)"), "no-default|xy|k|insert");
  EXPECT_EQ(rows(db, "select count(*) from x"), "0");
}

TEST_F(JoinViewMutation, CrossSourceSetNeedsAProvenSinglePartner) {
  db.exec("create table pp (pid integer primary key, pcode integer, pv integer);"
          "create table cc (cid integer primary key, cref integer, cv integer);"
          "create unique index ux on pp(pcode) where pv > 0;"
          "insert into pp values (1, 500, 100), (2, 500, -5);"
          "insert into cc values (1, 500, 1);"
          "create view pv as select cc.cid as cid, cc.cv as cv, pp.pv as pv from cc join pp on pp.pcode = cc.cref");
  // The partial UNIQUE allows both pcode=500 rows and proves nothing about the join.
  EXPECT_EQ(reasonOf(db, "update pv set cv = pv where cid = 1"), "cross-source-ambiguous-cardinality|pv|cv|update");
  EXPECT_EQ(rows(db, "select cv from cc"), "1");
  // A partner pinned by its primary key is single-valued.
  db.exec("update jv set note = label where cid = 1");
  EXPECT_EQ(rows(db, "select note from c where cid = 1"), "P10");
}

TEST_F(JoinViewMutation, RejectionsCarryTheirReason) {
  EXPECT_EQ(reasonOf(db, "insert into jv (cid, note) values (9, 'n') returning cid"), "returning-through-view|jv||insert");
  // A join below another level (view or CTE chain) is refused before any write.
  db.exec("create view over_jv as select cid, note from jv");
  EXPECT_EQ(reasonOf(db, "update over_jv set note = 'x' where cid = 1"), "nested-view|over_jv||update");
  EXPECT_EQ(reasonOf(db, "with a as (select c.cid as cid from c join p on p.pid = c.pref), t as (select * from a) "
                         "delete from t where cid = 1"),
            "nested-view|t||delete");
  EXPECT_EQ(rows(db, "select note from c where cid = 1"), "a");
  db.exec("create view lj as select p.pid as pid, c.note as note from p left join c on c.pref = p.pid");
  EXPECT_EQ(reasonOf(db, "insert into lj (note) values ('x')"), "null-extended-create-conflict|lj||insert");
  EXPECT_EQ(rows(db, "select count(*) from c"), "3");
}

// Existence flags of an outer join body are writable booleans (views.md §2.5).
class ExistenceFlagWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table ep (pid integer primary key, lbl text null);"
            "create table ec (cid integer primary key, pref integer null, note text null,"
            " foreign key (pref) references ep(pid) on delete cascade);"
            "insert into ep values (10, 'P10'), (20, 'P20');"
            "insert into ec values (1, 10, 'a'), (2, 20, 'b');"
            "create view ev as select c.cid as cid, c.pref as pref, p.lbl as lbl, hasP "
            "from ec c left join ep p on p.pid = c.pref exists right as hasP;"
            // No foreign key: a child may name a parent that does not exist yet.
            "create table fp (pid integer primary key, lbl text null);"
            "create table fc (cid integer primary key, pref integer);"
            "insert into fp values (10, 'P10');"
            "insert into fc values (1, 10), (2, 30), (3, 40);"
            "create view fv as select c.cid as cid, p.lbl as lbl, hasP "
            "from fc c left join fp p on p.pid = c.pref exists right as hasP");
  }
  Database db;
};

TEST_F(ExistenceFlagWrite, FalseDeletesTheMatchedPartner) {
  db.exec("update ev set hasP = false where cid = 1");
  EXPECT_EQ(rows(db, "select pid from ep order by pid"), "20");
  EXPECT_EQ(rows(db, "select cid from ec order by cid"), "2");  // the cascade took the child
  db.exec("update fv set hasP = false where cid = 2");           // no partner: nothing to delete
  EXPECT_EQ(rows(db, "select pid from fp order by pid"), "10");
}

TEST_F(ExistenceFlagWrite, TrueMaterialisesTheMissingPartnerFromTheJoinKey) {
  db.exec("update fv set hasP = true where cid in (1, 2)");  // cid 1 is matched: untouched
  EXPECT_EQ(rows(db, "select pid, lbl from fp order by pid"), "10|P10;30|null");
  db.exec("update fv set hasP = true, lbl = 'L' where cid = 3");
  EXPECT_EQ(rows(db, "select cid, lbl, hasP from fv order by cid"), "1|P10|true;2|null|true;3|L|true");
}

TEST_F(ExistenceFlagWrite, InsertRoutesByTheSuppliedFlag) {
  db.exec("insert into ev (cid, pref, hasP) values (4, null, false)");
  db.exec("insert into ev (cid, pref, lbl, hasP) values (5, 50, 'L5', true)");
  EXPECT_EQ(rows(db, "select cid, pref from ec where cid > 3 order by cid"), "4|null;5|50");
  EXPECT_EQ(rows(db, "select pid, lbl from ep order by pid"), "10|P10;20|P20;50|L5");
}

TEST_F(ExistenceFlagWrite, RejectionsCarryTheirReasonAndChangeNothing) {
  EXPECT_EQ(reasonOf(db, "update ev set hasP = 1 = 1 where cid = 1"), "no-inverse|ev|hasP|update");
  EXPECT_EQ(reasonOf(db, "update ev set hasP = false, lbl = 'x' where cid = 1"), "conflicting-assignment|ev|hasP|update");
  EXPECT_EQ(reasonOf(db, "insert into ev (cid, hasP) values (6, true), (7, false)"), "unsupported-multisource-insert|ev|hasP|insert");
  EXPECT_EQ(reasonOf(db, "insert into ev (cid, lbl, hasP) values (6, 'x', false)"), "conflicting-assignment|ev|hasP|insert");
  EXPECT_EQ(rows(db, "select count(*) from ep"), "2");
  EXPECT_EQ(rows(db, "select count(*) from ec"), "2");
}

// views.md §2.3 through a join: an omitted column the body's WHERE pins takes the constant (also
// a NOT NULL column without a default, and from a SELECT source); a contradicting literal is
// refused before any write, on the base column a renamed view column writes.
TEST(JoinViewInsertSelection, PinnedColumnsTakeTheirConstantAndContradictionsAreRefused) {
  Database db;
  db.exec("create table s1 (id integer primary key, x integer null, color text not null, region text not null);"
          "create table s2 (id integer primary key, y integer null);"
          "create view sv as select s1.id as id, s1.x as x from s1 join s2 on s1.id = s2.id "
          "where s1.color = 'red' and s1.region = 'west';"
          "create view sc as select s1.id as id, s1.color as hue from s1 join s2 on s1.id = s2.id "
          "where s1.color = 'red' and s1.region = 'west'");
  db.exec("insert into sv (id, x) values (5, 50)");
  db.exec("insert into sv (id, x) select 6, 60");
  EXPECT_EQ(rows(db, "select id, x, color, region from s1 order by id"), "5|50|red|west;6|60|red|west");
  EXPECT_EQ(rows(db, "select id, y from s2 order by id"), "5|null;6|null");
  EXPECT_EQ(rows(db, "select id from sv order by id"), "5;6");
  EXPECT_EQ(reasonOf(db, "insert into sc (id, hue) values (7, 'red'), (8, 'blue')"), "predicate-contradiction|sc|color|insert");
  EXPECT_EQ(rows(db, "select count(*) from s1 where id in (7, 8)"), "0");
  db.exec("insert into sc (id, hue) values (9, 'red')");
  EXPECT_EQ(rows(db, "select color, region from s1 where id = 9"), "red|west");
}

// An outer join's σ on its null-extendable side applies only when that side is inserted.
TEST(JoinViewInsertSelection, NullExtendableSidePinnedOnlyWhenInserted) {
  Database db;
  db.exec("create table op (pp integer primary key default (coalesce((select max(pp) from op), 0) + mutation_ordinal()), "
          "pv integer null, kind text not null);"
          "create table oc (cc integer primary key, pr integer null references op(pp), cv integer null);"
          "create view ov as select c.cc as cc, c.cv as cv, p.pv as pv from oc c left join op p on p.pp = c.pr "
          "where p.kind = 'gold'");
  db.exec("insert into ov (cc, cv, pv) values (3, 33, 333)");
  db.exec("insert into ov (cc, cv) values (4, 44)");
  EXPECT_EQ(rows(db, "select pv, kind from op"), "333|gold");
  EXPECT_EQ(rows(db, "select cc, cv, pv from ov"), "3|33|333");
  EXPECT_EQ(rows(db, "select cc, pr is null from oc order by cc"), "3|false;4|true");
}

// A null-extendable side given only NULLs is absent: no partner row, no minted key threaded, a
// supplied key kept (the child joins the partner that already exists).
TEST(JoinViewInsertPresence, AllNullPartnerIsNotCreated) {
  Database db;
  db.exec("pragma foreign_keys = true;"
          "create table gp (pp integer primary key default (coalesce((select max(pp) from gp), 0) + mutation_ordinal()), "
          "pv integer null);"
          "create table gc (cc integer primary key, pr integer null references gp(pp), cv integer null);"
          "create view gv as select c.cc as cc, c.cv as cv, p.pv as pv from gc c left join gp p on p.pp = c.pr;"
          "create view gk as select c.cc as cc, c.pr as k, c.cv as cv, p.pv as pv from gc c left join gp p on p.pp = c.pr");
  db.exec("insert into gv (cc, cv, pv) values (5, 55, null)");
  EXPECT_EQ(rows(db, "select count(*) from gp"), "0");
  db.exec("insert into gv (cc, cv, pv) values (6, 66, null), (7, 77, 777)");
  EXPECT_EQ(rows(db, "select pp, pv from gp"), "1|777");
  EXPECT_EQ(rows(db, "select cc, pr from gc order by cc"), "5|null;6|null;7|1");
  db.exec("insert into gk (cc, k, cv, pv) values (8, 1, 88, null)");
  EXPECT_EQ(rows(db, "select cc, cv, pv from gv where cc = 8"), "8|88|777");
  EXPECT_EQ(rows(db, "select count(*) from gp"), "1");
  db.exec("insert into gk (cc, k, cv, pv) select 9, 1, 99, null");
  EXPECT_EQ(rows(db, "select cc, k, pv from gk where cc = 9"), "9|1|777");
  EXPECT_EQ(rows(db, "select count(*) from gp"), "1");
}

// One child column referencing two inserted parents would need two keys at once: refused
// from the schema, whatever the foreign_keys pragma, before any write.
TEST(JoinViewInsertPresence, OneColumnReferencingTwoInsertedParentsIsRefused) {
  Database db;
  db.exec("create table m1 (pp integer primary key, pv integer null);"
          "create table m2 (qq integer primary key, qv integer null);"
          "create table mc (c integer primary key, pr integer null references m1(pp) references m2(qq), cv integer null);"
          "create view mv as select x.c as c, x.cv as cv, a.pv as pv, b.qv as qv "
          "from mc x left join m1 a on a.pp = x.pr left join m2 b on b.qq = x.pr");
  EXPECT_EQ(reasonOf(db, "insert into mv (c, cv, pv, qv) values (3, 300, 30, 40)"),
            "unsupported-multisource-insert|mv|pr|insert");
  EXPECT_EQ(rows(db, "select (select count(*) from m1) + (select count(*) from m2) + (select count(*) from mc)"), "0");
}

// An outer join's null-extended rows on one dangling key create their partner once; a NULL key
// creates none; RETURNING finds the rows whose partner the write created (and the still
// null-extended ones).
TEST(JoinViewUpdateMaterialization, OnePartnerPerDanglingKeyAndReturningSeesIt) {
  Database db;
  db.exec("create table fp (pp integer primary key, pv integer null);"
          "create table fc (cc integer primary key, pr integer null, cv integer null);"
          "create view fv as select c.cc as cc, c.cv as cv, p.pv as pv from fc c left join fp p on p.pp = c.pr;"
          "create view rv as select p.pv as pv, c.cc as cc from fp p right join fc c on p.pp = c.pr;"
          "insert into fc values (6, 99, 60), (7, 99, 70), (8, null, 80)");
  EXPECT_EQ(rows(db, "update fv set pv = 7 where cc in (6, 7, 8) returning cc, pv"), "6|7;7|7;8|null");
  EXPECT_EQ(rows(db, "select pp, pv from fp"), "99|7");
  db.exec("delete from fp; insert into fc values (9, 42, 90), (10, 42, 100)");
  db.exec("update rv set pv = 5 where cc in (9, 10)");
  EXPECT_EQ(rows(db, "select pp, pv from fp"), "42|5");
  EXPECT_EQ(rows(db, "select count(*) from fp where pp is null"), "0");
}

// A side's DEFAULT reading `new.x` for a view column another side carries sees the produced
// view row, per row (VALUES and SELECT sources).
TEST(JoinViewInsert, SideDefaultReadsTheViewRowAcrossSides) {
  Database db;
  db.exec("create table xp (pp integer primary key, pv integer null);"
          "create table xc (cc integer primary key, pr integer null references xp(pp), cv integer null, "
          "derived integer not null default (new.pv * 10 + new.cv));"
          "create view xv as select c.cc as cc, c.pr as k, c.cv as cv, p.pv as pv from xc c join xp p on p.pp = c.pr");
  db.exec("insert into xv (cc, k, cv, pv) values (1, 10, 1, 7), (2, 20, 2, 3)");
  db.exec("insert into xv (cc, k, cv, pv) select 3, 30, 3, 9");
  EXPECT_EQ(rows(db, "select cc, derived from xc order by cc"), "1|71;2|32;3|93");
  db.exec("insert into xc (cc, pr, cv, derived) values (4, 10, 4, 0)");  // supplied: the DEFAULT is not needed
  EXPECT_EQ(rows(db, "select derived from xc where cc = 4"), "0");
}

// A match flag null-extended by an enclosing outer join reads as "no partner" (not true).
TEST(JoinViewUpdateMaterialization, ReturningReadsANullMatchFlagAsNoPartner) {
  Database db;
  db.exec("create table ex_x (xx integer primary key, pr integer null, xv integer null);"
          "create table ex_b (bb integer null primary key, jk integer null, bv integer null);"
          "create table ex_a (aa integer primary key, ar integer null, av integer null);"
          "create view exv as select a.aa as aa, a.av as av, x.xv as xv, b.bv as bv "
          "from ex_x x left join ex_b b on b.jk = x.pr right join ex_a a on a.ar = x.xx;"
          "insert into ex_b values (null, 7, 10); insert into ex_x values (1, 7, 100);"
          "insert into ex_a values (1, 1, 1000), (2, 99, 2000)");
  EXPECT_EQ(rows(db, "update exv set av = 5 where aa = 2 returning aa, av, xv, bv"), "2|5|null|null");
  EXPECT_EQ(rows(db, "update exv set av = 6 where aa = 1 returning aa, av, xv, bv"), "1|6|100|10");
}

TEST(PartialUnique, BindsOnlyRowsInsideThePredicate) {
  Database db;
  db.exec("create table t (id integer primary key, code integer, active integer)");
  db.exec("insert into t values (1, 5, 0), (2, 5, 0)");  // outside the scope: duplicates are fine
  db.exec("create unique index u on t(code) where active = 1");
  db.exec("insert into t values (3, 5, 1)");             // first in scope
  EXPECT_THROW(db.exec("insert into t values (4, 5, 1)"), Error);
  db.exec("insert into t values (4, 5, 0)");
  EXPECT_THROW(db.exec("update t set active = 1 where id = 4"), Error);
  db.exec("insert or replace into t values (5, 5, 1)");  // replaces the in-scope row only
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;2;4;5");
  // Existing in-scope duplicates make the index impossible.
  db.exec("create table s (id integer primary key, code integer, active integer);"
          "insert into s values (1, 5, 1), (2, 5, 1)");
  EXPECT_THROW(db.exec("create unique index us on s(code) where active = 1"), Error);
  db.exec("create unique index us on s(code) where active = 0");
}

// ---- randomized differential test ------------------------------------------------------------

TEST(JoinViewMutationDifferential, RandomWritesMatchHandWrittenBaseStatements) {
  std::mt19937 rng(777);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::string schema =
      "create table p (pid integer primary key, label integer);"
      "create table c (cid integer primary key, pref integer references p(pid), note integer);";
  for (int round = 0; round < 30; ++round) {
    Database viaView, direct;
    viaView.exec(schema);
    direct.exec(schema);
    std::string data;
    for (int pid = 1; pid <= 4; ++pid) data += "insert into p values (" + std::to_string(pid) + ", " + std::to_string(pick(0, 9)) + ");";
    for (int cid = 1; cid <= 10; ++cid) {
      data += "insert into c values (" + std::to_string(cid) + ", " + std::to_string(pick(1, 5)) + ", " +
              std::to_string(pick(0, 9)) + ");";  // pref 5 has no parent: not a view row
    }
    viaView.exec("pragma foreign_keys = off");
    direct.exec("pragma foreign_keys = off");
    viaView.exec(data);
    direct.exec(data);
    viaView.exec("create view jv as select c.cid as cid, c.note as note, p.label as label, p.pid as pid "
                 "from c join p on p.pid = c.pref");
    const std::string joined = " from c join p on p.pid = c.pref";
    for (int step = 0; step < 8; ++step) {
      std::string n = std::to_string(pick(0, 9)), m = std::to_string(pick(0, 9));
      switch (pick(0, 3)) {
        case 0:
          viaView.exec("update jv set note = " + n + " where label > " + m);
          direct.exec("update c set note = " + n + " where cid in (select c.cid" + joined + " where p.label > " + m + ")");
          break;
        case 1:
          viaView.exec("update jv set label = " + n + " where note = " + m);
          direct.exec("update p set label = " + n + " where pid in (select p.pid" + joined + " where c.note = " + m + ")");
          break;
        case 2:
          viaView.exec("update jv set note = label + 1 where cid <= " + m);
          direct.exec("update c set note = (select p.label + 1 from p where p.pid = c.pref) where cid <= " + m +
                      " and exists (select 1 from p where p.pid = c.pref)");
          break;
        default:
          viaView.exec("delete from jv where note = " + n);
          direct.exec("delete from c where note = " + n + " and exists (select 1 from p where p.pid = c.pref)");
      }
      ASSERT_EQ(rows(viaView, "select * from c order by cid"), rows(direct, "select * from c order by cid"))
          << "round " << round << " step " << step;
      ASSERT_EQ(rows(viaView, "select * from p order by pid"), rows(direct, "select * from p order by pid"))
          << "round " << round << " step " << step;
    }
    EXPECT_EQ(rows(viaView, "select cid, note, label from jv order by cid"),
              rows(direct, "select c.cid, c.note, p.label" + joined + " order by c.cid"));
  }
}

}  // namespace
}  // namespace optic
