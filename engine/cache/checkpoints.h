// Checkpoints: the saved state of an iterative node instance that has not finished yet
// (DESIGN §11) — what a rerun after a crash or a kill resumes from.
//   <cache>/checkpoints/<key>.sfc          the state: its pieces in order, each either written
//                                          inline or named by the XXH3-128 of its bytes
//   <cache>/checkpoints/<key>.<name>.sfp   an immutable piece (StatePieces::AppendImmutable) or a
//                                          large one, written by the first save that refers to it
//   <cache>/checkpoints/<key>.<n>.spare    a piece no save names any more, to be written over
// Every file is framed like an entry (magic, length, checksum; entry_format.h) and published by
// rename, pieces before the checkpoint that names them, so a checkpoint that loads is whole and
// a piece is checked against its name; a damaged or incomplete one is reported and ignored (the
// node starts over). A piece of 1 MB or more has a file of its own even when it is not immutable
// (x is new at every save), so the table stays small. An immutable piece given an identity is
// hashed for its name only by the first save that holds it (an L-BFGS pair: 4 x 42 MB a save). Pieces no longer named become spares
// (<key>.<n>.spare, as many as the last save wrote) once the save naming the new ones is
// durable, and the next save writes its new pieces over them in place: a file rewritten at its
// size costs the filesystem no allocation and the page cache no new pages (bench/RESULTS.md,
// "Checkpoints rewritten in place"). A spare is never read, so a save killed while writing one
// leaves nothing that loads. A checkpoint of the earlier one-piece format (magic SQFLCKP) still
// loads: its bytes are the state, the same bytes the pieces join to.
// Removed, pieces included, once the node's entry is published; `cache gc` removes the files of
// a key whose entry exists (cache.h).
// Thread safety: all methods may be called concurrently (different keys, or one writer).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/base/state_pieces.h"
#include "engine/base/state_source.h"
#include "engine/base/status.h"

namespace seqflow {

class Checkpoints {
 public:
  Checkpoints(const std::string& cache_dir, Env* env);

  // The state (its pieces, which join to the bytes saved); nullopt when there is none;
  // Corruption naming the file for a damaged one or a missing or damaged piece. Every piece is
  // checked here but none held: each is read only where the StateSource's reader wants it (a
  // resume of crf.train into L-BFGS's own vectors) or when it is joined.
  Result<std::optional<StateSource>> LoadSource(const std::string& key) const;
  Status Store(const std::string& key, StatePieces state);
  Status Remove(const std::string& key);  // the checkpoint and its pieces
  std::string PathOf(const std::string& key) const;

 private:
  struct Spare {
    std::string path;
    uint64_t size = 0;
  };
  // The files of a key besides its table: named pieces, spares, anything else (temporary files).
  struct KeyFiles {
    std::vector<std::string> pieces;  // names
    std::vector<Spare> spares;
    std::vector<std::string> others;  // paths
  };
  std::string PiecePath(const std::string& key, const std::string& name) const;
  Result<KeyFiles> FilesOf(const std::string& key) const;
  // The spare closest in size to `bytes`, taken out of `files` ("" when none is left).
  static std::string TakeSpare(KeyFiles& files, size_t bytes);
  // After a save naming `named`: keeps up to `spares` spares (those of `before` the save left,
  // then the pieces no longer named, renamed) and removes the other files of `before`.
  Status Release(const std::string& key, const KeyFiles& before, const std::set<std::string>& named, int spares);

  // The name of a piece of `key`'s saves: remembered for an immutable piece with an identity,
  // hashed otherwise (and the first time).
  std::string NameOf(const std::string& key, const StatePieces::Piece& piece);
  // After a save of `key`: forgets the identities it did not name.
  void KeepNames(const std::string& key, const std::set<uint64_t>& identities);

  std::string dir_;
  Env* env_;
  std::mutex names_mu_;
  std::map<std::string, std::map<uint64_t, std::string>> names_;  // key -> identity -> name
};

}  // namespace seqflow
