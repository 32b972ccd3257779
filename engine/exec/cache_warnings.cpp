#include "engine/exec/cache_warnings.h"

#include "engine/base/log.h"

namespace seqflow {
namespace {

constexpr std::string_view kOnce = " (not repeated for later failures with this cause)";

std::string CauseOf(const Status& status) {
  const std::string& message = status.message();
  const size_t colon = message.rfind(": ");
  return std::string(StatusCodeName(status.code())) + ":" +
         (colon == std::string::npos ? message : message.substr(colon + 2));
}

}  // namespace

bool CacheWarnings::FirstOf(Group group, const Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (group == Group::kWrite && first_write_failure_.ok()) first_write_failure_ = status;
  if (seen_.emplace(group, CauseOf(status)).second) return true;
  ++repeats_;
  return false;
}

void CacheWarnings::LoadFailed(const std::string& label, const Status& status) {
  if (FirstOf(Group::kLoad, status))
    LogWarning(label + ": " + status.ToString() + "; recomputing" + std::string(kOnce));
}

void CacheWarnings::LockFailed(const std::string& label, const Status& status) {
  if (FirstOf(Group::kLock, status))
    LogInfo(label + ": " + status.ToString() + "; computing without the key's lock" + std::string(kOnce));
}

void CacheWarnings::StoreFailed(const std::string& label, const Status& status) {
  if (FirstOf(Group::kWrite, status))
    LogWarning(label + ": result not cached: " + status.ToString() + std::string(kOnce));
}

void CacheWarnings::HistoryFailed(const Status& status) {
  if (FirstOf(Group::kWrite, status))
    LogWarning("cannot record the run's keys for `seqflow plan`: " + status.ToString() + std::string(kOnce));
}

Status CacheWarnings::first_write_failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_write_failure_;
}

int CacheWarnings::repeats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return repeats_;
}

}  // namespace seqflow
