// The bytes of one cache entry file (the layout is documented in cache.h):
//   magic "SQFLART\0" | u32 format version | u64 payload length | u64 XXH64(payload) | payload
// Encoding is pure; decoding checks every field and says what is wrong in a short phrase
// ("bad magic", "checksum mismatch ..."), which the Cache prefixes with the file's path.
// Thread safety: stateless functions, safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// REQUIRES: entry.artifact != nullptr.
std::string EncodeEntry(const CacheEntry& entry);
// Verifies magic, format version, length and checksum; returns the payload (a view into `file`).
Result<std::string_view> DecodeFrame(std::string_view file);
// Frame plus payload, with the artifact loaded through `registry`.
Result<CacheEntry> DecodeEntry(std::string_view file, const Registry& registry);
// Frame plus the kind and artifact type, without loading the artifact.
Result<EntrySummary> SummarizeEntry(std::string_view file);

}  // namespace seqflow
