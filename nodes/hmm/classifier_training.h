// Supervised training of an HMM classifier (Ji, Watson & Carin, §IV-A): one Baum-Welch per class
// on that class's labeled sequences, on the chain library's forward-backward
// (nodes/hmm/forward_backward.h), and the class priors from the label frequencies.
//
// Each class's EM ascends the MAP objective Σ_{i: y_i = y} log p(x_i | θ^y) + ε Σ log θ^y (the
// pseudo-count ε on every entry, as EM_0 of classifier_em.h adds it, so the result is a fixed
// point of EM_0). EM has many local optima here, so each class restarts `restarts` times from
// random stochastic rows drawn from ShardRng(seed, class · restarts + restart) and keeps the
// restart with the best objective. Priors w^y = (n_y + ε) / (L + C ε).
//
// Pure function: no I/O; forward-backward on `threads` (fixed shards), so the result does not
// depend on the thread count. A cancelled token is checked once per EM iteration.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/hmm/hmm_classifier.h"

namespace seqflow {

struct ClassifierTrainOptions {
  int num_states = 2;
  int restarts = 10;
  uint64_t seed = 1;
  int max_iterations = 500;
  double tol = 1e-9;          // stop when the objective changes by less than tol (1 + |objective|)
  double smoothing = 0.01;    // ε
  double start_floor = 0.05;  // random starts are mixed this much with the uniform rows
  int threads = 1;
};

struct ClassifierTrainResult {
  HmmClassifier model;
  std::vector<std::vector<double>> restart_objectives;  // [C][restarts] final MAP objective
  std::vector<int> best_restart;                         // [C]
  int iterations = 0;                                    // EM iterations over all classes and restarts
};

// REQUIRES: labels.size() == sequences.size(); labels in [0, num_classes); symbols in
// [0, num_symbols); no empty sequence. Invalid when a class has no labeled sequence.
// Checkpoints (KernelCheckpoints) after each restart but the last: the restarts finished (their
// objectives, the classes done, the best fit so far of the class under way). Resumed from one,
// the remaining restarts run to the same bits as a run never interrupted; a state of other data
// shapes or options is Status::Invalid. (No keep_final: a larger max_iterations changes every
// restart, not only the last.)
Result<ClassifierTrainResult> TrainHmmClassifier(const SymbolSequences& sequences, const std::vector<int32_t>& labels,
                                                 int num_classes, int num_symbols, const ClassifierTrainOptions& options,
                                                 const CancelToken& cancel = {}, const KernelCheckpoints& checkpoints = {});

}  // namespace seqflow
