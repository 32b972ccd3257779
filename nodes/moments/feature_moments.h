// Mean parameters of the feature HMM from anchors and moments (Marinho et al. 2016, §4.1,
// Algorithm 2 lines 1-10), for binary word features Φ (V x W, word_features.h):
//   Q̂[:, j] = Σ_w φ_j(w) M[:, w] / Σ_w φ_j(w) n_w                                  (Eq. 20)
//   γ_j = argmin_{γ ∈ simplex} (1 - λ_j) ||Q̂[:, j] - R̂ γ||² + λ_j ||γ - γ'_j||²     (Eq. 22, 26)
//   μ[h, j] = Γ[h, j] E[φ_j] / γ̄_h                                                   (Eq. 24)
// with R̂ as in anchor_emissions.h (optionally projected), γ'_j the labeled posterior of feature j
// (λ_j = λ for features seen labeled, else 0), E[φ_j] = Σ_w φ_j(w) p̂_w (p̂ over labeled and
// unlabeled tokens). Departure: γ̄_h is taken as Σ_{identity j} Γ[h, j] E[φ_j] — the identity
// features sum to one for every word, so this is p(h) under the fitted posteriors and makes the
// identity block of μ_h a distribution — rather than from Eq. 23's extra QP.
// Labels that neither anchors nor labeled tokens describe are not estimated (present = false).
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <string>
#include <vector>

#include "nodes/moments/anchor_emissions.h"

namespace seqflow {

struct FeatureMeans {
  Eigen::MatrixXd mu;         // [K x W]; rows of absent labels are zero
  std::vector<bool> present;  // [K]
  int64_t qps = 0;
  int64_t not_converged = 0;
};

// identity[j]: feature j is a word-identity feature. Errors as EstimateAnchorEmissions.
Result<FeatureMeans> EstimateAnchorFeatureMeans(
    const MomentCounts& moments, const std::vector<std::vector<int32_t>>& anchors, const LabeledMoments& labeled,
    const std::vector<std::string>& label_names, const Eigen::SparseMatrix<double>& phi,
    const std::vector<bool>& identity, const AnchorEmissionOptions& options, const CancelToken& cancel,
    const Eigen::MatrixXd* context_projection = nullptr);

// The supervised mean parameters: μ_h = Σ_w n_L(w, h) φ(w) / n_L(h). Labels without labeled
// tokens are absent.
FeatureMeans LabeledFeatureMeans(const Eigen::MatrixXd& word_label, const Eigen::SparseMatrix<double>& phi);

}  // namespace seqflow
