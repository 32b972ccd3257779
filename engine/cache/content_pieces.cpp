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
  std::string bytes;
  SEQFLOW_RETURN_IF_ERROR(AppendContentPiece(env, path, name, expected_length, &bytes));
  return bytes;
}

Status AppendContentPiece(Env* env, const std::string& path, const std::string& name, int64_t expected_length,
                          std::string* out) {
  const size_t start = out->size();
  SEQFLOW_RETURN_IF_ERROR(env->AppendFile(path, out));
  const std::string_view file = std::string_view(*out).substr(start);
  Result<std::string_view> bytes = DecodeFrame(file, kPieceMagic);
  Status damaged;
  if (!bytes.ok())
    damaged = Status::Corruption("damaged piece " + path + ": " + bytes.status().message());
  else if ((expected_length >= 0 && bytes->size() != static_cast<size_t>(expected_length)) ||
           ContentPieceName(*bytes) != name)
    damaged = Status::Corruption("damaged piece " + path + ": its bytes are not the piece its name says");
  if (!damaged.ok()) {
    out->resize(start);
    return damaged;
  }
  // The payload sits after the frame's header: drop the header in place rather than copy.
  out->erase(start, static_cast<size_t>(bytes->data() - file.data()));
  return Status::Ok();
}

}  // namespace seqflow
