#include "nodes/homotopy/word_block_preconditioner.h"

namespace seqflow {

Eigen::VectorXd SymbolCounts(const IdSentences& unlabeled, int num_symbols) {
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(num_symbols);
  for (const auto& sentence : unlabeled)
    for (int32_t w : sentence) counts[w] += 1;
  return counts;
}

WordBlockPreconditioner::WordBlockPreconditioner(const PomLayout& layout, const Eigen::VectorXd& theta_tilde,
                                                 const Eigen::VectorXd& mask, const Eigen::VectorXd& expected_counts,
                                                 const Eigen::VectorXd& symbol_counts, double num_unlabeled,
                                                 double lambda)
    : layout_(layout) {
  const int K = layout.num_states();
  const int V = layout.num_symbols();
  if (layout.EmissionIndex(0, 0) < 0) return;
  blocks_.resize(V);
  active_.assign(V, false);
  Eigen::VectorXd e(K), scale(K);
  for (int w = 0; w < V; ++w) {
    if (symbol_counts[w] <= 0) continue;
    for (int i = 0; i < K; ++i) {
      const int p = layout.EmissionIndex(i, w);
      e[i] = expected_counts[p];
      scale[i] = lambda / num_unlabeled * mask[p] / theta_tilde[p];
    }
    Eigen::MatrixXd block = -(Eigen::MatrixXd(e.asDiagonal()) - e * e.transpose() / symbol_counts[w]) * scale.asDiagonal();
    block.diagonal().array() += 1.0;
    blocks_[w].compute(block);
    active_[w] = blocks_[w].rcond() > 1e-10;
  }
}

Eigen::VectorXd WordBlockPreconditioner::Apply(const Eigen::VectorXd& v) const {
  Eigen::VectorXd out = v;
  const int K = layout_.num_states();
  Eigen::VectorXd x(K);
  for (size_t w = 0; w < blocks_.size(); ++w) {
    if (!active_[w]) continue;
    for (int i = 0; i < K; ++i) x[i] = v[layout_.EmissionIndex(i, static_cast<int>(w))];
    x = blocks_[w].solve(x);
    for (int i = 0; i < K; ++i) out[layout_.EmissionIndex(i, static_cast<int>(w))] = x[i];
  }
  return out;
}

}  // namespace seqflow
