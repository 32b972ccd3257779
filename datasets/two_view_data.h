// Tagged sentences whose tokens have two views that are conditionally independent given the
// label and each sufficient to name it — co-training's two assumptions (Blum & Mitchell 1998;
// Brefeld et al. 2005, §3.2) holding exactly — for the multi-view validity case
// (docs/validity.md, pipelines/validity/multiview.yaml).
//   labels  4 (PER, LOC, ORG, O); initial row flat-Dirichlet, transition rows flat-Dirichlet
//           mixed half and half with staying, so labels come in runs
//   view 1  a word: `words` syllable words with Zipf(1) frequencies, word w at home in label w mod 4
//   view 2  a surface token: `surfaces` upper-case syllable words with Zipf(1) frequencies, drawn
//           apart from the word, surface s at home in label s mod 4
//   O(h, v) ∝ zipf(v) · (1 at home, `noise` elsewhere): with noise 0 (the default) each value
//           names its label, and a view is weak with few labeled sentences only because most of
//           its values have not been seen labeled; noise > 0 makes the views noisy, not just sparse
//   length  uniform in [10, 40] (the sentences `draw` keeps)
// Columns: word, surf, label. The model comes from its own stream, the sentences from the
// labeled split's (one corpus that `draw` splits). Pure; the same seed gives the same bytes.
#pragma once

#include <cstdint>
#include <string>

namespace seqflow {

struct TwoViewSpec {
  int words = 500;
  int surfaces = 500;
  double noise = 0.0;
};

// `sentences` sentences as CoNLL lines `word<TAB>surf<TAB>label`, a blank line after each.
std::string SampleTwoViewConll(const TwoViewSpec& spec, uint64_t seed, size_t sentences);

}  // namespace seqflow
