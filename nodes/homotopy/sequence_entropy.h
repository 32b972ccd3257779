// The sequence entropy H(y | x) of an HMM's posterior, per token, over a corpus: the "labeling
// distribution" entropy of the maxEnt criterion (Haffari & Sarkar 2008 §5.2; Ji et al. 2007)
// read over whole labelings rather than token marginals (count_covariance.h has the marginal one).
//
//   H(y | x) = −Σ_y P(y | x) log P(y | x) = log P(x) − E_{y|x}[log P(x, y)]
//            = log P(x) − Σ_ω E[Count(x, y, ω)] log θ_ω,
// so one forward-backward pass (the expected counts of every block) gives it exactly; terms with
// θ_ω = 0 have E[Count] = 0 and contribute nothing. Returned as Σ_x H(y | x) / Σ_x |x| (nats per
// token; it is at most the mean token-marginal entropy, by subadditivity).
// Pure; threads in fixed shards (CorpusExpectedCounts), so bit-identical for any thread count.
// Numerical when a sentence has probability 0 under the model.
#pragma once

#include <vector>

#include "engine/base/status.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

Result<double> MeanSequenceEntropy(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& sentences,
                                   int threads);

}  // namespace seqflow
