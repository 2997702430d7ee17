// ErrorReport (error_report.h): an exception turned into the data a caller outside the engine sees.
#include "core/api/error_report.h"

#include <exception>

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
  } catch (const std::exception& e) {
    return internalReport(e.what());
  } catch (...) {
    return internalReport("unknown C++ exception");
  }
}

}  // namespace optic
