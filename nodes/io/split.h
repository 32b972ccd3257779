// Seeded corpus splits: labeled / unlabeled / held-out parts, k of n.
//
// The sentences are put in a seeded random order (or kept in file order when shuffle is off);
// a part is the range [skip, skip + count) of that order. Parts drawn with the same seed and
// disjoint ranges are disjoint, and together with more parts cover the corpus exactly. The
// part keeps the selected sentences in their original order. The permutation is our own
// Fisher-Yates over std::mt19937_64 (whose output the standard fixes), not std::shuffle or
// std::uniform_int_distribution (implementation-defined), so a seed means the same split with
// every compiler. Thread safety: stateless.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"

namespace seqflow {

struct SplitOptions {
  uint64_t seed = 1;
  int64_t count = 0;  // sentences to take; 0 = all after `skip`
  int64_t skip = 0;   // sentences to pass over first, in the (shuffled) order
  bool shuffle = true;
  bool drop_labels = false;  // the part becomes unlabeled (an unlabeled pool)
};

// A uniformly random permutation of [0, n), fixed by `seed`.
std::vector<size_t> SeededPermutation(size_t n, uint64_t seed);

// Errors when skip/count are negative, reach past the corpus, or select nothing.
// The label set of the part is the whole corpus's, so parts share label ids.
Result<Corpus> SplitCorpus(const Corpus& corpus, const SplitOptions& options);

}  // namespace seqflow
