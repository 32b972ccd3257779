#include "engine/cache/content_pieces.h"

#include <algorithm>
#include <cstdlib>
#include <span>

#include "engine/base/bytes.h"
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

// Checks a piece file's frame header: its magic, version, `payload_size` and, for a frame that
// carries the name, the name. Why not, in a short phrase.
Status CheckFrame(std::string_view header, size_t payload_size, const std::string& name) {
  if (header.size() < kEntryHeaderSize) return Status::Corruption("truncated: no whole frame header");
  const std::string_view magic = header.substr(0, kNamedPieceMagic.size());
  ByteReader r(header.substr(magic.size(), kEntryHeaderSize - magic.size()));
  const uint32_t version = r.U32();
  const uint64_t length = r.U64(), checksum = r.U64();
  if (magic != kNamedPieceMagic && magic != kChecksummedPieceMagic)
    return Status::Corruption("bad magic (not a seqflow piece)");
  if (version != kEntryFormatVersion) return Status::Corruption("unknown format version " + std::to_string(version));
  if (length != payload_size) return Status::Corruption("length mismatch: the header says " + std::to_string(length));
  if (magic == kNamedPieceMagic && checksum != NameChecksum(name))
    return Status::Corruption("its frame is not the piece its name says");
  return Status::Ok();
}

// CheckFrame, then the payload against the name (and an earlier frame's XXH64).
Status CheckPiece(std::string_view header, std::string_view payload, const std::string& name) {
  SEQFLOW_RETURN_IF_ERROR(CheckFrame(header, payload.size(), name));
  if (header.substr(0, kChecksummedPieceMagic.size()) == kChecksummedPieceMagic &&
      ByteReader(header.substr(kEntryHeaderSize - 8)).U64() != Checksum64(payload))
    return Status::Corruption("checksum mismatch");
  if (ContentPieceName(payload) != name) return Status::Corruption("its bytes are not the piece its name says");
  return Status::Ok();
}

Status Damaged(const std::string& path, const Status& why) {
  return Status::Corruption("damaged piece " + path + ": " + why.message());
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
  const size_t header = std::min(file.size(), kEntryHeaderSize);
  Status damaged = CheckPiece(file.substr(0, header), file.substr(header), name);
  if (damaged.ok() && expected_length >= 0 && file.size() - header != static_cast<size_t>(expected_length))
    damaged = Status::Corruption("it is not the length its checkpoint says");
  if (!damaged.ok()) {
    out->resize(start);
    return Damaged(path, damaged);
  }
  // The payload sits after the frame's header: drop the header in place rather than copy.
  out->erase(start, header);
  return Status::Ok();
}

Status CheckContentPiece(Env* env, const std::string& path, const std::string& name, size_t length) {
  std::string header;
  Hasher payload;
  size_t payload_size = 0;
  SEQFLOW_RETURN_IF_ERROR(env->ReadFileChunks(path, size_t{1} << 20, [&](std::string_view chunk) {
    const size_t to_header = std::min(chunk.size(), kEntryHeaderSize - header.size());
    header.append(chunk.substr(0, to_header));
    payload.AddRaw(chunk.substr(to_header));
    payload_size += chunk.size() - to_header;
    return Status::Ok();
  }));
  if (header.substr(0, kChecksummedPieceMagic.size()) == kChecksummedPieceMagic) {
    std::string joined;  // an earlier build's piece: checked whole, XXH64 included
    return AppendContentPiece(env, path, name, static_cast<int64_t>(length), &joined);
  }
  Status damaged = CheckFrame(header, payload_size, name);
  if (damaged.ok() && payload.HexDigest() != name)
    damaged = Status::Corruption("its bytes are not the piece its name says");
  if (damaged.ok() && payload_size != length) damaged = Status::Corruption("it is not the length its checkpoint says");
  return damaged.ok() ? damaged : Damaged(path, damaged);
}

Status ReadCheckedContentPieceInto(Env* env, const std::string& path, const std::string& name, size_t length,
                                   char* dest) {
  char header[kEntryHeaderSize];
  SEQFLOW_RETURN_IF_ERROR(env->ReadFileInto(path, {std::span<char>(header), std::span<char>(dest, length)}));
  const std::string_view frame(header, sizeof header);
  const Status damaged = frame.substr(0, kChecksummedPieceMagic.size()) == kChecksummedPieceMagic
                             ? CheckPiece(frame, std::string_view(dest, length), name)
                             : CheckFrame(frame, length, name);
  return damaged.ok() ? damaged : Damaged(path, damaged);
}

}  // namespace seqflow
