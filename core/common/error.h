// Error: the one way the engine reports failure.
//
// Inside core/ every failure is thrown as optic::Error (never a bare std::exception, never a
// return code). The api layer (core/api) is the only place that catches: it turns an Error into
// the result a caller sees (the CLI prints it, wasm/ hands {code, message, line, column, …} to JS
// through core/api/error_report.h).
// Messages follow the reference dialect's wording exactly, because the conformance corpus
// matches them as substrings; do not rephrase them. What a program must act on travels as data
// beside the message (tablesToLoad here, MutationError's diagnostic), never only inside it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace optic {

enum class ErrorCode : uint8_t {
  kError,        // generic failure (SQLITE_ERROR-like)
  kSyntax,       // the SQL text does not parse; line/column set
  kNotFound,     // a named object (table, column, function, schema…) does not exist
  kConstraint,   // NOT NULL, UNIQUE, CHECK, FOREIGN KEY, assertion
  kType,         // value conversion failed
  kMisuse,       // API misuse: wrong parameter, finalized statement, closed database
  kUnsupported,  // parsed but not (yet) supported
  kInternal,     // a bug: an invariant broke
  kNotLoaded,    // a store table's rows are not in memory yet (lazy hydration, store_load.h)
  kInterrupt,    // the statement was stopped from outside or ran past its deadline (execution/interrupt.h)
};

const char* errorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, int line = 0, int column = 0, std::string subject = {})
      : std::runtime_error(std::move(message)), code_(code), line_(line), column_(column), subject_(std::move(subject)) {}
  // A kNotLoaded error naming the tables ({schema}.{table} catalog keys) to load.
  static Error notLoaded(std::string message, std::vector<std::string> tablesToLoad) {
    Error e(ErrorCode::kNotLoaded, std::move(message));
    e.tablesToLoad_ = std::move(tablesToLoad);
    return e;
  }

  ErrorCode code() const { return code_; }
  int line() const { return line_; }      // 1-based; 0 when the error has no SQL position
  int column() const { return column_; }  // 1-based, in characters; 0 when unknown
  // What the error is about, as data for code that branches on it (the message is for people):
  // the reference a kNotFound column error could not resolve, as written ("t.c" or "c"), or the
  // constraint a kConstraint error violated; empty when the thrower names nothing.
  const std::string& subject() const { return subject_; }
  // kNotLoaded: the tables the statement reached before they were loaded (empty otherwise).
  const std::vector<std::string>& tablesToLoad() const { return tablesToLoad_; }

 private:
  ErrorCode code_;
  int line_;
  int column_;
  std::string subject_;
  std::vector<std::string> tablesToLoad_;
};

[[noreturn]] inline void fail(ErrorCode code, std::string message) {
  throw Error(code, std::move(message));
}
[[noreturn]] inline void fail(std::string message) { throw Error(ErrorCode::kError, std::move(message)); }
// A constraint violation; `constraint` (the violated constraint's name, when there is one) is the
// error's subject.
[[noreturn]] inline void failConstraint(std::string message, std::string constraint = {}) {
  throw Error(ErrorCode::kConstraint, std::move(message), 0, 0, std::move(constraint));
}

}  // namespace optic
