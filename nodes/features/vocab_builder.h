// Building a Vocab from corpora: counting kernel behind features.vocab.
// Thread safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nodes/features/vocab.h"
#include "nodes/io/corpus.h"

namespace seqflow {

struct VocabOptions {
  int64_t min_count = 1;  // words seen fewer times (over all corpora) get unknown-class ids
  UnknownScheme unknown = UnknownScheme::kShape;
  bool lowercase = false;
};

// Every word (lowercased when asked) seen at least min_count times over all `corpora`,
// in byte order. REQUIRES: no null pointers.
std::vector<std::string> KnownWords(const std::vector<const Corpus*>& corpora, int64_t min_count, bool lowercase);

Vocab BuildVocab(const std::vector<const Corpus*>& corpora, const VocabOptions& options);

}  // namespace seqflow
