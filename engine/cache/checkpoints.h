// Checkpoints: the saved state of an iterative node instance that has not finished yet
// (DESIGN §11), <cache>/checkpoints/<key>.sfc — what a rerun after a crash or a kill resumes
// from. Framed like an entry (magic, length, checksum; entry_format.h) and published by rename,
// so a checkpoint that loads is whole; a damaged one is reported and ignored (the node starts
// over). Removed once the node's entry is published.
// Thread safety: all methods may be called concurrently (different keys, or one writer).
#pragma once

#include <optional>
#include <string>

#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

class Checkpoints {
 public:
  Checkpoints(const std::string& cache_dir, Env* env);

  // nullopt when there is none; Corruption naming the file for a damaged one.
  Result<std::optional<std::string>> Load(const std::string& key) const;
  Status Store(const std::string& key, std::string state);  // framed in place (states are large)
  Status Remove(const std::string& key);
  std::string PathOf(const std::string& key) const;

 private:
  std::string dir_;
  Env* env_;
};

}  // namespace seqflow
