// ErrorReport: a failure as a caller outside the engine receives it (the wasm bindings hand it to
// JS as {code, message, line, column, …}): the code's name, the message unchanged, the position in
// the SQL text, and the structured details that a program branches on, so it never has to parse
// the message (which is written for people, and matched by the conformance corpus).
//
// Also the header an embedder includes to throw optic::Error for failures of its own (a malformed
// argument from its host language) inside code whose exceptions it reports this way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/planner/mutation_diagnostic.h"

namespace optic {

struct ErrorReport {
  std::string code;  // errorCodeName(); "internal" for an exception that is not an optic::Error
  std::string message;
  int line = 0;    // 1-based; 0 when the failure has no SQL position
  int column = 0;  // 1-based, in characters; 0 when unknown
  std::optional<MutationDiagnostic> mutationDiagnostic;  // a refused write through a view
  std::vector<std::string> tablesToLoad;  // NOT_LOADED: the tables ({schema}.{table}) to load
};

// The report of the exception being handled: call it only inside a catch block.
ErrorReport reportCurrentException();

}  // namespace optic
