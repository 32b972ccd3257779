#include "engine/cache/content_pieces.h"

#include <cstdlib>

#include "engine/base/hash.h"
#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kNamedPieceMagic{"SQFLCKN\0", 8};
constexpr std::string_view kChecksummedPieceMagic{"SQFLCKQ\0", 8};  // the earlier frame: XXH64 too

// The frame's checksum field of a piece named `name`: the name's low 64 bits (its last 16 hex
// digits); 0 for a name that is not 32 hex digits, which no piece's bytes hash to.
uint64_t NameChecksum(const std::string& name) {
  if (name.size() != 32) return 0;
  char* end = nullptr;
  const std::string low = name.substr(16);
  const uint64_t value = std::strtoull(low.c_str(), &end, 16);
  return end == low.c_str() + low.size() ? value : 0;
}

// The payload of a piece file, checked by its frame; the name is checked by the caller.
Result<std::string_view> PiecePayload(std::string_view file, const std::string& name) {
  if (file.substr(0, kChecksummedPieceMagic.size()) == kChecksummedPieceMagic)
    return DecodeFrame(file, kChecksummedPieceMagic);
  SEQFLOW_ASSIGN_OR_RETURN(const FramePayload frame, DecodeFrameHeader(file, kNamedPieceMagic));
  if (frame.checksum != NameChecksum(name)) return Status::Corruption("its frame is not the piece its name says");
  return frame.payload;
}

}  // namespace

std::string ContentPieceName(std::string_view bytes) { return HashHex(bytes); }

Status WriteContentPiece(Env* env, const std::string& path, const std::string& name, std::string_view bytes) {
  return env->Exists(path) ? Status::Ok() : WriteContentPieceInto(env, path, name, bytes, "");
}

Status WriteContentPieceInto(Env* env, const std::string& path, const std::string& name, std::string_view bytes,
                             const std::string& reuse) {
  return env->WriteFileAtomicPartsInto(path, {FrameHeader(kNamedPieceMagic, bytes.size(), NameChecksum(name)), bytes},
                                       reuse);
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
  Result<std::string_view> bytes = PiecePayload(file, name);
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
