// MemoryPieceStore: a PieceStore (engine/api/piece_store.h) in memory for node tests, named like
// the engine's ("<owner>.<hash>"), with a count of Gets so a test can see shards read one by one.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "engine/api/piece_store.h"
#include "engine/base/hash.h"

namespace seqflow::testutil {

class MemoryPieceStore final : public PieceStore {
 public:
  Result<std::string> Put(std::string_view bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string name = "owner." + HashHex(bytes);
    pieces_.emplace(name, std::string(bytes));
    return name;
  }
  Result<std::string> Get(const std::string& name) const override {
    std::lock_guard<std::mutex> lock(mu_);
    ++gets_;
    auto it = pieces_.find(name);
    if (it == pieces_.end()) return Status::Corruption("missing piece " + name);
    return it->second;
  }
  // Replaces a piece's bytes (a damaged file).
  void Overwrite(const std::string& name, std::string bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    pieces_[name] = std::move(bytes);
  }
  void Erase(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    pieces_.erase(name);
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return pieces_.size();
  }
  int64_t gets() const { return gets_; }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> pieces_;
  mutable std::atomic<int64_t> gets_{0};
};

}  // namespace seqflow::testutil
