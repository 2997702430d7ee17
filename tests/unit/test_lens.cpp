// Logical schemas and lenses (core/ddl/lens_*.h, core/planner/views/lens_boundary.h,
// views.md §4): deploy over a basis, overrides and gap fill, the prover's coded errors, the lens
// boundary at write time, introspection, two lenses over one basis, and a lens across close and
// reopen of a file-backed database.
#include <gtest/gtest.h>

#include "core/parser/parser.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::reasonOf;
using testing_sql::rows;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

void basis(Database& db) {
  db.exec("declare schema b { table item (id integer primary key, name text, qty integer null) }");
  db.exec("apply schema b");
  db.exec("insert into b.item values (1, 'bolt', 3), (2, 'nut', null)");
}

TEST(Lens, DefaultMapperDeploysAViewOverTheOnlyBasis) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, name text) }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select id, name from app.item order by id"), "1|bolt;2|nut");
  EXPECT_EQ(rows(db, "select type from schema() where schema = 'app' and name = 'item'"), "view");
  db.exec("insert into app.item values (3, 'washer')");
  EXPECT_EQ(rows(db, "select name, qty from b.item where id = 3"), "washer|null");  // unmapped basis column: its default
}

TEST(Lens, OverrideRenamesAndGapFillsByName) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, label text, qty integer null) }");
  db.exec("declare lens for app over b { view item as select name as label from b.item }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select id, label, qty from app.item order by id"), "1|bolt|3;2|nut|null");
  EXPECT_EQ(rows(db, "select logical_column, source, inverse from quereus_effective_lens('app', 'item') order by logical_column"),
            "id|default|inferred;label|override|inferred;qty|default|inferred");
  EXPECT_EQ(rows(db, "select code from quereus_lens_advisories('app')"), "lens.partial-override");
  db.exec("update app.item set label = 'screw' where id = 1");
  EXPECT_EQ(rows(db, "select name from b.item where id = 1"), "screw");
}

TEST(Lens, TwoLogicalSchemasOverOneBasisSeeTheSameRows) {
  Database db;
  basis(db);
  db.exec("declare logical schema a1 { table item (id integer primary key, name text) }");
  db.exec("declare lens for a1 over b { }");
  db.exec("apply schema a1");
  db.exec("declare logical schema a2 { table item (id integer primary key, title text) }");
  db.exec("declare lens for a2 over b { view item as select id, upper(name) as title from b.item }");
  db.exec("apply schema a2");
  db.exec("insert into a1.item values (5, 'pin')");
  EXPECT_EQ(rows(db, "select title from a2.item where id = 5"), "PIN");
  EXPECT_EQ(rows(db, "select inverse from quereus_effective_lens('a2', 'item') where logical_column = 'title'"), "none");
  // A computed column is read-only through the lens; the other lens still writes.
  EXPECT_NE(errorOf(db, "update a2.item set title = 'X' where id = 5"), "");
  db.exec("delete from a1.item where id = 5");
  EXPECT_EQ(rows(db, "select count(*) from a2.item"), "2");
}

TEST(Lens, DefaultBasisMustBeUnambiguous) {
  Database db;
  basis(db);
  db.exec("create table other (id integer primary key)");  // main now holds a table too
  db.exec("declare logical schema app { table item (id integer primary key) }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "lens: cannot infer a default basis for logical schema 'app' (found 2"));
}

TEST(Lens, ProverErrorsCarryTheirCodesAndBlockTheWholeDeploy) {
  Database db;
  db.exec("declare schema b { table t (id text primary key, note text null, v integer) }");
  db.exec("apply schema b");
  db.exec("declare logical schema app { table t (id integer primary key, note text, v integer) }");
  db.exec("declare lens for app over b { }");
  std::string e = errorOf(db, "apply schema app");
  EXPECT_TRUE(contains(e, "blocked by 2 error(s)")) << e;
  EXPECT_TRUE(contains(e, "[lens.type-mismatch] lens: logical column 't.id' declares type 'INTEGER'")) << e;
  EXPECT_TRUE(contains(e, "[lens.nullability-mismatch]")) << e;
  EXPECT_EQ(rows(db, "select count(*) from schema() where schema = 'app'"), "0");  // nothing deployed

  db.exec("declare logical schema app2 { table t (id text primary key, d integer, check (d > 0)) }");
  db.exec("declare lens for app2 over b { view t as select id, v * 2 as d from b.t }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app2"), "[lens.unrealizable-constraint]"));

  db.exec("declare logical schema app3 { table t (id text primary key, d integer null with tags (\"quereus.lens.writable\" = true)) }");
  db.exec("declare lens for app3 over b { view t as select id, v * 2 as d from b.t }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app3"), "[lens.non-invertible]"));
}

