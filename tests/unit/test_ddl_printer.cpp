// DDL printer tests (core/parser/ddl_printer.h): every ALTER TABLE arm prints canonically, with
// the given schema qualifier, and the printed text parses back to a statement that prints the same
// (schema-change events carry this text as `ddl`, api-and-watch.md §7).
#include <gtest/gtest.h>

#include "core/parser/ddl_printer.h"
#include "core/parser/parser.h"

namespace optic {
namespace {

std::string printAlter(const std::string& sql, const std::string& prefix = "main.") {
  auto stmts = parseSql(sql);
  EXPECT_EQ(stmts.size(), 1u);
  return printAlterTable(*stmts.at(0)->alterTable, prefix);
}

TEST(DdlPrinter, EveryAlterTableArmPrintsCanonically) {
  const std::pair<const char*, const char*> cases[] = {
      {"ALTER TABLE t RENAME TO u", "alter table main.t rename to u"},
      {"alter table t rename column a to b", "alter table main.t rename column a to b"},
      {"alter table t add column w INTEGER NULL default 3", "alter table main.t add column w INTEGER null default 3"},
      {"alter table t drop column w", "alter table main.t drop column w"},
      {"alter table t add constraint pos check (v > 0)", "alter table main.t add constraint pos check (v > 0)"},
      {"alter table t drop constraint pos", "alter table main.t drop constraint pos"},
      {"alter table t rename constraint pos to positive", "alter table main.t rename constraint pos to positive"},
      {"alter table t alter primary key (a, b desc)", "alter table main.t alter primary key (a, b desc)"},
      {"alter table t alter column v set not null", "alter table main.t alter column v set not null"},
      {"alter table t alter column v drop not null", "alter table main.t alter column v drop not null"},
      {"alter table t alter column v type TEXT", "alter table main.t alter column v set data type TEXT"},
      {"alter table t alter column v set default 'x'", "alter table main.t alter column v set default 'x'"},
      {"alter table t alter column v drop default", "alter table main.t alter column v drop default"},
      {"alter table t alter column v set collate nocase", "alter table main.t alter column v set collate nocase"},
      {"alter table t alter column v set tags (k = 1)", "alter table main.t alter column v set tags (k = 1)"},
      {"alter table t set tags (owner = 'me')", "alter table main.t set tags (owner = 'me')"},
      {"alter table t alter constraint pos set tags (k = 1)", "alter table main.t alter constraint pos set tags (k = 1)"},
  };
  for (const auto& [sql, expected] : cases) {
    std::string printed = printAlter(sql);
    EXPECT_EQ(printed, expected) << sql;
    EXPECT_EQ(printAlter(printed, "main."), expected) << "does not re-parse to the same statement: " << printed;
  }
}

TEST(DdlPrinter, NamesThatNeedQuotingAreQuoted) {
  EXPECT_EQ(printAlter(R"(alter table "my table" rename column "select" to "from")", "\"my schema\"."),
            R"(alter table "my schema"."my table" rename column "select" to "from")");
}

}  // namespace
}  // namespace optic
