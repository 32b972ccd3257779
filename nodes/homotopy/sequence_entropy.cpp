#include "nodes/homotopy/sequence_entropy.h"

#include <cmath>

#include "nodes/common/portable_math.h"
#include "nodes/hmm/forward_backward.h"

namespace seqflow {
namespace {

// Σ c log θ over the entries with c > 0.
double ExpectedLogScore(const Eigen::MatrixXd& counts, const Eigen::MatrixXd& theta) {
  double sum = 0;
  for (Eigen::Index j = 0; j < counts.cols(); ++j)
    for (Eigen::Index i = 0; i < counts.rows(); ++i)
      if (counts(i, j) > 0) sum += counts(i, j) * Log(theta(i, j));
  return sum;
}

}  // namespace

Result<double> MeanSequenceEntropy(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& sentences,
                                   int threads) {
  const ExpectedCounts counts = CorpusExpectedCounts(hmm, sentences, threads);
  if (!std::isfinite(counts.log_likelihood))
    return Status::Numerical("sequence entropy: a sentence has probability 0 under the model");
  if (counts.tokens == 0) return 0.0;
  const double score = ExpectedLogScore(counts.initial, hmm.initial) +
                       ExpectedLogScore(counts.transition, hmm.transition) +
                       ExpectedLogScore(counts.emission, hmm.emission);
  return (counts.log_likelihood - score) / static_cast<double>(counts.tokens);
}

}  // namespace seqflow