TEST(Lens, AuthoredInverseProvenWrongIsAPutGetViolation) {
  Database db;
  db.exec("declare schema b { table t (id integer primary key, code text check (code in ('a', 'b'))) }");
  db.exec("apply schema b");
  db.exec("declare logical schema app { table t (id integer primary key, g text null check (g in ('A', 'B'))) }");
  db.exec("declare lens for app over b { view t as select id, upper(code) as g with inverse (code = 'a') from b.t }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "[lens.putget-violation]"));
  db.exec("declare lens for app over b { view t as select id, upper(code) as g with inverse (code = lower(new.g)) from b.t }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select count(*) from quereus_lens_advisories('app')"), "0");  // a proven bijection
}

TEST(Lens, ReadOnlyTableRefusesWritesWithItsReason) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (k integer primary key, name text) }");
  db.exec("declare lens for app over b { view item as select id + 100 as k, name from b.item }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select k from app.item order by k"), "101;102");
  EXPECT_EQ(rows(db, "select code from quereus_lens_advisories('app')"), "lens.pk-not-reconstructible");
  EXPECT_EQ(reasonOf(db, "delete from app.item"), "lens-read-only|item||delete");
}

TEST(Lens, LogicalCheckAndCommitTimeUniqueAreEnforcedAtTheBoundaryOnly) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, name text, unique (name), "
          "constraint short check (length(name) < 6)) }");
  db.exec("declare lens for app over b { }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select code, \"constraint\" from quereus_lens_advisories('app')"), "lens.no-backing-index|unique");
  EXPECT_TRUE(contains(errorOf(db, "insert into app.item values (7, 'toolong')"), "CHECK constraint failed: lens:short"));
  EXPECT_EQ(errorOf(db, "insert into app.item values (7, 'bolt')"), "CHECK constraint failed: lens:unique");
  EXPECT_EQ(reasonOf(db, "insert or ignore into app.item values (7, 'bolt')"),
            "lens-set-level-conflict-resolution|item||insert");
  db.exec("insert into b.item values (7, 'bolt', 1)");  // a direct basis write sees basis constraints only
  EXPECT_EQ(rows(db, "select count(*) from b.item where name = 'bolt'"), "2");
}

TEST(Lens, ForeignKeysAreCheckedAtTheBoundary) {
  Database db;
  db.exec("declare schema b { table p (id integer primary key, name text) table c (id integer primary key, pid integer null) }");
  db.exec("apply schema b");
  db.exec("insert into b.p values (1, 'one')");
  db.exec("declare logical schema app { table p (id integer primary key, name text) "
          "table c (id integer primary key, pid integer null references p(id)) }");
  db.exec("declare lens for app over b { }");
  db.exec("apply schema app");
  db.exec("insert into app.c values (1, 1), (2, null)");
  EXPECT_TRUE(contains(errorOf(db, "insert into app.c values (3, 9)"), "FOREIGN KEY constraint failed: c (pid)"));
  EXPECT_TRUE(contains(errorOf(db, "update app.c set pid = 7 where id = 1"), "FOREIGN KEY constraint failed"));
  // Parent side (RESTRICT): a referenced logical parent row is neither deleted nor re-keyed.
  EXPECT_TRUE(contains(errorOf(db, "delete from app.p where id = 1"), "FOREIGN KEY constraint failed: p is still referenced by c"));
  EXPECT_TRUE(contains(errorOf(db, "update app.p set id = 5 where id = 1"), "FOREIGN KEY constraint failed"));
  db.exec("update app.p set name = 'uno' where id = 1");
  db.exec("insert into app.p values (2, 'two')");
  db.exec("delete from app.p where id = 2");
  db.exec("insert into b.c values (3, 9)");  // a direct basis write sees basis constraints only
  db.exec("pragma foreign_keys = off");
  db.exec("insert into app.c values (4, 9)");
  EXPECT_EQ(rows(db, "select count(*) from app.c"), "4");
}

