#include "nodes/chain/linear_chain.h"

#include <algorithm>
#include <cmath>

#include "nodes/chain/viterbi_lanes.h"

namespace seqflow {

ChainTransition::ChainTransition(const Eigen::Ref<const RowMatrixXd>& transition)
    : num_labels(transition.rows()), stride((transition.rows() + 7) / 8 * 8), shift(transition.maxCoeff()) {
  exp_shifted.setZero(stride, stride);
  exp_shifted.topLeftCorner(num_labels, num_labels) = (transition.array() - shift).exp().matrix();
}

double ChainForwardBackward(const Eigen::Ref<const RowMatrixXd>& scores, const ChainTransition& transition,
                            ChainWorkspace& work, double* marginals, double* transition_counts) {
  const Eigen::Index T = scores.rows(), K = scores.cols(), S = transition.stride;
  const double* e = transition.exp_shifted.data();
  work.psi.setZero(T, S);
  work.alpha.resize(T, S);
  work.scale.resize(T);
  double log_z = (T - 1) * transition.shift;
  for (Eigen::Index t = 0; t < T; ++t) {
    const double m = scores.row(t).maxCoeff();
    work.psi.row(t).head(K) = (scores.row(t).array() - m).exp();
    const double* psi = work.psi.data() + t * S;
    double* alpha = work.alpha.data() + t * S;
    if (t == 0) {
      std::copy(psi, psi + S, alpha);
    } else {
      const double* prev = alpha - S;
      std::fill(alpha, alpha + S, 0.0);
      for (Eigen::Index i = 0; i < K; ++i) {
        const double a = prev[i];
        const double* row = e + i * S;
        for (Eigen::Index j = 0; j < S; ++j) alpha[j] += a * row[j];
      }
      for (Eigen::Index j = 0; j < S; ++j) alpha[j] *= psi[j];
    }
    double c = 0;
    for (Eigen::Index j = 0; j < S; ++j) c += alpha[j];
    const double inv = 1.0 / c;
    for (Eigen::Index j = 0; j < S; ++j) alpha[j] *= inv;
    work.scale[t] = c;
    log_z += m + std::log(c);
  }
  if (!marginals && !transition_counts) return log_z;
  // β_{t-1}(i) = Σ_j E(i, j) w_t(j) with w_t = ψ_t ∘ β_t / c_t; ξ_t(i, j) = α_{t-1}(i) E(i, j) w_t(j).
  work.beta.setOnes(S);
  work.weighted.resize(S);
  if (transition_counts) work.counts.setZero(S, S);
  double* beta = work.beta.data();
  double* w = work.weighted.data();
  for (Eigen::Index t = T - 1; t >= 0; --t) {
    const double* alpha = work.alpha.data() + t * S;
    if (marginals)
      for (Eigen::Index j = 0; j < K; ++j) marginals[t * K + j] = alpha[j] * beta[j];
    if (t == 0) break;
    const double* psi = work.psi.data() + t * S;
    const double inv = 1.0 / work.scale[t];
    for (Eigen::Index j = 0; j < S; ++j) w[j] = psi[j] * beta[j] * inv;
    const double* prev = alpha - S;
    for (Eigen::Index i = 0; i < K; ++i) {
      const double* row = e + i * S;
      double b = 0;
      if (transition_counts) {
        double* counts = work.counts.data() + i * S;
        const double a = prev[i];
        for (Eigen::Index j = 0; j < S; ++j) {
          const double ew = row[j] * w[j];
          counts[j] += a * ew;
          b += ew;
        }
      } else {
        for (Eigen::Index j = 0; j < S; ++j) b += row[j] * w[j];
      }
      beta[i] = b;
    }
  }
  if (transition_counts)
    for (Eigen::Index i = 0; i < K; ++i)
      for (Eigen::Index j = 0; j < K; ++j) transition_counts[i * K + j] += work.counts(i, j);
  return log_z;
}

double ChainForwardBackward(const Eigen::Ref<const RowMatrixXd>& scores,
                            const Eigen::Ref<const RowMatrixXd>& transition, RowMatrixXd* marginals,
                            RowMatrixXd* transition_counts) {
  ChainWorkspace work;
  if (marginals) marginals->resize(scores.rows(), scores.cols());
  return ChainForwardBackward(scores, ChainTransition(transition), work, marginals ? marginals->data() : nullptr,
                              transition_counts ? transition_counts->data() : nullptr);
}

std::vector<int32_t> ChainViterbi(const Eigen::Ref<const RowMatrixXd>& scores,
                                  const Eigen::Ref<const RowMatrixXd>& transition) {
  std::vector<int32_t> row_ids, labels(scores.rows());
  LaneBatch<kLanes> batch;
  batch.obs[0] = ChainRowIds(scores.rows(), &row_ids);
  batch.length = static_cast<int>(scores.rows());
  const RowMatrixXd rows = scores;  // contiguous rows of K
  ChainViterbiWork work;
  std::array<double, kLanes> best;
  ChainViterbiRun(ChainViterbiModel::FromLogPotentials(transition), {rows.data(), false}, batch, &work, {labels.data()},
                  &best);
  return labels;
}

double ChainScore(const Eigen::Ref<const RowMatrixXd>& scores, const Eigen::Ref<const RowMatrixXd>& transition,
                  const std::vector<int32_t>& labels) {
  double s = 0;
  for (size_t t = 0; t < labels.size(); ++t) {
    s += scores(static_cast<Eigen::Index>(t), labels[t]);
    if (t > 0) s += transition(labels[t - 1], labels[t]);
  }
  return s;
}

}  // namespace seqflow
