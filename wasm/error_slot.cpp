// ErrorSlot (error_slot.h): the error as a JS object. Cold: compiled for size with the rest of
// the bindings' control paths.
#include "wasm/error_slot.h"

using emscripten::val;

namespace optic::wasm {

val stringArray(const std::vector<std::string>& strings) {
  val a = val::array();
  for (const auto& s : strings) a.call<void>("push", s);
  return a;
}

val ErrorSlot::get() const {
  val e = val::object();
  e.set("code", report_.code);
  e.set("message", report_.message);
  e.set("line", report_.line);
  e.set("column", report_.column);
  if (const auto& d = report_.mutationDiagnostic) {
    val j = val::object();
    j.set("reason", d->reason);
    j.set("view", d->view);
    j.set("column", d->column);
    j.set("operation", d->operation);
    e.set("mutationDiagnostic", j);
  }
  if (!report_.tablesToLoad.empty()) e.set("tablesToLoad", stringArray(report_.tablesToLoad));
  return e;
}

}  // namespace optic::wasm