// A decomposition (a columnar split the basis advertises) writes each logical column into its
// member; a rule over columns one member backs rides that member's write: CHECK on the optional
// member, NOT NULL and the child-side FOREIGN KEY on the anchor, the parent-side RESTRICT on the
// anchor's delete. A failing write leaves no member written.
void decomposedCars(Database& db) {
  auto member = [](const std::string& table, const std::string& cols, const std::string& presence,
                   const std::string& mapped) {
    return "create table " + table + " (" + cols + ") with tags (\"quereus.lens.decomp.logical.d1\" = 'Car', "
           "\"quereus.lens.decomp.role.d1\" = 'primary-storage', \"quereus.lens.decomp.anchor.d1\" = 'Car_core', "
           "\"quereus.lens.decomp.presence.d1\" = '" + presence + "', \"quereus.lens.decomp.keykind.d1\" = 'logical-tuple', "
           "\"quereus.lens.decomp.key.d1\" = 'id', " + mapped + ")";
  };
  db.exec(member("Car_core", "id integer primary key, make text null", "mandatory",
                 "\"quereus.lens.decomp.col.d1.id\" = 'id', \"quereus.lens.decomp.col.d1.make\" = 'make'"));
  db.exec(member("Car_perf", "id integer primary key, speed integer null", "optional",
                 "\"quereus.lens.decomp.col.d1.maxSpeed\" = 'speed'"));
  db.exec("create table Maker (name text primary key)");
  db.exec("create table Part (id integer primary key, car integer)");
  db.exec("insert into Maker values ('Honda'), ('Mazda')");
  db.exec("declare logical schema app { table Maker { name text primary key } "
          "table Car { id integer primary key, make text null references Maker(name), "
          "maxSpeed integer null check (maxSpeed < 500) } "
          "table Part { id integer primary key, car integer references Car(id) on delete restrict } }");
  db.exec("declare lens for app over main { }");
  db.exec("apply schema app");
}

TEST(Lens, RowRulesHoldOnTheMembersOfADecomposition) {
  Database db;
  decomposedCars(db);
  db.exec("insert into app.Car values (1, 'Honda', 180), (2, 'Mazda', null)");
  EXPECT_EQ(rows(db, "select id, make, maxSpeed from app.Car order by id"), "1|Honda|180;2|Mazda|null");
  EXPECT_EQ(errorOf(db, "insert into app.Car values (3, 'Mazda', 900)"), "CHECK constraint failed: lens:_check_maxSpeed");
  EXPECT_EQ(errorOf(db, "insert into app.Car values (3, 'Nope', 100)"),
            "FOREIGN KEY constraint failed: Car (make) references a missing app.Maker");
  EXPECT_EQ(errorOf(db, "update app.Car set maxSpeed = 1000 where id = 1"), "CHECK constraint failed: lens:_check_maxSpeed");
  EXPECT_EQ(errorOf(db, "update app.Car set make = 'Nope' where id = 1"),
            "FOREIGN KEY constraint failed: Car (make) references a missing app.Maker");
  // Nothing of the failed writes reached any member.
  EXPECT_EQ(rows(db, "select id, make from Car_core order by id"), "1|Honda;2|Mazda");
  EXPECT_EQ(rows(db, "select id, speed from Car_perf order by id"), "1|180");
  // A NULL key is exempt from the foreign key; direct basis writes see the basis rules only.
  db.exec("insert into app.Car values (3, null, 499)");
  db.exec("insert into Car_perf values (9, 900)");
  // The parent side: a Car a Part references cannot be deleted through the lens.
  db.exec("insert into app.Part values (1, 1)");
  EXPECT_EQ(errorOf(db, "delete from app.Car where id = 1"), "FOREIGN KEY constraint failed: Car is still referenced by Part (car)");
  EXPECT_EQ(rows(db, "select count(*) from app.Car"), "3");
  db.exec("delete from app.Car where id = 2");
  EXPECT_EQ(rows(db, "select id from app.Car order by id"), "1;3");
  // Under foreign_keys = off the key rules are off, the CHECK is not.
  db.exec("pragma foreign_keys = off");
  db.exec("insert into app.Car values (4, 'Nope', 10)");
  EXPECT_EQ(errorOf(db, "insert into app.Car values (5, 'Honda', 501)"), "CHECK constraint failed: lens:_check_maxSpeed");
}

