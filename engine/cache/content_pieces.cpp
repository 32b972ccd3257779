#include "engine/cache/content_pieces.h"

#include "engine/base/hash.h"
#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kPieceMagic{"SQFLCKQ\0", 8};

}  // namespace

std::string ContentPieceName(std::string_view bytes) { return HashHex(bytes); }

Status WriteContentPiece(Env* env, const std::string& path, std::string_view bytes) {
  return env->Exists(path) ? Status::Ok() : WriteContentPieceInto(env, path, bytes, "");
}

Status WriteContentPieceInto(Env* env, const std::string& path, std::string_view bytes, const std::string& reuse) {
  return env->WriteFileAtomicPartsInto(path, {FrameHeader(kPieceMagic, bytes.size(), Checksum64(bytes)), bytes}, reuse);
}

Result<std::string> ReadContentPiece(Env* env, const std::string& path, const std::string& name,
                                     int64_t expected_length) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string file, env->ReadFile(path));
  Result<std::string_view> bytes = DecodeFrame(file, kPieceMagic);
  if (!bytes.ok()) return Status::Corruption("damaged piece " + path + ": " + bytes.status().message());
  if ((expected_length >= 0 && bytes->size() != static_cast<size_t>(expected_length)) ||
      ContentPieceName(*bytes) != name)
    return Status::Corruption("damaged piece " + path + ": its bytes are not the piece its name says");
  // The payload sits after the frame's header: drop the header in place rather than copy.
  const size_t header = static_cast<size_t>(bytes->data() - file.data());
  file.erase(0, header);
  return file;
}

}  // namespace seqflow
