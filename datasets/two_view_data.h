// Tagged sentences whose tokens have two views that are conditionally independent given the
// label — co-training's assumption (Brefeld et al. 2005, §3.2) holding exactly — for the
// multi-view validity case (docs/validity.md, pipelines/validity/multiview.yaml).
//   labels  4 (PER, LOC, ORG, O); initial row flat-Dirichlet, transition rows flat-Dirichlet
//           mixed half and half with staying, so labels come in runs
//   view 1  a word: 500 syllable words with Zipf(1) frequencies, word w at home in label w mod 4;
//           O1(h, w) ∝ zipf(w) · (`word_strength` at home, 1 elsewhere)
//   view 2  a surface token of one of 10 shape classes (`.`, `1999`, `12`, `J.`, `ABC`, `ab-cd`,
//           `Abc.`, `Abc`, `aBc`, `abc`: shape() tells them apart), class s at home in label s mod 4;
//           O2(h, s) ∝ (`surface_strength` at home, 1 elsewhere), drawn apart from the word
//   length  uniform in [10, 40] (the sentences `draw` keeps)
// Columns: word, surf, label. The model comes from its own stream, the sentences from the
// labeled split's (one corpus that `draw` splits). Pure; the same seed gives the same bytes.
#pragma once

#include <cstdint>
#include <string>

namespace seqflow {

struct TwoViewSpec {
  int words = 500;
  double word_strength = 20.0;
  double surface_strength = 8.0;
};

// `sentences` sentences as CoNLL lines `word<TAB>surf<TAB>label`, a blank line after each.
std::string SampleTwoViewConll(const TwoViewSpec& spec, uint64_t seed, size_t sentences);

}  // namespace seqflow
