#include "core/execution/interrupt.h"

#include "core/common/error.h"

namespace optic {

void Interrupt::check() const {
  if (requested_.load(std::memory_order_relaxed) || (deadline_ && Clock::now() >= *deadline_) || (poll_ && poll_())) {
    throw Error(ErrorCode::kInterrupt, "interrupted");
  }
}

}  // namespace optic
