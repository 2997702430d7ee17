// The failure of one binding handle, as JS reads it (js/src/errors.ts ErrorInfo). Entry points
// never let an exception escape into Embind (its message would not cross): they run their work
// through ErrorSlot::guard, which records the exception and returns kFailed, and JS then calls
// lastError(), which is ErrorSlot::get().
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "core/api/error_report.h"

namespace optic::wasm {

inline constexpr int kFailed = -1;

// A JS array of the strings.
emscripten::val stringArray(const std::vector<std::string>& strings);

class ErrorSlot {
 public:
  // Runs f(), which returns an int >= 0; on any exception records it and returns kFailed.
  template <class F>
  int guard(F&& f) {
    try {
      return f();
    } catch (...) {
      report_ = reportCurrentException();
    }
    return kFailed;
  }
  // {code, message, line, column, mutationDiagnostic?, tablesToLoad?}
  emscripten::val get() const;

 private:
  ErrorReport report_;
};

}  // namespace optic::wasm
