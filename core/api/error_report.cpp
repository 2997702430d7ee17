// ErrorReport (error_report.h): an exception turned into the data a caller outside the engine sees.
#include "core/api/error_report.h"

#include <exception>
#include <new>

namespace optic {

namespace {

ErrorReport reportOf(const Error& e) {
  ErrorReport r;
  r.code = errorCodeName(e.code());
  r.message = e.what();
  r.line = e.line();
  r.column = e.column();
  r.tablesToLoad = e.tablesToLoad();
  return r;
}

ErrorReport internalReport(std::string message) {
  ErrorReport r;
  r.code = "internal";
  r.message = std::move(message);
  return r;
}

}  // namespace

ErrorReport reportCurrentException() {
  try {
    throw;
  } catch (const MutationError& e) {
    ErrorReport r = reportOf(e);
    r.mutationDiagnostic = e.diagnostic();
    return r;
  } catch (const Error& e) {
    return reportOf(e);
  } catch (const std::bad_alloc&) {
    // Not a bug: a statement asked for more memory than there is (the wasm's heap is at most
    // 2 GiB). Its undo has run by the time this is reported, so the database goes on working.
    return reportOf(Error(ErrorCode::kError, "out of memory"));
  } catch (const std::exception& e) {
    return internalReport(e.what());
  } catch (...) {
    return internalReport("unknown C++ exception");
  }
}

}  // namespace optic
