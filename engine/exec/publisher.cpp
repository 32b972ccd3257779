#include "engine/exec/publisher.h"

#include <exception>

namespace seqflow {

Publisher::Publisher(Cache& cache, int writers, CacheWarnings& warnings, Checkpoints* checkpoints)
    : cache_(cache), writers_(writers < 1 ? 1 : writers), warnings_(warnings), checkpoints_(checkpoints) {}

Publisher::~Publisher() { Finish(); }

void Publisher::Submit(std::string key, CacheEntry entry, std::string label, std::unique_ptr<KeyLock> key_lock) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(Job{std::move(key), std::move(entry), std::move(label), std::move(key_lock)});
  if (threads_.size() < static_cast<size_t>(writers_)) threads_.emplace_back([this] { Work(); });
  ready_.notify_one();
}

void Publisher::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finishing_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  finishing_ = false;
}

void Publisher::Work() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [this] { return finishing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // finishing and drained
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Status stored;
    try {
      stored = cache_.Store(job.key, job.entry);
    } catch (const std::exception& e) {
      stored = Status::Internal(e.what());
    }
    if (!stored.ok()) warnings_.StoreFailed(job.label, stored);
    if (stored.ok() && checkpoints_ != nullptr) checkpoints_->Remove(job.key);
    job.lock.reset();
  }
}

}  // namespace seqflow
