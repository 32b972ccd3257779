#include "datasets/syllable_words.h"

#include <array>

namespace seqflow {

std::string SyllableWord(size_t i) {
  static constexpr std::array<const char*, 20> kSyllables = {"ba", "ke", "di", "lo", "mu", "na", "pe",
                                                             "ri", "so", "tu", "va", "ze", "gi", "ho",
                                                             "ja", "fu", "xe", "yo", "ce", "wi"};
  std::string word;
  for (size_t n = i + kSyllables.size(); n > 0; n /= kSyllables.size())
    word = kSyllables[n % kSyllables.size()] + word;
  return word;
}

}  // namespace seqflow
