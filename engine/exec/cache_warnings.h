// CacheWarnings: what a run says about a cache it cannot write, once per cause instead of once
// per node. A full or read-only disk fails every key lock, entry store and run history the same
// way (and a failing disk every load): a 12-node run printed 24 identical warnings, and a real
// error drowned in them.
//
// A failure's cause is its Status code plus the system's reason (the message's text after its
// last ": ", e.g. "Read-only file system"). The first lock failure of a cause is an info line
// (a lock only saves duplicate work); the first load, store or run-history failure of a cause is
// a warning naming the node (or the run history), the path and the reason. Later failures of a
// cause already reported are only counted. (A damaged entry's cause names what is wrong with it,
// "checksum mismatch (stored .., computed ..)", so two damaged entries are two warnings.)
// Thread safety: all methods may be called concurrently.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "engine/base/status.h"

namespace seqflow {

class CacheWarnings {
 public:
  // `label` names the node ("node 'x' (kind)").
  void LoadFailed(const std::string& label, const Status& status);
  void LockFailed(const std::string& label, const Status& status);
  void StoreFailed(const std::string& label, const Status& status);
  void HistoryFailed(const Status& status);
  // Failures not reported because their cause already was.
  int repeats() const;
  // The first store or run-history failure, Ok if none: for a caller whose point is the entry
  // (run-node), which must fail with its cause.
  Status first_write_failure() const;

 private:
  enum class Group { kLoad, kLock, kWrite };
  // True the first time (group, cause of `status`) is seen; counts the others.
  bool FirstOf(Group group, const Status& status);

  mutable std::mutex mu_;
  std::set<std::pair<Group, std::string>> seen_;
  int repeats_ = 0;
  Status first_write_failure_;
};

}  // namespace seqflow
