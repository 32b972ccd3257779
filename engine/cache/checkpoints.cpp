#include "engine/cache/checkpoints.h"

#include <deque>
#include <exception>
#include <set>
#include <string_view>
#include <vector>

#include "engine/base/bytes.h"
#include "engine/base/hash.h"
#include "engine/cache/content_pieces.h"
#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kOnePieceMagic{"SQFLCKP\0", 8};  // the state itself, as first written
constexpr std::string_view kPiecesMagic{"SQFLCKS\0", 8};    // the table of pieces
constexpr uint8_t kInline = 0, kNamed = 1;

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

Checkpoints::Checkpoints(const std::string& cache_dir, Env* env) : dir_(JoinPath(cache_dir, "checkpoints")), env_(env) {}

std::string Checkpoints::PathOf(const std::string& key) const { return JoinPath(dir_, key + ".sfc"); }

std::string Checkpoints::PiecePath(const std::string& key, const std::string& name) const {
  return JoinPath(dir_, key + "." + name + ".sfp");
}

Result<std::optional<std::string>> Checkpoints::Load(const std::string& key) const {
  const std::string path = PathOf(key);
  if (!env_->Exists(path)) return std::optional<std::string>();
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  auto damaged = [&](const std::string& file, const std::string& why) {
    return Status::Corruption("damaged checkpoint " + file + ": " + why);
  };
  if (StartsWith(bytes, kOnePieceMagic)) {
    Result<std::string_view> state = DecodeFrame(bytes, kOnePieceMagic);
    if (!state.ok()) return damaged(path, state.status().message());
    return std::optional<std::string>(std::string(*state));
  }
  Result<std::string_view> table = DecodeFrame(bytes, kPiecesMagic);
  if (!table.ok()) return damaged(path, table.status().message());
  std::string state;
  try {
    ByteReader r(*table);
    state.reserve(r.U64());
    for (uint64_t pieces = r.U64(); pieces > 0; --pieces) {
      if (r.U8() == kInline) {
        state += r.Str();
        continue;
      }
      const std::string name = r.Str();
      const uint64_t length = r.U64();
      const std::string piece_path = PiecePath(key, name);
      Result<std::string> piece = ReadContentPiece(env_, piece_path, name, static_cast<int64_t>(length));
      if (!piece.ok()) return damaged(path, "its piece: " + piece.status().message());
      state += *piece;
    }
    r.ExpectEnd();
  } catch (const StatusError& e) {
    return damaged(path, e.status().message());
  } catch (const std::exception& e) {  // a length too large to reserve
    return damaged(path, e.what());
  }
  return std::optional<std::string>(std::move(state));
}

Status Checkpoints::Store(const std::string& key, StatePieces state) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(dir_));
  // The table's own bytes between the pieces written inline, at stable addresses.
  std::deque<std::string> framing;
  std::vector<std::string_view> payload;
  std::set<std::string> named;
  auto frame = [&](ByteWriter& w) {
    payload.push_back(framing.emplace_back(w.Take()));
    w = ByteWriter();
  };
  const std::vector<StatePieces::Piece>& pieces = state.Pieces();
  ByteWriter w;
  w.U64(state.size()), w.U64(pieces.size());
  for (const StatePieces::Piece& piece : pieces) {
    if (!piece.immutable) {
      w.U8(kInline), w.U64(piece.bytes.size());
      frame(w);
      payload.push_back(piece.bytes);
      continue;
    }
    std::string name = ContentPieceName(piece.bytes);
    SEQFLOW_RETURN_IF_ERROR(WriteContentPiece(env_, PiecePath(key, name), piece.bytes));
    w.U8(kNamed), w.Str(name), w.U64(piece.bytes.size());
    named.insert(std::move(name));
  }
  frame(w);
  const std::string header = FrameHeader(kPiecesMagic, [&] {
    size_t n = 0;
    for (std::string_view part : payload) n += part.size();
    return n;
  }(), Checksum64(payload));
  payload.insert(payload.begin(), header);
  SEQFLOW_RETURN_IF_ERROR(env_->WriteFileAtomicParts(PathOf(key), payload));
  // The new checkpoint is durable: the pieces only the one it replaced named can go.
  return RemovePieces(key, [&](const std::string& name) { return named.count(name) > 0; });
}

template <class Keep>
Status Checkpoints::RemovePieces(const std::string& key, const Keep& keep) {
  if (!env_->Exists(dir_)) return Status::Ok();
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(dir_));
  const std::string prefix = key + ".";
  for (const std::string& file : names) {
    if (!StartsWith(file, prefix) || file == key + ".sfc") continue;
    const std::string_view rest = std::string_view(file).substr(prefix.size());
    const bool piece = rest.size() > 4 && rest.substr(rest.size() - 4) == ".sfp" &&
                       rest.find('.') == rest.size() - 4;
    if (piece && keep(std::string(rest.substr(0, rest.size() - 4)))) continue;
    SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(JoinPath(dir_, file)));
  }
  return Status::Ok();
}

Status Checkpoints::Remove(const std::string& key) {
  const std::string path = PathOf(key);
  if (env_->Exists(path)) SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(path));
  return RemovePieces(key, [](const std::string&) { return false; });
}

}  // namespace seqflow
