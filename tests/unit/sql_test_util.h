// Test helpers for tests that drive a Database with SQL: result rows as compact text, and the
// structured reason of a rejected write through a view.
#pragma once

#include <string>

#include "core/api/database.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/planner/mutation_diagnostic.h"

namespace optic::testing_sql {

// Rows as "a|b;c|d" (NULL shown as null).
inline std::string rows(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  std::string out;
  while (st->step()) {
    std::string line;
    for (const Value& v : st->row()) line += (line.empty() ? "" : "|") + (v.isNull() ? std::string("null") : toText(v));
    out += (out.empty() ? "" : ";") + line;
  }
  return out;
}

// The message of the error `sql` raises ("" when it succeeds).
inline std::string errorOf(Database& db, const std::string& sql) {
  try {
    db.exec(sql);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// "reason|view|column|operation" of the MutationError `sql` raises ("" when it succeeds,
// "other: …" for any other error).
inline std::string reasonOf(Database& db, const std::string& sql) {
  try {
    db.exec(sql);
  } catch (const MutationError& e) {
    return e.diagnostic().reason + "|" + e.diagnostic().view + "|" + e.diagnostic().column + "|" +
           e.diagnostic().operation;
  } catch (const Error& e) {
    return std::string("other: ") + e.what();
  }
  return "";
}

}  // namespace optic::testing_sql
