// The word pools of the synthetic citation model: fixed lists (function words, venue terms,
// note phrases) and synthetic words built from syllables, each with Zipf frequencies.
// Pure and deterministic for a given generator state.
#pragma once

#include <string>
#include <vector>

#include "datasets/sampling.h"

namespace seqflow {

enum class Pool {
  kFunction,    // of, the, and, for, in ... (titles, venues, notes)
  kConnective,  // and, &, et, al. (between names)
  kInitial,     // A. .. Z., J.-P.
  kSurname,     // Capitalized synthetic names (authors, editors, venue places)
  kTitleWord,   // lowercase synthetic content words
  kTopic,       // Capitalized synthetic topic words (titles and venues)
  kVenueWord,   // Proceedings, Conference, Journal ... and synthetic acronyms
  kEditorWord,  // In, editors, eds. ...
  kPageWord,    // pp., pages, p.
  kPageRange,   // 123-145 (uniform)
  kNumber,      // volume and issue numbers: 12, 12(3), vol.
  kYear,        // 1960 .. 2005
  kNoteWord,    // to appear, Technical Report ...
};
inline constexpr int kNumPools = static_cast<int>(Pool::kNoteWord) + 1;

struct WordPool {
  std::vector<std::string> words;
  std::vector<double> cdf;  // running sums of the word weights, most frequent first
};

// All pools, indexed by Pool. Synthetic words are unique within their pool; pools may share
// words on purpose (and, In, capitalized names), which is what makes fields confusable.
std::vector<WordPool> BuildWordPools(Rng& rng);

}  // namespace seqflow
