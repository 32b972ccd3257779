// Tagged sentences from an HMM in which the anchor assumption of Marinho et al. (2016) holds
// exactly: every state has words that no other state emits. The anchors validity case
// (docs/validity.md, pipelines/validity/anchors.yaml) fits the anchor HMM and FHMM to its text.
//   states  the 12 universal tags; initial and transition rows flat-Dirichlet draws
//   words   V synthetic syllable words with Zipf(1) frequencies; word w belongs to state
//           w mod K and, unless it is an anchor (probability `anchor_share`), to one or two more
//           states drawn uniformly; O(h, w) ∝ zipf(w) · u(h, w), u uniform in [0.5, 1.5)
//   length  1 + a geometric number of further tokens (continue with probability `stay`);
//           sentences come from SampleTaggedHmm (tagged_hmm.h)
// The model comes from ShardRng(seed, kAnchorHmmModelStream), each split's sentences from their own
// stream, so changing one split's size leaves the others unchanged. Pure functions; the same
// seed gives the same bytes on every platform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/tagged_hmm.h"

namespace seqflow {

struct AnchorHmmSpec {
  int vocabulary = 3000;
  double anchor_share = 0.5;
  double stay = 14.0 / 15.0;  // mean sentence length 15
};

struct AnchorHmm : TaggedHmm {
  std::vector<int32_t> anchor_of;  // [V] the state of an anchor word, -1 for the others
};

AnchorHmm BuildAnchorHmm(const AnchorHmmSpec& spec, uint64_t seed);

// The complete tag dictionary (read.tagged): a line per word, `word|TAG` for each state that
// emits it, so the anchors are the words listed with one tag.
std::string FormatTagDictionary(const AnchorHmm& hmm);

}  // namespace seqflow
