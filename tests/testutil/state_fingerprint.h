// StateFingerprint: a 64-bit FNV-1a of a kernel's checkpoint state (KernelCheckpoints' offer and
// keep_final, LbfgsCheckpoints), to pin its bytes in a test without storing them.
//
// Why pinned: a state saved by an earlier build must still resume (users' caches hold the
// checkpoints and final states that build wrote), so the bytes a kernel writes for a given run
// are part of its interface, whatever the code that writes them. A change that moves them fails
// the pin. A deliberate format change updates the constant and needs a new magic (or a reader of
// both), so that an earlier build's state is refused or read as what it is, never misread.
#pragma once

#include <cstdint>
#include <string_view>

namespace seqflow::testutil {

inline uint64_t StateFingerprint(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

}  // namespace seqflow::testutil