// A rule reading columns of two members of a join is not a row-local rule of either member: it
// is not enforced at the boundary (as before), and the columns of one member keep theirs.
TEST(Lens, ARuleAcrossTwoMembersIsLeftToTheMembers) {
  Database db;
  decomposedCars(db);
  db.exec("declare logical schema app2 { table Car { id integer primary key, make text null, maxSpeed integer null, "
          "check (maxSpeed is null or make is not null), check (id > 0) } }");
  db.exec("declare lens for app2 over main { }");
  db.exec("apply schema app2");
  db.exec("insert into app2.Car values (7, null, 100)");  // across Car_core and Car_perf: not row-local
  EXPECT_NE(errorOf(db, "insert into app2.Car values (-1, 'Honda', 100)"), "");
  EXPECT_EQ(rows(db, "select id from app2.Car order by id"), "7");
}

TEST(Lens, DeleteCascadeAndSetNullFollowTheLogicalAction) {
  Database db;
  db.exec("declare schema b { table p (id integer primary key) table c (id integer primary key, pid integer null) "
          "table n (id integer primary key, pid integer null) }");
  db.exec("apply schema b");
  db.exec("insert into b.p values (1), (2)");
  db.exec("insert into b.c values (1, 1), (2, 2)");
  db.exec("insert into b.n values (1, 1), (2, 2)");
  db.exec("declare logical schema app { table p (id integer primary key) "
          "table c (id integer primary key, pid integer null references p(id) on delete cascade) "
          "table n (id integer primary key, pid integer null references p(id) on delete set null) }");
  db.exec("declare lens for app over b { }");
  db.exec("apply schema app");
  db.exec("delete from app.p where id = 1");
  EXPECT_EQ(rows(db, "select id from b.p"), "2");
  EXPECT_EQ(rows(db, "select id, pid from b.c order by id"), "2|2");
  EXPECT_EQ(rows(db, "select id, pid from b.n order by id"), "1|null;2|2");
}

TEST(Lens, AcknowledgedAdvisoryAndEscalation) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, name text, unique (name)) "
          "with tags (\"quereus.lens.ack.no-backing-index:name\" = 'small table') }");
  db.exec("declare lens for app over b { }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select status, rationale from quereus_lens_advisories('app')"),
            "acknowledged-unconditional|small table");
  db.exec("declare logical schema app { table item (id integer primary key, name text, unique (name)) "
          "with tags (\"quereus.lens.policy.require-ack\" = 'no-backing-index') }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "[lens.no-backing-index]"));
  db.exec("declare logical schema app { table item (id integer primary key, name text) "
          "with tags (\"quereus.lens.policy.error-on\" = 'lens.bogus') }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "[lens.unknown-policy-code]"));
}

TEST(Lens, LogicalKeyWiderThanTheBasisKeyIsAdvised) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, name text, unique (id, name)) }");
  db.exec("declare lens for app over b { }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select code, \"constraint\" from quereus_lens_advisories('app')"),
            "lens.over-restrictive-basis-key|unique");
}

