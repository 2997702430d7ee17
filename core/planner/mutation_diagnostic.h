// MutationError: the structured failure of a write through a view (views.md §2.8).
//
// Every rejection of the view write-through lowering throws one. It is an optic::Error (the
// api layer and the conformance runner see the catalogue message unchanged) that also carries
// the diagnostic a tool can explain: the reason code of the spec's list (`no-inverse`,
// `unknown-view-column`, …), the view, the view column and the operation it concerns. The JS
// layer exposes it as `mutationDiagnostic`.
#pragma once

#include <string>

#include "core/common/error.h"

namespace optic {

struct MutationDiagnostic {
  std::string reason;     // spec reason code, e.g. "no-inverse"
  std::string view;       // the view (or CTE / subquery alias) written through
  std::string column;     // the view column concerned ("" when none)
  std::string operation;  // "insert" | "update" | "delete"
};

class MutationError : public Error {
 public:
  MutationError(MutationDiagnostic d, std::string message)
      : Error(ErrorCode::kError, std::move(message)), diagnostic_(std::move(d)) {}
  const MutationDiagnostic& diagnostic() const { return diagnostic_; }

 private:
  MutationDiagnostic diagnostic_;
};

[[noreturn]] inline void failMutation(MutationDiagnostic d, std::string message) {
  throw MutationError(std::move(d), std::move(message));
}

}  // namespace optic
