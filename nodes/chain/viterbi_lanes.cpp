#include "nodes/chain/viterbi_lanes.h"

#include <cmath>
#include <limits>

#include "engine/base/isa.h"
#include "nodes/common/lane_transpose.h"
#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {

using V = Lanes<kLanes>;
using IV = IntLanes<kLanes>;

// e_t for step t: gathered from the log table, or gathered from probabilities and logged in place.
template <int N>
void LogPotentialStep(const ChainViterbiModel& model, const ChainViterbiTable& table, const LaneBatch<kLanes>& batch,
                      int t, V* e) {
  GatherStep<kLanes, N>(table.table, model.K, batch, t, 0.0, e);
  if (!table.take_log) return;
  for (int l = 0; l < kLanes; ++l) {
    if (t >= batch.len(l)) continue;  // the padding 0 is already log 1
    for (int j = 0; j < model.K; ++j) e[j][l] = Log(e[j][l]);
  }
}

template <int N>
void Forward(const ChainViterbiModel& model, const ChainViterbiTable& table, const LaneBatch<kLanes>& batch,
             ChainViterbiWork* work) {
  const int K = model.K;
  const size_t cells = static_cast<size_t>(batch.length) * K;
  if (work->delta.size() < cells) work->delta.resize(cells);
  work->log_emit.resize(K);
  V* e = work->log_emit.data();
  V* delta = work->delta.data();
  LogPotentialStep<N>(model, table, batch, 0, e);
  for (int j = 0; j < K; ++j) delta[j] = model.log_initial[j] + e[j];
  for (int t = 1; t < batch.length; ++t) {
    V* d = delta + static_cast<size_t>(t) * K;
    LogPotentialStep<N>(model, table, batch, t, e);
    LaneMaxPlus<N>(d - K, model.log_a_row_major.data(), K, d, [e](int j, V x) { return x + e[j]; });
  }
}

// Running argmax over candidates x_i, i = first, first + 2, ...: strict > keeps the lowest i.
// P is a native piece of the lanes, IP the same piece of their int64 form.
template <class P, class IP>
struct ArgMaxChain {
  P best;
  IP arg;

  void Add(P x, int i) {
    const IP better = x > best;
    best = better ? x : best;
    arg = better ? IP{} + i : arg;
  }
};

// All lanes backtrack together, from t = T-1 down. next[l] is the label lane l chose at t + 1,
// or K ("after the end", whose column of log_a_ext is 0) for t >= len(l) - 1, so a lane's first
// choice is the argmax of δ at its own last step. Each step takes
// argmax_i δ_t(i) + log A(i, next) over the columns log A(:, next_l) gathered into lanes, one
// native piece of the lanes after the other.
template <int N>
void Backtrack(const ChainViterbiModel& model, const LaneBatch<kLanes>& batch, ChainViterbiWork* work,
               const std::array<int32_t*, kLanes>& paths, std::array<double, kLanes>* scores) {
  const int K = model.K;
  V* log_a = work->log_emit.data();  // free after the forward pass: reused for log A(:, next)
  std::array<int64_t, kLanes> next;
  next.fill(K);
  for (int t = batch.length - 1; t >= 0; --t) {
    const V* d = work->delta.data() + static_cast<size_t>(t) * K;
    GatherColumns<kLanes, N>(model.log_a_ext.data(), K, next, 0.0, log_a);
    IV arg;
    V best;
    for (int p = 0; p < NativePieces<V, N>::kCount; ++p) {
      using P = Piece<V, N>;
      using IP = Piece<IV, N>;
      const PieceColumn<N, V> dp{d, p}, ap{log_a, p};
      ArgMaxChain<P, IP> even{dp[0] + ap[0], IP{}};
      ArgMaxChain<P, IP> odd{P{} - std::numeric_limits<double>::infinity(), IP{}};
      chain_internal::AddCandidates(dp, ap, K, even, odd);
      const IP take_odd = MaskOr<IP>(odd.best > even.best, MaskAnd<IP>(odd.best == even.best, odd.arg < even.arg));
      StorePiece<N>(&arg, p, take_odd ? odd.arg : even.arg);
      StorePiece<N>(&best, p, take_odd ? odd.best : even.best);
    }
    for (int l = 0; l < kLanes; ++l) {
      if (t >= batch.len(l)) continue;
      paths[l][t] = static_cast<int32_t>(arg[l]);
      if (t == batch.len(l) - 1) (*scores)[l] = best[l];
      next[l] = arg[l];
    }
  }
}

}  // namespace

ChainViterbiModel ChainViterbiModel::FromLogPotentials(const Eigen::Ref<const RowMatrixXd>& log_transition,
                                                       Eigen::VectorXd log_initial) {
  ChainViterbiModel model;
  model.K = static_cast<int>(log_transition.rows());
  model.log_initial = log_initial.size() > 0 ? std::move(log_initial) : Eigen::VectorXd::Zero(model.K);
  model.log_a_ext = Eigen::MatrixXd::Zero(model.K, model.K + 1);
  model.log_a_ext.leftCols(model.K) = log_transition;
  model.log_a_row_major = log_transition.transpose();
  return model;
}

namespace {

template <int N>
void ChainViterbiRunKernel(const ChainViterbiModel& model, const ChainViterbiTable& table,
                           const LaneBatch<kLanes>& batch, ChainViterbiWork* work,
                           const std::array<int32_t*, kLanes>& paths, std::array<double, kLanes>* scores) {
  Forward<N>(model, table, batch, work);
  scores->fill(0.0);
  Backtrack<N>(model, batch, work, paths, scores);
}

}  // namespace

SEQFLOW_ISA_WIDTH_CLONES(void, ChainViterbiRun,
                   (const ChainViterbiModel& model, const ChainViterbiTable& table, const LaneBatch<kLanes>& batch,
                    ChainViterbiWork* work, const std::array<int32_t*, kLanes>& paths,
                    std::array<double, kLanes>* scores),
                   ChainViterbiRunKernel, (model, table, batch, work, paths, scores))

}  // namespace seqflow
