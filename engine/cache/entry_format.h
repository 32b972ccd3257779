// The bytes of one cache entry file (the layout is documented in cache.h):
//   magic "SQFLART\0" | u32 format version | u64 payload length | u64 XXH64(payload) | payload
// Encoding is pure; decoding checks every field and says what is wrong in a short phrase
// ("bad magic", "checksum mismatch ..."), which the Cache prefixes with the file's path.
// Thread safety: stateless functions, safe to call concurrently.
#pragma once

#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/registry.h"
#include "engine/base/status.h"
#include "engine/cache/cache.h"

namespace seqflow {

inline constexpr std::string_view kEntryMagic{"SQFLART\0", 8};
inline constexpr uint32_t kEntryFormatVersion = 1;
inline constexpr size_t kEntryHeaderSize = 8 + 4 + 8 + 8;

// What List needs from an entry without loading its artifact.
struct EntrySummary {
  std::string kind;
  std::string artifact_type;
};

// REQUIRES: entry.artifact != nullptr. The entry is stored under entry.key.
std::string EncodeEntry(const CacheEntry& entry);
// EncodeEntry's bytes in three parts to write in turn (Env::WriteFileAtomicParts): the frame
// header, the entry's fields up to the artifact's length, and the artifact's bytes where its Save
// left them, so a large artifact is held once while it is written, not three times.
struct EntryParts {
  std::string header;
  std::string fields;
  std::string artifact;
  std::vector<std::string_view> views() const { return {header, fields, artifact}; }
};
// REQUIRES: entry.artifact != nullptr. The entry is stored under `key` (whatever entry.key says).
EntryParts EncodeEntryParts(const std::string& key, const CacheEntry& entry);
// `payload` framed as above, with `magic` (8 bytes) in front: entries use kEntryMagic, the run
// history (run_history.h) its own.
std::string EncodeFrame(std::string_view magic, std::string_view payload);
// The same, framing `payload` where it is: no second copy of a large one (a checkpoint).
std::string EncodeFrameInPlace(std::string_view magic, std::string&& payload);
// The header of such a frame (magic, version, length, checksum) for a payload written apart.
std::string FrameHeader(std::string_view magic, uint64_t payload_length, uint64_t payload_checksum);
// Verifies magic, format version, length and checksum; returns the payload (a view into `file`).
Result<std::string_view> DecodeFrame(std::string_view file, std::string_view magic = kEntryMagic);
// The same but the checksum, returned unverified beside the payload: for a frame whose payload
// the caller checks by a stronger hash it computes anyway (a content-named piece).
struct FramePayload {
  std::string_view payload;
  uint64_t checksum = 0;
};
Result<FramePayload> DecodeFrameHeader(std::string_view file, std::string_view magic);

// Runs a decoder that reports damage by throwing (ByteReader, artifact loaders) and turns what
// it throws into Corruption prefixed with `what`, so a bad file never escapes as an exception.
template <class F>
auto Guarded(const std::string& what, F&& decode) -> Result<decltype(decode())> {
  try {
    return decode();
  } catch (const StatusError& e) {
    return Status::Corruption(what + ": " + e.status().message());
  } catch (const std::exception& e) {
    return Status::Corruption(what + ": " + e.what());
  }
}
// Frame plus payload, with the artifact loaded through `registry`; an artifact of
// `defer_from_bytes` bytes or more is left unloaded (null), its type and version checked against
// the registry.
Result<CacheEntry> DecodeEntry(std::string_view file, const Registry& registry,
                               size_t defer_from_bytes = std::numeric_limits<size_t>::max());
// Frame plus the kind and artifact type, without loading the artifact.
Result<EntrySummary> SummarizeEntry(std::string_view file);

}  // namespace seqflow
