#include "engine/exec/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace seqflow {

int64_t MemoryBudget::Share(int64_t declared_mb) const { return std::clamp<int64_t>(declared_mb, 0, budget_mb_); }

bool MemoryBudget::TryAcquire(int64_t mb) {
  std::lock_guard<std::mutex> lock(mu_);
  if (held_mb_ + mb > budget_mb_) return false;
  held_mb_ += mb;
  return true;
}

void MemoryBudget::Acquire(int64_t mb, std::function<void()> granted) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (held_mb_ + mb > budget_mb_) {
      waiting_.emplace_back(mb, std::move(granted));
      return;
    }
    held_mb_ += mb;
  }
  granted();
}

void MemoryBudget::Release(int64_t mb) {
  std::vector<std::function<void()>> granted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_mb_ -= mb;
    for (auto request = waiting_.begin(); request != waiting_.end();) {
      if (held_mb_ + request->first > budget_mb_) {
        ++request;
        continue;
      }
      held_mb_ += request->first;
      granted.push_back(std::move(request->second));
      request = waiting_.erase(request);
    }
  }
  // Outside the lock: a grant may resume a task that acquires or releases at once.
  for (const std::function<void()>& g : granted) g();
}

int64_t MemoryBudget::held_mb() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_mb_;
}

int64_t PhysicalMemoryMb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<int64_t>(pages) * page / (1024 * 1024);
}

}  // namespace seqflow
