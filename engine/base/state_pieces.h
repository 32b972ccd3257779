// StatePieces: a checkpoint state (NodeContext::Checkpoint, DESIGN §11) handed to the engine in
// pieces, so that a large state is written from where it lives instead of being copied into one
// string, and so that what does not change between saves is written once. The state's bytes are
// the pieces' concatenation, in order — what ResumeState gives back. A piece is
//   - owned bytes (the counters, small tables: written into the checkpoint at every save),
//   - a view of bytes the kernel holds (x: written at every save, never copied), or
//   - an immutable view (an L-BFGS correction pair, fixed once completed): the engine names it by
//     its content and writes it once beside the checkpoint, however many saves refer to it.
// Views must stay valid and unchanged until the Checkpoint call that received the pieces returns.
// Not thread-safe; movable, not copyable (views may point into owned pieces' neighbours).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/bytes.h"

namespace seqflow {

// A process-wide unique identity for an immutable piece (never 0).
uint64_t NewPieceIdentity();

class StatePieces {
 public:
  struct Piece {
    std::string_view bytes;
    bool immutable = false;
    uint64_t identity = 0;  // of an immutable piece: see AppendImmutable
  };

  StatePieces() = default;
  StatePieces(std::string bytes);  // NOLINT(google-explicit-constructor): a state in one piece
  StatePieces(StatePieces&&) = default;
  StatePieces& operator=(StatePieces&&) = default;
  StatePieces(const StatePieces&) = delete;
  StatePieces& operator=(const StatePieces&) = delete;

  // Appends to the owned bytes at the end of the state.
  ByteWriter& writer() { return open_; }
  void Append(std::string bytes);
  void AppendView(std::string_view bytes);
  // `identity`, when not 0, names these bytes for the whole process (NewPieceIdentity): the engine
  // then hashes them for their name once, not at every save that still holds them.
  void AppendImmutable(std::string_view bytes, uint64_t identity = 0);

  // The pieces in order (empty ones left out).
  const std::vector<Piece>& Pieces();
  size_t size();
  // The state as one string (moves the first piece when it is owned).
  std::string Join() &&;

 private:
  void Close();  // ends the open owned bytes

  std::deque<std::string> owned_;  // stable addresses for the pieces' views
  std::vector<Piece> pieces_;
  ByteWriter open_;
  bool first_owned_ = false;  // pieces_[0] is owned_[0]
};

}  // namespace seqflow
