// Synthetic words for the validity cases' generators.
#pragma once

#include <cstddef>
#include <string>

namespace seqflow {

// Word i as syllables: the base-20 digits of i + 20 (`keba`, `kelo`, …), so every word has two or
// more syllables, only lowercase letters, and no two words share a spelling.
std::string SyllableWord(size_t i);

}  // namespace seqflow
