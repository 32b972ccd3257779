#include "engine/base/state_pieces.h"

#include <atomic>

namespace seqflow {

StatePieces::StatePieces(std::string bytes) { Append(std::move(bytes)); }

void StatePieces::Close() {
  if (open_.bytes().empty()) return;
  std::string bytes = open_.Take();
  open_ = ByteWriter();
  Append(std::move(bytes));
}

void StatePieces::Append(std::string bytes) {
  Close();
  if (bytes.empty()) return;
  if (pieces_.empty()) first_owned_ = true;
  owned_.push_back(std::move(bytes));
  pieces_.push_back({owned_.back(), false});
}

void StatePieces::AppendView(std::string_view bytes) {
  Close();
  if (!bytes.empty()) pieces_.push_back({bytes, false});
}

uint64_t NewPieceIdentity() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void StatePieces::AppendImmutable(std::string_view bytes, uint64_t identity) {
  Close();
  if (!bytes.empty()) pieces_.push_back({bytes, true, identity});
}

const std::vector<StatePieces::Piece>& StatePieces::Pieces() {
  Close();
  return pieces_;
}

size_t StatePieces::size() {
  size_t n = 0;
  for (const Piece& p : Pieces()) n += p.bytes.size();
  return n;
}

std::string StatePieces::Join() && {
  Close();
  std::string out;
  size_t from = 0;
  if (first_owned_) out = std::move(owned_.front()), from = 1;
  size_t total = out.size();
  for (size_t i = from; i < pieces_.size(); ++i) total += pieces_[i].bytes.size();
  out.reserve(total);
  for (size_t i = from; i < pieces_.size(); ++i) out.append(pieces_[i].bytes);
  pieces_.clear(), owned_.clear(), first_owned_ = false;
  return out;
}

}  // namespace seqflow
