#include "engine/cache/entry_format.h"

#include <cinttypes>
#include <cstdio>

#include "engine/api/artifact.h"
#include "engine/base/hash.h"

namespace seqflow {
namespace {

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

EntryParts EncodeEntryParts(const std::string& key, const CacheEntry& entry) {
  ByteWriter artifact;
  entry.artifact->Save(artifact);
  ByteWriter payload;
  payload.Str(key);
  payload.Str(entry.kind);
  payload.Str(entry.artifact->type());
  payload.U32(entry.artifact->version());
  payload.F64(entry.seconds);
  payload.U64(entry.metrics.size());
  for (const auto& [name, value] : entry.metrics) {
    payload.Str(name);
    payload.F64(value);
  }
  payload.U64(entry.attachments.size());
  for (const auto& [suffix, content] : entry.attachments) {
    payload.Str(suffix);
    payload.Str(content);
  }
  payload.U64(artifact.bytes().size());  // the artifact is the payload's last Str
  EntryParts parts;
  parts.fields = payload.Take();
  parts.artifact = artifact.Take();
  parts.header = FrameHeader(kEntryMagic, parts.fields.size() + parts.artifact.size(),
                             Checksum64(std::vector<std::string_view>{parts.fields, parts.artifact}));
  return parts;
}

std::string EncodeEntry(const CacheEntry& entry) {
  const EntryParts parts = EncodeEntryParts(entry.key, entry);
  return parts.header + parts.fields + parts.artifact;
}

std::string EncodeFrame(std::string_view magic, std::string_view payload) {
  ByteWriter header;
  header.U32(kEntryFormatVersion);
  header.U64(payload.size());
  header.U64(Checksum64(payload));
  std::string file(magic);
  file += header.bytes();
  file += payload;
  return file;
}

std::string FrameHeader(std::string_view magic, uint64_t payload_length, uint64_t payload_checksum) {
  ByteWriter header;
  header.U32(kEntryFormatVersion);
  header.U64(payload_length);
  header.U64(payload_checksum);
  return std::string(magic) + header.bytes();
}

std::string EncodeFrameInPlace(std::string_view magic, std::string&& payload) {
  ByteWriter header;
  header.U32(kEntryFormatVersion);
  header.U64(payload.size());
  header.U64(Checksum64(payload));
  std::string prefix(magic);
  prefix += header.bytes();
  payload.insert(0, prefix);
  return std::move(payload);
}

Result<FramePayload> DecodeFrameHeader(std::string_view file, std::string_view magic) {
  if (file.size() < kEntryHeaderSize)
    return Status::Corruption("truncated: " + std::to_string(file.size()) + " bytes, the header alone needs " +
                              std::to_string(kEntryHeaderSize));
  if (file.substr(0, magic.size()) != magic) return Status::Corruption("bad magic (not a seqflow cache file)");
  ByteReader header(file.substr(magic.size(), kEntryHeaderSize - magic.size()));
  uint32_t version = header.U32();
  uint64_t length = header.U64();
  uint64_t checksum = header.U64();
  if (version != kEntryFormatVersion)
    return Status::Corruption("unknown format version " + std::to_string(version) + " (this build reads " +
                              std::to_string(kEntryFormatVersion) + ")");
  std::string_view payload = file.substr(kEntryHeaderSize);
  if (length != payload.size())
    return Status::Corruption(std::string(length > payload.size() ? "truncated" : "length mismatch") +
                              ": header says " + std::to_string(length) + " payload bytes, file has " +
                              std::to_string(payload.size()));
  return FramePayload{payload, checksum};
}

Result<std::string_view> DecodeFrame(std::string_view file, std::string_view magic) {
  SEQFLOW_ASSIGN_OR_RETURN(const FramePayload frame, DecodeFrameHeader(file, magic));
  uint64_t actual = Checksum64(frame.payload);
  if (actual != frame.checksum)
    return Status::Corruption("checksum mismatch (stored " + Hex64(frame.checksum) + ", computed " + Hex64(actual) +
                              ")");
  return frame.payload;
}

Result<CacheEntry> DecodeEntry(std::string_view file, const Registry& registry, size_t defer_from_bytes) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string_view payload, DecodeFrame(file));
  ByteReader r(payload);
  std::string type;
  std::string_view bytes;
  uint32_t version = 0;
  auto parse_fields = [&] {
    CacheEntry e;
    e.key = r.Str();
    e.kind = r.Str();
    e.artifact_type = type = r.Str();
    version = r.U32();
    e.seconds = r.F64();
    for (size_t i = 0, n = r.Count(16); i < n; ++i) {
      std::string name = r.Str();
      e.metrics[name] = r.F64();
    }
    for (size_t i = 0, n = r.Count(16); i < n; ++i) {
      std::string suffix = r.Str();
      e.attachments.emplace_back(std::move(suffix), r.Str());
    }
    bytes = r.StrView();
    r.ExpectEnd();
    return e;
  };
  auto load_artifact = [&]() -> ArtifactPtr {
    if (bytes.size() >= defer_from_bytes) {
      registry.CheckArtifactVersion(type, version);
      return nullptr;
    }
    ByteReader artifact(bytes);
    ArtifactPtr loaded = registry.LoadArtifact(type, version, artifact);
    artifact.ExpectEnd();
    if (loaded == nullptr) throw StatusError(Status::Corruption("the loader returned nothing"));
    return loaded;
  };
  SEQFLOW_ASSIGN_OR_RETURN(CacheEntry entry, Guarded("malformed entry", parse_fields));
  SEQFLOW_ASSIGN_OR_RETURN(entry.artifact, Guarded("artifact " + type + " failed to load", load_artifact));
  return entry;
}

Result<EntrySummary> SummarizeEntry(std::string_view file) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string_view payload, DecodeFrame(file));
  return Guarded("malformed entry", [&] {
    ByteReader r(payload);
    EntrySummary summary;
    r.Str();  // the key
    summary.kind = r.Str();
    summary.artifact_type = r.Str();
    return summary;
  });
}

}  // namespace seqflow
