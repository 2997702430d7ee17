// Fuzz target: whole scripts against a fresh in-memory database. The input is split into
// statements at ";\n" (the seeds hold one statement per line group, so a mutation seldom
// splits a statement inside a literal), and each runs on its own as the shell runs it: a failing
// statement (optic::Error) does not stop the rest. Each statement has a deadline
// (Database::setDeadline), so a query that would run for ever fails with kInterrupt instead of
// counting as a hang; a crash, a sanitizer report or an exception other than optic::Error is a bug.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/api/database.h"

namespace {

constexpr std::chrono::milliseconds kStatementBudget{10};
constexpr int kMaxRowsRead = 10000;  // rows read past this are not looked at

void runStatement(optic::Database& db, std::string_view sql) {
  db.setDeadline(std::chrono::steady_clock::now() + kStatementBudget);
  try {
    std::unique_ptr<optic::Statement> st = db.prepare(sql);
    for (int n = 0; n < kMaxRowsRead && st->step(); ++n) {
    }
  } catch (const optic::Error&) {
  }
  db.setDeadline(std::nullopt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view script(reinterpret_cast<const char*>(data), size);
  optic::Database db;
  while (!script.empty()) {
    size_t end = script.find(";\n");
    std::string_view sql = script.substr(0, end);
    script.remove_prefix(end == std::string_view::npos ? script.size() : end + 2);
    if (sql.find_first_not_of(" \t\r\n") != std::string_view::npos) runStatement(db, sql);
  }
  return 0;
}
