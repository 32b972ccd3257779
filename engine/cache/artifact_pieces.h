// ArtifactPieces: the engine's PieceStore (engine/api/piece_store.h), beside the entries:
//   <cache>/pieces/<owner key>.<XXH3-128 of the bytes>.sfp
// framed and checked as content pieces (content_pieces.h). A piece's name is
// "<owner key>.<hash>", so gc knows its owner without loading any entry: Cache::Gc removes the
// pieces whose owner has no entry once they are older than a writer can be (an hour: the owner
// may still be computing), and Cache::Load checks every piece an artifact names.
// Thread safety: as PieceStore.
#pragma once

#include <string>

#include "engine/api/piece_store.h"
#include "engine/base/env.h"

namespace seqflow {

class ArtifactPieces final : public PieceStore {
 public:
  // `owner_key`: the key of the entry the pieces Put here belong to ("" for a store that only
  // reads).
  ArtifactPieces(const std::string& cache_dir, std::string owner_key, Env* env);

  Result<std::string> Put(std::string_view bytes) override;
  Result<std::string> Get(const std::string& name) const override;
  // Ok when piece `name` is there and whole (reads and checks it); Corruption naming the file.
  Status Check(const std::string& name) const;

  std::string PathOf(const std::string& name) const;
  // The owner key of a piece file's name, or "" for a file that is not a piece.
  static std::string OwnerOf(const std::string& file_name);
  static std::string DirOf(const std::string& cache_dir);

 private:
  std::string dir_;
  std::string owner_key_;
  Env* env_;
};

}  // namespace seqflow
