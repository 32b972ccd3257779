#include "engine/base/hash.h"

#include <xxhash.h>

#include <cstdio>

namespace seqflow {

struct Hasher::State {
  XXH3_state_t* xx = XXH3_createState();
  ~State() { XXH3_freeState(xx); }
};

Hasher::Hasher() : state_(std::make_unique<State>()) { XXH3_128bits_reset(state_->xx); }
Hasher::~Hasher() = default;

Hasher& Hasher::AddU64(uint64_t v) {
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
  XXH3_128bits_update(state_->xx, le, sizeof le);
  return *this;
}

Hasher& Hasher::Add(std::string_view bytes) {
  AddU64(bytes.size());
  return AddRaw(bytes);
}

Hasher& Hasher::AddRaw(std::string_view bytes) {
  XXH3_128bits_update(state_->xx, bytes.data(), bytes.size());
  return *this;
}

static std::string Hex128(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

std::string Hasher::HexDigest() const { return Hex128(XXH3_128bits_digest(state_->xx)); }

std::string HashHex(std::string_view bytes) { return Hex128(XXH3_128bits(bytes.data(), bytes.size())); }

uint64_t Checksum64(std::string_view bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

uint64_t Checksum64(const std::vector<std::string_view>& parts) {
  XXH64_state_t* state = XXH64_createState();
  XXH64_reset(state, 0);
  for (std::string_view part : parts) XXH64_update(state, part.data(), part.size());
  const uint64_t sum = XXH64_digest(state);
  XXH64_freeState(state);
  return sum;
}

}  // namespace seqflow
