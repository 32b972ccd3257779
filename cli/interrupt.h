// Ctrl-C (SIGINT) and SIGTERM as a request to stop, not a kill: while an InterruptGuard lives they
// set its flag, so a local run cancels its running nodes (their checkpoints stay) and a sweep
// cancels its jobs, and each says what stopped. A second signal ends the process at once.
// Thread safety: one guard at a time per process; flag() may be read from any thread.
#pragma once

#include <signal.h>

#include <atomic>

namespace seqflow::cli {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Set once a signal came.
  static const std::atomic<bool>* flag();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace seqflow::cli
