#include "nodes/hmm/viterbi_lanes.h"

#include <cmath>

#include "nodes/common/lane_transpose.h"

namespace seqflow {
namespace {

// E_t for step t: gathered from the log B table, or gathered from B and logged in place.
template <int L>
void LogEmissionStep(const ViterbiModel& model, const LaneBatch<L>& batch, int t, Lanes<L>* e) {
  if (model.log_emission.size() > 0) {
    GatherStep<L>(model.log_emission.data(), model.K, batch, t, 0.0, e);
    return;
  }
  GatherStep<L>(model.hmm.emission.data(), model.K, batch, t, 0.0, e);
  for (int l = 0; l < L; ++l) {
    if (t >= batch.len(l)) continue;  // the padding 0 is already log 1
    for (int j = 0; j < model.K; ++j) e[j][l] = std::log(e[j][l]);
  }
}

template <int L>
void Forward(const ViterbiModel& model, const LaneBatch<L>& batch, ViterbiWork<L>* work) {
  const int K = model.K;
  const size_t cells = static_cast<size_t>(batch.length) * K;
  if (work->delta.size() < cells) work->delta.resize(cells);
  work->log_emit.resize(K);
  Lanes<L>* e = work->log_emit.data();
  Lanes<L>* delta = work->delta.data();
  LogEmissionStep<L>(model, batch, 0, e);
  for (int j = 0; j < K; ++j) delta[j] = model.log_initial[j] + e[j];
  for (int t = 1; t < batch.length; ++t) {
    Lanes<L>* d = delta + static_cast<size_t>(t) * K;
    LogEmissionStep<L>(model, batch, t, e);
    LaneMaxPlus(d - K, model.log_a_row_major.data(), K, d, [e](int j, Lanes<L> x) { return x + e[j]; });
  }
}

// Running argmax over candidates x_i, i = first, first + 2, ...: strict > keeps the lowest i.
template <int L>
struct ArgMaxChain {
  Lanes<L> best;
  IntLanes<L> arg;

  void Add(Lanes<L> x, int i) {
    const IntLanes<L> better = x > best;
    best = better ? x : best;
    arg = better ? IntLanes<L>{} + i : arg;
  }
};

// All lanes backtrack together, from t = T-1 down. next[l] is the state lane l chose at t + 1,
// or K ("after the end", whose column of log_a_ext is 0) for t >= len(l) - 1, so a lane's first
// choice is the argmax of delta at its own last step. Each step takes
// argmax_i delta_t(i) + log A(i, next) over the columns log A(:, next_l) gathered into lanes, in
// two chains (even and odd i) to halve the dependency on the running maximum.
template <int L>
void Backtrack(const ViterbiModel& model, const LaneBatch<L>& batch, ViterbiWork<L>* work,
               const std::array<int32_t*, L>& paths, std::array<double, L>* log_probs) {
  const int K = model.K;
  Lanes<L>* log_a = work->log_emit.data();  // free after the forward pass: reused for log A(:, next)
  std::array<int64_t, L> next;
  next.fill(K);
  for (int t = batch.length - 1; t >= 0; --t) {
    const Lanes<L>* d = work->delta.data() + static_cast<size_t>(t) * K;
    GatherColumns<L>(model.log_a_ext.data(), K, next, 0.0, log_a);
    ArgMaxChain<L> even{d[0] + log_a[0], IntLanes<L>{}};
    ArgMaxChain<L> odd = even;
    if (K > 1) odd = {d[1] + log_a[1], IntLanes<L>{} + 1};
    int i = 2;
    for (; i + 1 < K; i += 2) {
      even.Add(d[i] + log_a[i], i);
      odd.Add(d[i + 1] + log_a[i + 1], i + 1);
    }
    if (i < K) even.Add(d[i] + log_a[i], i);
    const IntLanes<L> take_odd = (odd.best > even.best) | ((odd.best == even.best) & (odd.arg < even.arg));
    const IntLanes<L> arg = take_odd ? odd.arg : even.arg;
    for (int l = 0; l < L; ++l) {
      if (t >= batch.len(l)) continue;
      paths[l][t] = static_cast<int32_t>(arg[l]);
      if (t == batch.len(l) - 1) (*log_probs)[l] = take_odd[l] != 0 ? odd.best[l] : even.best[l];
      next[l] = arg[l];
    }
  }
}

}  // namespace

ViterbiModel::ViterbiModel(const HmmParams& params, bool log_emission_table)
    : hmm(params),
      K(params.num_states()),
      log_initial(params.initial.array().log()),
      log_a_ext(Eigen::MatrixXd::Zero(K, K + 1)),
      log_a_row_major(params.transition.transpose().array().log()) {
  log_a_ext.leftCols(K) = params.transition.array().log();
  if (log_emission_table) log_emission = params.emission.array().log();
}

template <int L>
void ViterbiRun(const ViterbiModel& model, const LaneBatch<L>& batch, ViterbiWork<L>* work,
                const std::array<int32_t*, L>& paths, std::array<double, L>* log_probs) {
  Forward<L>(model, batch, work);
  log_probs->fill(0.0);
  Backtrack<L>(model, batch, work, paths, log_probs);
}

template void ViterbiRun<kLanes>(const ViterbiModel&, const LaneBatch<kLanes>&, ViterbiWork<kLanes>*,
                                 const std::array<int32_t*, kLanes>&, std::array<double, kLanes>*);

}  // namespace seqflow
