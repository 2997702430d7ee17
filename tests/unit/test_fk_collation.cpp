// Foreign-key collation (core/execution/dml.cpp): the synthesized `parent.k = child.ref` comparison
// resolves its collation like the read path (a declared collation outranks a defaulted one), in
// the child's parent-existence check and in the parent-side actions alike.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "core/common/value_ops.h"

namespace optic {
namespace {

std::string scalar(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  if (!st->step()) return "<none>";
  return toText(st->row()[0]);
}

TEST(ForeignKeyCollation, DeclaredNocaseChildMatchesCaseVariantParent) {
  Database db;
  db.exec("pragma foreign_keys = true;"
          "create table p (k text primary key);"
          "create table c (id integer primary key, ref text collate nocase references p(k));"
          "insert into p values ('ABC');");
  EXPECT_NO_THROW(db.exec("insert into c values (1, 'abc')"));
  EXPECT_THROW(db.exec("insert into c values (2, 'abd')"), Error);
  EXPECT_EQ(scalar(db, "select count(*) from c"), "1");
}

TEST(ForeignKeyCollation, DefaultedChildKeepsParentBinaryCompare) {
  Database db;
  db.exec("pragma foreign_keys = true;"
          "create table p (k text primary key);"
          "create table c (id integer primary key, ref text references p(k));"
          "insert into p values ('ABC');");
  EXPECT_THROW(db.exec("insert into c values (1, 'abc')"), Error);
  EXPECT_NO_THROW(db.exec("insert into c values (2, 'ABC')"));
}

TEST(ForeignKeyCollation, CascadeFindsCaseVariantChildren) {
  Database db;
  db.exec("pragma foreign_keys = true;"
          "create table p (k text primary key);"
          "create table c (id integer primary key, ref text collate nocase references p(k) on delete cascade);"
          "insert into p values ('ABC');"
          "insert into c values (1, 'abc');");
  db.exec("delete from p where k = 'ABC'");
  EXPECT_EQ(scalar(db, "select count(*) from c"), "0");
}

}  // namespace
}  // namespace optic