TEST(Lens, DeclaredAccessPatternNeedsABasisIndex) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, name text) "
          "with tags (\"quereus.lens.access.name\" = 'lookup by name') }");
  db.exec("declare lens for app over b { }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select code, \"column\" from quereus_lens_advisories('app')"), "lens.no-answering-structure|name");
  db.exec("create index item_name on b.item (name)");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select count(*) from quereus_lens_advisories('app')"), "0");
  EXPECT_EQ(rows(db, "diff schema app"), "");  // a logical schema has no DDL of its own
}

TEST(Lens, BadInputGivesClearErrorsWithPositions) {
  Database db;
  basis(db);
  try {
    parseSql("declare lens for app b { }");
    ADD_FAILURE() << "parsed";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "Expected 'OVER'")) << e.what();
    EXPECT_EQ(e.line(), 1);
  }
  EXPECT_TRUE(contains(errorOf(db, "declare lens for app over b { view t as select 1 from b.item; view t as select 2 from b.item }"),
                       "has more than one override body"));
  db.exec("declare logical schema app { table item (id integer primary key, name text) index ix on item (name) }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "lens: index 'ix' is not allowed in logical schema 'app'"));
  db.exec("declare logical schema app { table item (id integer primary key, name text) }");
  db.exec("declare lens for app over b {\n  view item as select id, name from main.elsewhere\n}");
  try {
    db.exec("apply schema app");
    ADD_FAILURE() << "applied";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "which is not in basis schema 'b'")) << e.what();
    EXPECT_EQ(e.line(), 2);
  }
  db.exec("declare lens for app over b { view item as select id, name from b.item union select id, name from b.item }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "must be a single SELECT"));
  db.exec("declare lens for app over b { view item as select id, name || '!' from b.item }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "without an alias"));
  db.exec("declare logical schema app { table item (id integer primary key, missing text) }");
  db.exec("declare lens for app over b { }");
  EXPECT_TRUE(contains(errorOf(db, "apply schema app"), "lens: logical column 'app.item.missing' has no basis backing"));
}

TEST(Lens, FailedRedeployKeepsThePreviousLens) {
  Database db;
  basis(db);
  db.exec("declare logical schema app { table item (id integer primary key, name text) }");
  db.exec("apply schema app");
  db.exec("declare logical schema app { table item (id integer primary key, name text, nope text) }");
  EXPECT_NE(errorOf(db, "apply schema app"), "");
  EXPECT_EQ(rows(db, "select name from app.item where id = 1"), "bolt");
  EXPECT_EQ(rows(db, "select count(*) from quereus_effective_lens('app', 'item')"), "2");
}

TEST(Lens, SurvivesCloseAndReopenOfAFileDatabase) {
  testing_sql::TempDatabaseFile file;
  {
    auto db = file.open();
    basis(*db);
    db->exec("declare logical schema app { table item (id integer primary key, label text, "
             "constraint short check (length(label) < 6)) }");
    db->exec("declare lens for app over b { view item as select id, name as label from b.item }");
    db->exec("apply schema app");
  }
  {
    auto db = file.open();
    for (const std::string& e : db->rehydration().errors) ADD_FAILURE() << "rehydration: " << e;
    EXPECT_EQ(rows(*db, "select label from app.item order by id"), "bolt;nut");
    EXPECT_EQ(rows(*db, "select source from quereus_effective_lens('app', 'item') where logical_column = 'label'"),
              "override");
    EXPECT_TRUE(contains(errorOf(*db, "insert into app.item values (9, 'toolong')"), "CHECK constraint failed: lens:short"));
    db->exec("insert into app.item values (9, 'pin')");
    db->exec("apply schema app");  // the declaration came back too
  }
  auto db = file.open();
  EXPECT_EQ(rows(*db, "select name from b.item where id = 9"), "pin");
  EXPECT_EQ(rows(*db, "select count(*) from quereus_effective_lens('app', 'item')"), "2");
}

}  // namespace
}  // namespace optic
