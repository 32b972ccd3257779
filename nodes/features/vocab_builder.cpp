#include "nodes/features/vocab_builder.h"

#include <algorithm>
#include <unordered_map>

#include "nodes/io/text_encoding.h"

namespace seqflow {

std::vector<std::string> KnownWords(const std::vector<const Corpus*>& corpora, int64_t min_count, bool lowercase) {
  std::unordered_map<std::string, int64_t> counts;
  for (const Corpus* corpus : corpora)
    for (const auto& sentence : corpus->sentences)
      for (const auto& word : sentence.words()) ++counts[lowercase ? LowercaseUtf8(word) : word];
  std::vector<std::string> words;
  for (auto& [word, count] : counts)
    if (count >= min_count) words.push_back(word);
  std::sort(words.begin(), words.end());
  return words;
}

Vocab BuildVocab(const std::vector<const Corpus*>& corpora, const VocabOptions& options) {
  return Vocab(KnownWords(corpora, options.min_count, options.lowercase), options.unknown, options.lowercase);
}

}  // namespace seqflow
