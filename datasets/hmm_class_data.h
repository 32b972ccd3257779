// Sequences for HMM classification (Ji, Watson & Carin, §V): each class draws its sequences from
// its own discrete HMM with flat-Dirichlet rows (mixed `floor` with the uniform rows), one class
// after another, every sequence of the same length.
//   matched     §V-B: 2 classes, 2-state HMMs, alphabet 5, 500 sequences of length 5 per class;
//   mismatched  the stand-in for the paper's acoustic data: classes from 3- and 4-state HMMs,
//               alphabet 10, 360 sequences of length 8 per class (fitted later with 2 states).
// Class y's HMM comes from ShardRng(seed, y) and its sequences from ShardRng(seed, 100 + y), so a
// class's data does not depend on the other classes. Text form: one sequence a line,
// `class<TAB>s_1 s_2 ... s_T` with symbols as decimal ids.
// Pure functions; the same seed gives the same bytes on every platform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nodes/hmm/hmm_params.h"

namespace seqflow {

struct HmmClassDataSpec {
  std::vector<int> states;  // one HMM per class, of this many states
  int symbols = 5;
  int length = 5;
  int per_class = 500;
  double floor = 0.0;
  // Each sequence's class label replaced by the other class's with this probability (2 classes),
  // from its own stream, so the sequences stay those of the noiseless data.
  double label_noise = 0.0;
  // 2: each class's next state depends on its last two (a K²-by-K table of flat-Dirichlet rows
  // drawn after the first-order ones, which still give the first transition), a source no
  // first-order HMM of any size over the same states matches.
  int order = 1;
};

HmmClassDataSpec MatchedHmmClassSpec();     // §V-B
HmmClassDataSpec MismatchedHmmClassSpec();  // 3- and 4-state classes, alphabet 10, length 8

struct HmmClassData {
  std::vector<HmmParams> truth;  // first-order part (order 2: the first transition only)
  std::vector<std::vector<int32_t>> sequences;
  std::vector<int32_t> labels;
};

HmmClassData SampleHmmClassData(const HmmClassDataSpec& spec, uint64_t seed);

std::string FormatHmmClassData(const HmmClassData& data);

}  // namespace seqflow
