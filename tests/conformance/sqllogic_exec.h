// Running one `.sqllogic` file's blocks against a fresh Database (test-corpus.md §1–2).
//
// This is the only part of the runner that talks to the engine, and only through
// core/api/database.h. Block semantics:
//  - setup: one Database::exec of the whole block text; any error fails the file;
//  - result: split on ';'; every statement but the last through its own exec; the last is
//    prepared, bound with the pending params, stepped to the end; rows converted and compared
//    with the expected JSON (row count first, then row by row);
//  - error: all but the last statement re-joined with ";\n" plus ";" through one exec, then the
//    last prepared and drained; the first error's message must contain the expected substring
//    (ASCII case-insensitive). No params.
// The first failing block ends the run; later blocks count as not passed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/common/value.h"
#include "tests/conformance/sqllogic_format.h"
#include "tests/conformance/sqllogic_json.h"

namespace optic::sqllogic {

struct RunOptions {
  std::string defaultModule = "memory";  // DatabaseOptions::defaultModule
  double timeoutSeconds = 15;            // checked between blocks; 0 disables
  std::string storePath;                 // non-empty: a fresh file store there (--module store)
};

struct FileOutcome {
  bool passed = false;
  int blocksTotal = 0;
  int blocksPassed = 0;
  int failedBlock = 0;  // 1-based index of the first failing block; 0 when passed
  int failedLine = 0;   // its directive line
  std::string failure;  // what differed (compact, truncated)
  bool crashed = false; // the file's process died on a signal other than the timeout alarm
};

// Called after each block that ran and matched, with the running count. The forking driver
// streams these to the parent so a crash mid-file still reports how far the file got.
using BlockPassedFn = std::function<void(int blocksPassed)>;

FileOutcome runBlocks(const std::vector<Block>& blocks, const RunOptions& options,
                      const BlockPassedFn& onBlockPassed = {});

// One engine cell as the reference's normalizeBigInts leaves it: integers of any size → the
// nearest double, reals as-is, booleans, text as strings, blobs → {"0": b0, …}, JSON documents
// structurally.
JsValue valueToJs(const Value& v);

// A JSON params value as a bind value: integral numbers → integer, others → real; arrays and
// objects → JSON values (the corpus binds only scalars).
Value jsToBindValue(const JsValue& v);

// The failure line for a block: "block N (line L): what".
std::string describeFailure(const FileOutcome& outcome);

}  // namespace optic::sqllogic
