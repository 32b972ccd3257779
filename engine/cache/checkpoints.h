// Checkpoints: the saved state of an iterative node instance that has not finished yet
// (DESIGN §11) — what a rerun after a crash or a kill resumes from.
//   <cache>/checkpoints/<key>.sfc          the state: its pieces in order, each either written
//                                          inline or named by the XXH3-128 of its bytes
//   <cache>/checkpoints/<key>.<name>.sfp   an immutable piece (StatePieces::AppendImmutable),
//                                          written by the first save that refers to it
// Every file is framed like an entry (magic, length, checksum; entry_format.h) and published by
// rename, pieces before the checkpoint that names them, so a checkpoint that loads is whole and
// a piece is checked against its name; a damaged or incomplete one is reported and ignored (the
// node starts over). Pieces no longer named are removed once the save naming the new ones is
// durable. A checkpoint of the earlier one-piece format (magic SQFLCKP) still loads: its bytes
// are the state, the same bytes the pieces join to.
// Removed, pieces included, once the node's entry is published; `cache gc` removes the files of
// a key whose entry exists (cache.h).
// Thread safety: all methods may be called concurrently (different keys, or one writer).
#pragma once

#include <optional>
#include <string>

#include "engine/base/env.h"
#include "engine/base/state_pieces.h"
#include "engine/base/status.h"

namespace seqflow {

class Checkpoints {
 public:
  Checkpoints(const std::string& cache_dir, Env* env);

  // The state's bytes (its pieces joined); nullopt when there is none; Corruption naming the
  // file for a damaged one or a missing or damaged piece.
  Result<std::optional<std::string>> Load(const std::string& key) const;
  Status Store(const std::string& key, StatePieces state);
  Status Remove(const std::string& key);  // the checkpoint and its pieces
  std::string PathOf(const std::string& key) const;

 private:
  std::string PiecePath(const std::string& key, const std::string& name) const;
  // Removes the pieces (and temporary files) of `key` whose name `keep` rejects.
  template <class Keep>
  Status RemovePieces(const std::string& key, const Keep& keep);

  std::string dir_;
  Env* env_;
};

}  // namespace seqflow
