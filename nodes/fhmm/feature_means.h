// Mean parameters μ[h, j] = E[φ_j | h] of the feature HMM's log-linear emissions (Marinho et al.
// 2016, Eq. 24-25), for binary word features Φ (V x W, word_features.h): what the log-linear fit
// matches, whether they come from labeled tokens (here) or from anchors and moments
// (moments/feature_moments.h).
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <cstdint>
#include <vector>

namespace seqflow {

struct FeatureMeans {
  Eigen::MatrixXd mu;         // [K x W]; rows of absent labels are zero
  std::vector<bool> present;  // [K]
  int64_t qps = 0;
  int64_t not_converged = 0;
  // Estimates of p(h) [K] (zero for absent labels), reported beside the labeled distribution.
  Eigen::VectorXd identity_prior;    // from the identity template
  Eigen::VectorXd eq23_prior;        // Eq. 23's QP on q̄
  double template_prior_spread = 0;  // max over templates of the total variation of p_T from identity_prior
};

// The supervised mean parameters: μ_h = Σ_w n_L(w, h) φ(w) / n_L(h). Labels without labeled
// tokens are absent.
FeatureMeans LabeledFeatureMeans(const Eigen::MatrixXd& word_label, const Eigen::SparseMatrix<double>& phi);

}  // namespace seqflow
