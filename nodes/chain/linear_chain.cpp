#include "nodes/chain/linear_chain.h"
#include "nodes/chain/viterbi_one_chain.h"

#include <array>
#include <vector>

#include "nodes/chain/viterbi_lanes.h"

namespace seqflow {

double ChainForwardBackward(const Eigen::Ref<const RowMatrixXd>& scores,
                            const Eigen::Ref<const RowMatrixXd>& transition, RowMatrixXd* marginals,
                            RowMatrixXd* transition_counts) {
  const auto T = static_cast<int>(scores.rows());
  const auto K = static_cast<int>(scores.cols());
  std::vector<int32_t> row_ids;
  LaneBatch<kLanes> batch;
  batch.obs[0] = ChainRowIds(static_cast<size_t>(T), &row_ids);
  batch.length = T;
  const RowMatrixXd rows = scores;  // contiguous rows of K
  const ChainLanesTransition lanes_transition = ChainLanesTransition::FromLogPotentials(transition);
  ChainLanesWork work;
  std::array<double*, kLanes> marginal_rows{};
  if (marginals) {
    marginals->resize(T, K);
    marginal_rows[0] = marginals->data();
  }
  LaneVector<Lanes<kLanes>> xi(transition_counts ? static_cast<size_t>(K) * K : 0, Lanes<kLanes>{});
  const std::array<double, kLanes> log_z =
      ChainLanesForwardBackward<double>({rows.data(), ChainPotentials::Kind::kLogScores, nullptr}, lanes_transition,
                                        batch, work, marginal_rows, transition_counts ? xi.data() : nullptr);
  if (transition_counts) ChainLanesAddBigrams(lanes_transition, xi.data(), transition_counts->data());
  return log_z[0];
}

std::vector<int32_t> ChainViterbi(const Eigen::Ref<const RowMatrixXd>& scores,
                                  const Eigen::Ref<const RowMatrixXd>& transition) {
  std::vector<int32_t> labels(scores.rows());
  if (labels.empty()) return labels;
  const RowMatrixXd rows = scores;  // contiguous rows of K
  OneChainViterbiWork work;
  OneChainViterbi(OneChainViterbiModel::FromLogPotentials(transition), rows.data(), static_cast<int>(rows.rows()),
                  &work, labels.data());
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
