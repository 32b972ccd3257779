// AttributeIndex: the string -> dense id table behind FeatureDictionary, built for its hot loop
// (millions of lookups of short attribute strings per corpus).
//
// Open addressing with linear probing; keys are stored back to back in one arena and every slot
// carries its key's place and 32 bits of its hash, so a lookup touches one slot and one arena
// line and an insert allocates nothing per key (std::unordered_map<std::string, int> touches a
// bucket, a node and the string's heap block, and allocates a node per key).
// Ids are dense, in insertion order. Thread safety: const methods may run concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seqflow {

class AttributeIndex {
 public:
  int32_t size() const { return size_; }
  // The id of `key`, or -1.
  int32_t Find(std::string_view key) const;
  // The id of `key`, adding it with id size() when absent; second = whether it was added.
  // {-1, false} when the key would not fit: past 2^31 keys or 4 GiB of key bytes.
  std::pair<int32_t, bool> Insert(std::string_view key);
  std::string_view key(int32_t id) const;

 private:
  struct Slot {
    uint32_t tag = 0;  // high half of the key's hash
    int32_t id = -1;   // -1: empty
    uint32_t offset = 0;
    uint32_t length = 0;
  };
  // The slot holding `key`, or the empty slot where it would go.
  size_t Probe(std::string_view key, uint64_t hash) const;
  void Grow();

  std::vector<Slot> slots_;                            // power-of-two size, at most 70% full
  std::string arena_;                                  // every key, back to back
  std::vector<std::pair<uint32_t, uint32_t>> places_;  // [id] (offset, length) in the arena
  int32_t size_ = 0;
};

}  // namespace seqflow
