// One draw of Ji, Watson & Carin's semi-supervised experiment (§V, Table I, Fig. 5–6): from a
// pool of classified sequences, `labeled_per_class` sequences of each class are labeled (drawn
// with ShardRng(seed, 1000 + draw)) and the rest are unlabeled; a supervised classifier is trained
// by Baum-Welch with restarts (seeded by the draw); the probability-one path (19) is tracked from
// its EM_0 fixed point; and four classifiers are scored on the unlabeled sequences' true classes,
// as in the paper: the supervised start, the last λ ≈ 0 point (the start of P_F), λ = U/(L+U) on
// P_F, and the maximum-entropy point of P_F (Eq. 20).
// Pure function: no I/O; threads as the kernels it calls.
#pragma once

#include <cstdint>
#include <vector>

#include "nodes/common/random.h"
#include "nodes/hmm/classifier_training.h"
#include "nodes/homotopy/probability_one.h"
#include "nodes/io/class_sequences.h"

namespace seqflow {

struct JiDrawOptions {
  int labeled_per_class = 10;
  ClassifierTrainOptions train;
  ProbabilityOneOptions path;
  uint64_t seed = 1;
};

struct JiDrawResult {
  double supervised = 0;    // accuracy on the unlabeled sequences
  double last_lambda_zero = 0;
  double mle = 0;           // at λ = U / (L + U) on P_F
  double max_entropy = 0;
  double lambda_mle = 0;
  double lambda_max_entropy = 0;
  int returns = 0;
  ClassifierPath path;
};

// REQUIRES: every class of `labels` (in [0, num_classes)) has more than labeled_per_class
// sequences; symbols in [0, num_symbols).
Result<JiDrawResult> RunJiDraw(const SymbolSequences& pool, const std::vector<int32_t>& labels, int num_classes,
                               int num_symbols, int draw, const JiDrawOptions& options, const CancelToken& cancel = {});

}  // namespace seqflow
