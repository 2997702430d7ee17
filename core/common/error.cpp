#include "core/common/error.h"

namespace optic {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kError: return "ERROR";
    case ErrorCode::kSyntax: return "SYNTAX";
    case ErrorCode::kNotFound: return "NOT_FOUND";
    case ErrorCode::kConstraint: return "CONSTRAINT";
    case ErrorCode::kType: return "TYPE";
    case ErrorCode::kMisuse: return "MISUSE";
    case ErrorCode::kUnsupported: return "UNSUPPORTED";
    case ErrorCode::kInternal: return "INTERNAL";
    case ErrorCode::kNotLoaded: return "NOT_LOADED";
    case ErrorCode::kInterrupt: return "INTERRUPT";
  }
  return "ERROR";
}

}  // namespace optic
