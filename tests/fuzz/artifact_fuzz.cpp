// libFuzzer target: bytes -> a cache entry and its artifact, or a clean Corruption. The input is
// an entry's payload (kind, artifact type and version, metrics, attachments, the artifact's
// bytes: entry_format.h); it is framed with a valid checksum so that every registered artifact
// type's Load sees the mutated bytes, and it is also decoded as a whole file so that the frame's
// own checks (magic, version, length, checksum) see them. A loaded artifact must save again. The
// same bytes framed as a run history (run_history.h) reach its decoder too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/cache/entry_format.h"
#include "engine/cache/run_history.h"
#include "nodes/registry.h"

namespace {

const seqflow::Registry& AllTypes() {
  static const seqflow::Registry* registry = [] {
    auto* r = new seqflow::Registry;
    seqflow::RegisterAllNodes(*r);
    return r;
  }();
  return *registry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace seqflow;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string framed = EncodeFrame(kEntryMagic, input);
  Result<CacheEntry> entry = DecodeEntry(framed, AllTypes());
  if (entry.ok()) {
    ByteWriter saved;
    entry->artifact->Save(saved);
    entry->artifact->Describe();
  }
  (void)SummarizeEntry(framed);
  (void)DecodeEntry(input, AllTypes());
  (void)DecodeRunHistory(EncodeFrame(std::string_view("SQFLRUN\0", 8), input));
  return 0;
}
