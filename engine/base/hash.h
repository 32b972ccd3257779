// Content hashing for cache keys and artifact checksums (xxHash: XXH3-128 for keys, XXH64 for
// checksums). Hashes are stable across runs, machines and builds of the same version.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace seqflow {

// Streaming 128-bit hasher. Each Add is length-prefixed, so ("ab","c") != ("a","bc").
// Not thread safe.
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  Hasher& Add(std::string_view bytes);
  Hasher& AddU64(uint64_t v);
  // Without the length prefix: a Hasher given only AddRaw's bytes has HashHex of their
  // concatenation (a file hashed a chunk at a time).
  Hasher& AddRaw(std::string_view bytes);
  // 32 lowercase hex digits.
  std::string HexDigest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// 32 hex digits of XXH3-128 over `bytes`.
std::string HashHex(std::string_view bytes);
// XXH64 of `bytes`, for checksums.
uint64_t Checksum64(std::string_view bytes);
// XXH64 of the concatenation of `parts`.
uint64_t Checksum64(const std::vector<std::string_view>& parts);

}  // namespace seqflow
