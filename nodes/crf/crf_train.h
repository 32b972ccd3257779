// Training a linear-chain CRF: duplicate attributes merged (attribute_groups.h), the penalised
// likelihood (crf_likelihood.h) minimised by L-BFGS from zero weights, then the group rows shared
// back out to every attribute. The kernel behind crf.train; no engine types.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "engine/base/process_group.h"
#include "nodes/crf/crf_sentences.h"
#include "nodes/features/feature_templates.h"
#include "nodes/optim/lbfgs.h"

namespace seqflow {

struct CrfTrainOptions {
  double sigma2 = 1.0;  // Gaussian prior variance δ²
  LbfgsOptions lbfgs;   // lbfgs.threads also drives the gradient
  bool merge_duplicates = true;
  int order = 1;  // 2: tag-pair labels with trigram transitions (CrfLayout)
  const ProcessGroup* processes = nullptr;  // MPI ranks sharing the gradient; null: this process
};

struct CrfTrainResult {
  Eigen::VectorXd weights;  // CrfLayout{num_attributes, num_labels, order}
  LbfgsResult optimizer;
  int64_t trained_weights = 0;  // after merging duplicate attributes
};

// REQUIRES: labels[n].size() == sentences[n].size() >= 1, labels in [0, num_labels).
// `callback`, `cancel` and `checkpoints` as for MinimizeLbfgs (its states are of the merged
// weights), whose errors (numerical failure, cancellation, a state that does not fit) are
// returned, and so is the first error of loading a streamed block. Streamed or resident, the
// same sentences give the same bits (crf_likelihood.h); so do any number of threads and ranks.
// Under MPI, rank 0 reads every sentence (it finds the duplicate attributes and folds the
// gradient) and the other ranks only those of their compute shards.
Result<CrfTrainResult> TrainCrf(const CrfSentences& data, int32_t num_attributes, int32_t num_labels,
                                const CrfTrainOptions& options, const LbfgsCallback& callback = nullptr,
                                const CancelToken& cancel = {}, const LbfgsCheckpoints& checkpoints = {});
// The same over resident sentences.
Result<CrfTrainResult> TrainCrf(const std::vector<SentenceFeatures>& sentences,
                                const std::vector<std::vector<int32_t>>& labels, int32_t num_attributes,
                                int32_t num_labels, const CrfTrainOptions& options,
                                const LbfgsCallback& callback = nullptr, const CancelToken& cancel = {},
                                const LbfgsCheckpoints& checkpoints = {});

}  // namespace seqflow
