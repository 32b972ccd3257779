// Building a Vocab from corpora: counting kernel behind features.vocab.
// Thread safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "nodes/features/vocab.h"
#include "nodes/io/corpus.h"

namespace seqflow {

struct VocabOptions {
  int64_t min_count = 1;  // words seen fewer times (over all corpora) get unknown-class ids
  UnknownScheme unknown = UnknownScheme::kShape;
  bool lowercase = false;
};

// How often each word (lowercased when asked) occurs, summed over the corpora counted into it.
using WordCounts = std::unordered_map<std::string, int64_t>;
void CountWords(const Corpus& corpus, bool lowercase, WordCounts& counts);
// The words of `counts` seen at least min_count times, in byte order.
std::vector<std::string> KnownWords(const WordCounts& counts, int64_t min_count);

// Every word (lowercased when asked) seen at least min_count times over all `corpora`,
// in byte order. REQUIRES: no null pointers.
std::vector<std::string> KnownWords(const std::vector<const Corpus*>& corpora, int64_t min_count, bool lowercase);

Vocab BuildVocab(const std::vector<const Corpus*>& corpora, const VocabOptions& options);

}  // namespace seqflow
