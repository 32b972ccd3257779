#include "engine/cache/checkpoints.h"

#include <algorithm>
#include <deque>
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
// A piece this large has a file of its own even when it changes at every save (L-BFGS's x and
// gradient): that file is rewritten in place from a spare, and the table stays small.
constexpr size_t kOwnFileBytes = size_t{1} << 20;

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

Checkpoints::Checkpoints(const std::string& cache_dir, Env* env) : dir_(JoinPath(cache_dir, "checkpoints")), env_(env) {}

std::string Checkpoints::PathOf(const std::string& key) const { return JoinPath(dir_, key + ".sfc"); }

std::string Checkpoints::PiecePath(const std::string& key, const std::string& name) const {
  return JoinPath(dir_, key + "." + name + ".sfp");
}

Result<std::optional<StateSource>> Checkpoints::LoadSource(const std::string& key) const {
  const std::string path = PathOf(key);
  if (!env_->Exists(path)) return std::optional<StateSource>();
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  auto damaged = [path](const std::string& why) { return Status::Corruption("damaged checkpoint " + path + ": " + why); };
  if (StartsWith(bytes, kOnePieceMagic)) {
    Result<std::string_view> state = DecodeFrame(bytes, kOnePieceMagic);
    if (!state.ok()) return damaged(state.status().message());
    return std::optional<StateSource>(StateSource(std::string(*state)));
  }
  Result<std::string_view> table = DecodeFrame(bytes, kPiecesMagic);
  if (!table.ok()) return damaged(table.status().message());
  StateSource state;
  try {
    ByteReader r(*table);
    const uint64_t size = r.U64();
    for (uint64_t pieces = r.U64(); pieces > 0; --pieces) {
      if (r.U8() == kInline) {
        state.AddBytes(r.Str());
        continue;
      }
      const std::string name = r.Str();
      const size_t length = r.U64();
      // Checked here, read later where the reader wants it (StateReader::CountedInto).
      const std::string piece = PiecePath(key, name);
      if (Status checked = CheckContentPiece(env_, piece, name, length); !checked.ok())
        return damaged("its piece: " + checked.message());
      state.AddPiece(length, [env = env_, piece, name, length, damaged](char* dest) {
        Status read = ReadCheckedContentPieceInto(env, piece, name, length, dest);
        return read.ok() ? read : damaged("its piece: " + read.message());
      });
    }
    r.ExpectEnd();
    if (state.size() != size) return damaged("its pieces are not the size it says");
  } catch (const StatusError& e) {
    return damaged(e.status().message());
  }
  return std::optional<StateSource>(std::move(state));
}

Status Checkpoints::Store(const std::string& key, StatePieces state) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(dir_));
  SEQFLOW_ASSIGN_OR_RETURN(KeyFiles before, FilesOf(key));
  // The table's own bytes between the pieces written inline, at stable addresses.
  std::deque<std::string> framing;
  std::vector<std::string_view> payload;
  std::set<std::string> named;
  std::set<uint64_t> identities;
  int written = 0;
  auto frame = [&](ByteWriter& w) {
    payload.push_back(framing.emplace_back(w.Take()));
    w = ByteWriter();
  };
  const std::vector<StatePieces::Piece>& pieces = state.Pieces();
  ByteWriter w;
  w.U64(state.size()), w.U64(pieces.size());
  for (const StatePieces::Piece& piece : pieces) {
    if (!piece.immutable && piece.bytes.size() < kOwnFileBytes) {
      w.U8(kInline), w.U64(piece.bytes.size());
      frame(w);
      payload.push_back(piece.bytes);
      continue;
    }
    std::string name = NameOf(key, piece);
    if (piece.identity != 0) identities.insert(piece.identity);
    const std::string path = PiecePath(key, name);
    if (!env_->Exists(path)) {
      SEQFLOW_RETURN_IF_ERROR(
          WriteContentPieceInto(env_, path, name, piece.bytes, TakeSpare(before, piece.bytes.size())));
      ++written;
    }
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
  KeepNames(key, identities);
  // The new checkpoint is durable: the pieces only the one it replaced named become spares for
  // the next save, which will write about as many.
  return Release(key, before, named, written);
}

