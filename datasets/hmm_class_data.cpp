#include "datasets/hmm_class_data.h"

#include "datasets/sampling.h"
#include "nodes/common/random.h"

namespace seqflow {

HmmClassDataSpec MatchedHmmClassSpec() { return HmmClassDataSpec{{2, 2}, 5, 5, 500, 0.0}; }

HmmClassDataSpec MismatchedHmmClassSpec() { return HmmClassDataSpec{{3, 4}, 10, 8, 360, 0.0}; }

HmmClassData SampleHmmClassData(const HmmClassDataSpec& spec, uint64_t seed) {
  HmmClassData data;
  for (size_t y = 0; y < spec.states.size(); ++y) {
    Rng model_rng = ShardRng(seed, y);
    const int K = spec.states[y];
    HmmParams h;
    h.initial = RandomStochasticRows(1, K, model_rng, spec.floor).row(0).transpose();
    h.transition = RandomStochasticRows(K, K, model_rng, spec.floor);
    h.emission = RandomStochasticRows(K, spec.symbols, model_rng, spec.floor);
    // Row previous * K + state: the next state's distribution after those two.
    const Eigen::MatrixXd second_order =
        spec.order == 2 ? RandomStochasticRows(K * K, K, model_rng, spec.floor) : Eigen::MatrixXd();
    Rng rng = ShardRng(seed, 100 + y);
    for (int n = 0; n < spec.per_class; ++n) {
      std::vector<int32_t> x(spec.length);
      int state = SampleCategorical(h.initial, rng), previous = -1;
      for (int t = 0; t < spec.length; ++t) {
        if (t > 0) {
          const Eigen::VectorXd next = previous < 0 || spec.order == 1
                                           ? Eigen::VectorXd(h.transition.row(state).transpose())
                                           : Eigen::VectorXd(second_order.row(previous * K + state).transpose());
          previous = state;
          state = SampleCategorical(next, rng);
        }
        x[t] = SampleCategorical(h.emission.row(state).transpose(), rng);
      }
      data.sequences.push_back(std::move(x));
      data.labels.push_back(static_cast<int32_t>(y));
    }
    data.truth.push_back(std::move(h));
  }
  if (spec.label_noise > 0) {
    Rng noise_rng = ShardRng(seed, 200);
    const auto classes = static_cast<int32_t>(spec.states.size());
    for (int32_t& label : data.labels)
      if (Bernoulli(spec.label_noise, noise_rng)) label = (label + 1) % classes;
  }
  return data;
}

std::string FormatHmmClassData(const HmmClassData& data) {
  std::string out;
  for (size_t i = 0; i < data.sequences.size(); ++i) {
    out += std::to_string(data.labels[i]);
    out += '\t';
    for (size_t t = 0; t < data.sequences[i].size(); ++t) {
      if (t > 0) out += ' ';
      out += std::to_string(data.sequences[i][t]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace seqflow
