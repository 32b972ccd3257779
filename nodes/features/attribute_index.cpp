#include "nodes/features/attribute_index.h"

#include <functional>
#include <limits>

#include "engine/base/status.h"

namespace seqflow {

namespace {

constexpr size_t kInitialSlots = 1024;

uint64_t Hash(std::string_view key) { return std::hash<std::string_view>{}(key); }

}  // namespace

size_t AttributeIndex::Probe(std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(hash >> 32);
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.id < 0) return i;
    if (s.tag == tag && std::string_view(arena_).substr(s.offset, s.length) == key) return i;
  }
}

int32_t AttributeIndex::Find(std::string_view key) const {
  if (slots_.empty()) return -1;
  return slots_[Probe(key, Hash(key))].id;
}

std::pair<int32_t, bool> AttributeIndex::Insert(std::string_view key) {
  if (10 * (static_cast<size_t>(size_) + 1) > 7 * slots_.size()) Grow();
  const uint64_t hash = Hash(key);
  Slot& s = slots_[Probe(key, hash)];
  if (s.id >= 0) return {s.id, false};
  if (size_ == std::numeric_limits<int32_t>::max() || arena_.size() + key.size() > std::numeric_limits<uint32_t>::max())
    return {-1, false};
  s = Slot{static_cast<uint32_t>(hash >> 32), size_, static_cast<uint32_t>(arena_.size()),
           static_cast<uint32_t>(key.size())};
  places_.emplace_back(s.offset, s.length);
  arena_.append(key);
  return {size_++, true};
}

std::string_view AttributeIndex::key(int32_t id) const {
  const auto [offset, length] = places_[id];
  return std::string_view(arena_).substr(offset, length);
}

void AttributeIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : 2 * old.size(), Slot{});
  for (const Slot& s : old)
    if (s.id >= 0) slots_[Probe(key(s.id), Hash(key(s.id)))] = s;
}

}  // namespace seqflow
