// ThreadProcessGroup: a ProcessGroup (engine/base/process_group.h) whose ranks are threads of
// one test process, so a data-parallel node body can be run as P "processes" without mpirun.
// Messages between two ranks arrive in the order sent, as MPI's do. ThreadRanks holds the
// mailboxes; Rank(r) is the group as rank r sees it.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "engine/base/process_group.h"

namespace seqflow::testutil {

class ThreadRanks {
 public:
  explicit ThreadRanks(int size) : size_(size) {}

  class Rank final : public ProcessGroup {
   public:
    Rank(ThreadRanks* ranks, int rank) : ranks_(ranks), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return ranks_->size_; }
    Status Send(int to, std::string_view bytes) const override {
      std::lock_guard<std::mutex> lock(ranks_->mu_);
      ranks_->boxes_[{rank_, to}].emplace_back(bytes);
      ranks_->arrived_.notify_all();
      return Status::Ok();
    }
    Result<std::string> Receive(int from) const override {
      std::unique_lock<std::mutex> lock(ranks_->mu_);
      auto& box = ranks_->boxes_[{from, rank_}];
      ranks_->arrived_.wait(lock, [&] { return !box.empty(); });
      std::string bytes = std::move(box.front());
      box.pop_front();
      return bytes;
    }
    Status Broadcast(int root, std::string* bytes) const override {
      if (rank_ != root) {
        Result<std::string> got = Receive(root);
        if (!got.ok()) return got.status();
        *bytes = std::move(*got);
        return Status::Ok();
      }
      for (int to = 0; to < size(); ++to)
        if (to != root) {
          Status sent = Send(to, *bytes);
          if (!sent.ok()) return sent;
        }
      return Status::Ok();
    }

   private:
    ThreadRanks* ranks_;
    int rank_;
  };

  Rank Of(int rank) { return Rank(this, rank); }

 private:
  int size_;
  std::mutex mu_;
  std::condition_variable arrived_;
  std::map<std::pair<int, int>, std::deque<std::string>> boxes_;
};

}  // namespace seqflow::testutil
