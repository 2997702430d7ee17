// Test helper for tests of the native file store: a database file in a temporary directory of
// its own, removed with it.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/api/database.h"

namespace optic::testing_sql {

class TempDatabaseFile {
 public:
  TempDatabaseFile() {
    char tmpl[] = "/tmp/optic_db_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/db.odb";
  }
  ~TempDatabaseFile() { std::filesystem::remove_all(dir_); }
  TempDatabaseFile(const TempDatabaseFile&) = delete;
  TempDatabaseFile& operator=(const TempDatabaseFile&) = delete;

  const std::string& path() const { return path_; }
  // A connection on the file (created on first open). Dropping it without close() is a crash:
  // no clean-shutdown marker.
  std::unique_ptr<Database> open() const {
    DatabaseOptions o;
    o.storage = Storage::kFile;
    o.path = path_;
    return std::make_unique<Database>(o);
  }

 private:
  std::string dir_, path_;
};

}  // namespace optic::testing_sql