std::string Checkpoints::NameOf(const std::string& key, const StatePieces::Piece& piece) {
  if (piece.identity == 0) return ContentPieceName(piece.bytes);
  {
    std::lock_guard<std::mutex> lock(names_mu_);
    auto by_key = names_.find(key);
    if (by_key != names_.end()) {
      auto it = by_key->second.find(piece.identity);
      if (it != by_key->second.end()) return it->second;
    }
  }
  std::string name = ContentPieceName(piece.bytes);
  std::lock_guard<std::mutex> lock(names_mu_);
  names_[key][piece.identity] = name;
  return name;
}

void Checkpoints::KeepNames(const std::string& key, const std::set<uint64_t>& identities) {
  std::lock_guard<std::mutex> lock(names_mu_);
  auto by_key = names_.find(key);
  if (by_key == names_.end()) return;
  std::erase_if(by_key->second, [&](const auto& entry) { return identities.count(entry.first) == 0; });
  if (by_key->second.empty()) names_.erase(by_key);
}

std::string Checkpoints::TakeSpare(KeyFiles& files, size_t bytes) {
  if (files.spares.empty()) return "";
  auto distance = [&](uint64_t size) { return size > bytes ? size - bytes : bytes - size; };
  auto closest = std::min_element(files.spares.begin(), files.spares.end(),
                                  [&](const Spare& a, const Spare& b) { return distance(a.size) < distance(b.size); });
  std::string path = closest->path;
  files.spares.erase(closest);
  return path;
}

Result<Checkpoints::KeyFiles> Checkpoints::FilesOf(const std::string& key) const {
  KeyFiles files;
  if (!env_->Exists(dir_)) return files;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(dir_));
  const std::string prefix = key + ".";
  for (const std::string& file : names) {
    if (!StartsWith(file, prefix) || file == key + ".sfc") continue;
    const std::string_view rest = std::string_view(file).substr(prefix.size());
    const std::string path = JoinPath(dir_, file);
    const size_t dot = rest.find('.');
    const bool one_dot = dot != std::string_view::npos && rest.find('.', dot + 1) == std::string_view::npos;
    if (one_dot && rest.substr(dot) == ".sfp") {
      files.pieces.emplace_back(rest.substr(0, dot));
    } else if (one_dot && rest.substr(dot) == ".spare") {
      Result<FileStat> st = env_->Stat(path);
      if (!st.ok() && !env_->Exists(path)) continue;  // removed meanwhile by another worker
      SEQFLOW_RETURN_IF_ERROR(st.status());
      files.spares.push_back({path, st->size});
    } else {
      files.others.push_back(path);  // temporary files of a killed save
    }
  }
  return files;
}

Status Checkpoints::Release(const std::string& key, const KeyFiles& before, const std::set<std::string>& named,
                            int spares) {
  // The spares the save left first, then the pieces no save names (renamed), up to `spares`.
  std::set<std::string> kept;
  for (const Spare& spare : before.spares) {
    if (spares == 0) {
      SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(spare.path));
      continue;
    }
    --spares, kept.insert(spare.path);
  }
  int index = 0;
  for (const std::string& name : before.pieces) {
    if (named.count(name) > 0) continue;
    if (spares == 0) {
      SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(PiecePath(key, name)));
      continue;
    }
    std::string spare;
    do spare = JoinPath(dir_, key + "." + std::to_string(index++) + ".spare");
    while (kept.count(spare) > 0);
    SEQFLOW_RETURN_IF_ERROR(env_->Rename(PiecePath(key, name), spare));
    --spares, kept.insert(spare);
  }
  for (const std::string& path : before.others) SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(path));
  return Status::Ok();
}

Status Checkpoints::Remove(const std::string& key) {
  KeepNames(key, {});
  // Two workers may remove one key's files at once (the publisher of its entry and another
  // process loading that entry): a file the other removed first is not an error.
  auto remove = [&](const std::string& path) {
    Status removed = env_->RemoveFile(path);
    return removed.ok() || !env_->Exists(path) ? Status::Ok() : removed;
  };
  const std::string path = PathOf(key);
  if (env_->Exists(path)) SEQFLOW_RETURN_IF_ERROR(remove(path));
  SEQFLOW_ASSIGN_OR_RETURN(KeyFiles files, FilesOf(key));
  for (const std::string& name : files.pieces) SEQFLOW_RETURN_IF_ERROR(remove(PiecePath(key, name)));
  for (const Spare& spare : files.spares) SEQFLOW_RETURN_IF_ERROR(remove(spare.path));
  for (const std::string& other : files.others) SEQFLOW_RETURN_IF_ERROR(remove(other));
  return Status::Ok();
}

}  // namespace seqflow
