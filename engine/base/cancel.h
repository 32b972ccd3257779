// CancelToken: how a long loop learns that its run is being stopped (another node failed, or the
// user interrupted). The engine owns the flag; a node passes ctx.cancellation() to its kernel,
// and the kernel polls it once per outer iteration (an L-BFGS or EM iteration, a path step) and
// returns Status::Cancelled. That is the one way a computation is cancelled: never a stop reason
// that yields a partial result, never an exception from a kernel, so nothing cancelled is cached.
// Thread safety: copyable and cheap; requested() may be called from any thread.
#pragma once

#include <atomic>
#include <string>

#include "engine/base/status.h"

namespace seqflow {

class CancelToken {
 public:
  CancelToken() = default;  // never cancelled
  // Requested once `flag` (or `also`, when given) is set. REQUIRES: the flags outlive every copy.
  explicit CancelToken(const std::atomic<bool>* flag, const std::atomic<bool>* also = nullptr)
      : flag_(flag), also_(also) {}

  bool requested() const { return Set(flag_) || Set(also_); }
  // Status::Cancelled("WHAT cancelled") once requested, else OK.
  Status Check(const std::string& what) const {
    return requested() ? Status::Cancelled(what + " cancelled") : Status();
  }

 private:
  static bool Set(const std::atomic<bool>* flag) { return flag != nullptr && flag->load(std::memory_order_relaxed); }
  const std::atomic<bool>* flag_ = nullptr;
  const std::atomic<bool>* also_ = nullptr;
};

}  // namespace seqflow
