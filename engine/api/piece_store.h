// PieceStore: where an artifact keeps bodies too large to hold in memory (a sharded corpus's
// shards), outside its own bytes. A piece is immutable, written once, before the artifact that
// names it is published, and named by its owner's cache key and the hash of its bytes; the
// artifact lists the names it holds (Artifact::PieceNames), the cache checks them whenever it
// loads the artifact (a missing or damaged piece: the entry is Corruption and its node recomputes)
// and `cache gc` removes pieces no entry names. The engine's store lives in the cache directory
// (engine/cache/artifact_pieces.h).
// Thread safety: Put and Get may be called concurrently.
#pragma once

#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace seqflow {

class PieceStore {
 public:
  virtual ~PieceStore() = default;
  // Stores `bytes` (once: an existing piece of the same name is kept) and returns its name.
  virtual Result<std::string> Put(std::string_view bytes) = 0;
  // The bytes of piece `name`; Corruption naming the file for a missing or damaged one.
  virtual Result<std::string> Get(const std::string& name) const = 0;
};

}  // namespace seqflow
