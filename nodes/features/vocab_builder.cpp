#include "nodes/features/vocab_builder.h"

#include <algorithm>
#include <unordered_map>

#include "nodes/io/text_encoding.h"

namespace seqflow {

void CountWords(const Corpus& corpus, bool lowercase, WordCounts& counts) {
  for (const auto& sentence : corpus.sentences)
    for (const auto& word : sentence.words()) ++counts[lowercase ? LowercaseUtf8(word) : word];
}

std::vector<std::string> KnownWords(const WordCounts& counts, int64_t min_count) {
  std::vector<std::string> words;
  for (auto& [word, count] : counts)
    if (count >= min_count) words.push_back(word);
  std::sort(words.begin(), words.end());
  return words;
}

std::vector<std::string> KnownWords(const std::vector<const Corpus*>& corpora, int64_t min_count, bool lowercase) {
  WordCounts counts;
  for (const Corpus* corpus : corpora) CountWords(*corpus, lowercase, counts);
  return KnownWords(counts, min_count);
}

Vocab BuildVocab(const std::vector<const Corpus*>& corpora, const VocabOptions& options) {
  return Vocab(KnownWords(corpora, options.min_count, options.lowercase), options.unknown, options.lowercase);
}

}  // namespace seqflow
