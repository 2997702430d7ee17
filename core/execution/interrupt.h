// Interrupt: how a running statement is stopped before it ends by itself.
//
// Database::interrupt (from any thread, or a signal handler: the CLI's Ctrl-C) requests it; a
// deadline (Database::setDeadline: the JS `timeout`, the fuzzer's bound on each statement) stops
// statements still running at a point in time; a poll (Database::setInterruptPoll) asks the
// caller, for a request the engine cannot be sent directly (the wasm build has no threads: a
// page stops a statement running in its worker by setting a SharedArrayBuffer flag the poll reads). Every loop whose length the data decides (scans,
// joins, sorts, aggregation, recursion, window frames, materializations) calls tick() once per
// row or comparison: a row pays one increment and one branch, and one tick in kEvery looks at the
// request and the clock, so a statement stops within a few thousand rows of work. The stopped
// statement fails with kInterrupt "interrupted" and is rolled back as any failing statement is.
//
// The request belongs to one open database (Context::interrupt), never to the process.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace optic {

class Interrupt {
 public:
  using Clock = std::chrono::steady_clock;

  // Safe from any thread and from a signal handler (a lock-free atomic store).
  void request() noexcept { requested_.store(true, std::memory_order_relaxed); }
  // When a top-level statement starts: a request made while nothing ran is dropped.
  void clearRequest() noexcept { requested_.store(false, std::memory_order_relaxed); }
  // nullopt: no deadline. Set by the thread that runs the statements.
  void setDeadline(std::optional<Clock::time_point> deadline) { deadline_ = deadline; }
  // Called at each check while set (true: stop); empty: none. Set by the thread that runs the
  // statements, for the calls it makes; the poll must not call into the engine.
  void setPoll(std::function<bool()> poll) { poll_ = std::move(poll); }

  // One unit of work of a loop; every kEvery-th one checks.
  void tick() {
    if ((++ticks_ & (kEvery - 1)) == 0) check();
  }
  // Throws Error(kInterrupt, "interrupted") when requested, past the deadline or polled true.
  void check() const;

 private:
  static constexpr uint32_t kEvery = 1024;  // a power of two
  static_assert(std::atomic<bool>::is_always_lock_free, "request() must be async-signal-safe");
  std::atomic<bool> requested_{false};
  std::optional<Clock::time_point> deadline_;
  std::function<bool()> poll_;
  uint32_t ticks_ = 0;
};

}  // namespace optic
