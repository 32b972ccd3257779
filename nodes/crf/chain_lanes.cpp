#include "nodes/crf/chain_lanes.h"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "nodes/common/lane_transpose.h"

namespace seqflow {
namespace {

using V = Lanes<kLanes>;
using IV = IntLanes<kLanes>;

// ψ table of the batch: rows of `scores` gathered into lanes (0 past a lane's end), shifted by the
// per-lane row max m_t, then exponentiated in one vectorised pass. Returns Σ_{t<len} m_t per lane
// and flags in *bad the lanes with a NaN or infinite shifted score (which exp may not propagate).
V FillPsi(const double* scores, int K, const ChainLanesBatch& batch, V* psi, IV* bad) {
  V m_sum = {};
  std::array<int64_t, kLanes> column;
  for (int t = 0; t < batch.length; ++t) {
    V* p = psi + static_cast<size_t>(t) * K;
    IV valid;
    for (int l = 0; l < kLanes; ++l) {
      column[l] = t < batch.len[l] ? batch.first[l] + t : -1;
      valid[l] = t < batch.len[l] ? -1 : 0;
    }
    GatherColumns<kLanes>(scores, K, column, 0.0, p);
    V m = p[0];
    for (int k = 1; k < K; ++k) m = p[k] > m ? p[k] : m;
    for (int k = 0; k < K; ++k) {
      p[k] -= m;
      *bad |= !(p[k] <= 0.0);
    }
    m_sum += std::bit_cast<V>(valid & std::bit_cast<IV>(m));
  }
  Eigen::Map<Eigen::ArrayXd> table(reinterpret_cast<double*>(psi),
                                   static_cast<Eigen::Index>(batch.length) * K * kLanes);
  table = table.exp();
  return m_sum;
}

// Forward pass; returns log Z per lane and sets inv_s[l] = 1 / S (0 for unused or dead lanes).
std::array<double, kLanes> Forward(const ChainLanesTransition& tr, const ChainLanesBatch& batch, V m_sum, IV bad,
                                   ChainLanesWork& work, std::array<double, kLanes>& inv_s) {
  const int K = tr.num_labels;
  V* alpha = work.alpha.data();
  IV log2_sum = {}, dead = bad;
  for (int t = 0; t < batch.length; ++t) {
    V* a = alpha + static_cast<size_t>(t) * K;
    const V* p = work.psi.data() + static_cast<size_t>(t) * K;
    if (t == 0) {
      for (int j = 0; j < K; ++j) a[j] = p[j];
    } else {
      LaneMatVec(a - K, tr.e.data(), K, a, [p](int j, V x) { return x * p[j]; });
    }
    const V c = LaneSum<kLanes>(a, K);
    IV valid;
    for (int l = 0; l < kLanes; ++l) valid[l] = t < batch.len[l] ? -1 : 0;
    dead |= valid & !(c > 0);  // NaN potentials or an underflow: the lane has no finite log Z
    const V s = PowerOfTwoScale<kLanes>(c, valid, &log2_sum);
    work.scale[t] = s;
    for (int j = 0; j < K; ++j) a[j] *= s;
  }
  std::array<double, kLanes> log_z{};
  for (int l = 0; l < kLanes; ++l) {
    const int n = batch.len[l];
    inv_s[l] = 0;
    if (n == 0) continue;
    if (dead[l] != 0) {
      log_z[l] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    double s = 0;
    for (int j = 0; j < K; ++j) s += alpha[static_cast<size_t>(n - 1) * K + j][l];
    log_z[l] = m_sum[l] + (n - 1) * tr.shift + static_cast<double>(log2_sum[l]) * std::numbers::ln2 + std::log(s);
    inv_s[l] = 1.0 / s;
  }
  return log_z;
}

template <class Out>
void Backward(const ChainLanesTransition& tr, const ChainLanesBatch& batch, const std::array<double, kLanes>& inv_s,
              ChainLanesWork& work, const std::array<Out*, kLanes>& marginal_rows) {
  const int K = tr.num_labels;
  V* beta = work.beta.data();
  V* gamma = work.gamma.data();
  for (int t = batch.length - 1; t >= 0; --t) {
    V last;
    for (int l = 0; l < kLanes; ++l) last[l] = t == batch.len[l] - 1 ? inv_s[l] : 0.0;
    const size_t row = static_cast<size_t>(t) * K;
    if (t == batch.length - 1) {
      for (int i = 0; i < K; ++i) beta[i] = last;
    } else {
      LaneMatVec(work.w.data() + row + K, tr.et.data(), K, beta, [last](int, V x) { return x + last; });
    }
    const V s = work.scale[t];
    for (int j = 0; j < K; ++j) {
      gamma[j] = work.alpha[row + j] * beta[j];
      work.w[row + j] = work.psi[row + j] * beta[j] * s;
    }
    ScatterRows<Out>(gamma, K, batch.len, t, marginal_rows);
  }
}

// IB x JB accumulators of Σ_t α_t(i) W_{t+1}(j) stay in registers over all t: 4 x 6 of them plus
// the 10 operands fit the 32 AVX-512 registers (the same blocking as fb_lanes.cpp's counts).
template <int IB, int JB>
void XiBlock(const V* alpha, const V* w, int K, int T, int i0, int j0, V* xi) {
  V acc[IB][JB] = {};
  for (int t = 0; t + 1 < T; ++t) {
    const V* a = alpha + static_cast<size_t>(t) * K + i0;
    const V* wn = w + static_cast<size_t>(t + 1) * K + j0;
    for (int ib = 0; ib < IB; ++ib) {
      const V av = a[ib];
      for (int jb = 0; jb < JB; ++jb) acc[ib][jb] += av * wn[jb];
    }
  }
  for (int ib = 0; ib < IB; ++ib) {
    for (int jb = 0; jb < JB; ++jb) xi[static_cast<size_t>(i0 + ib) * K + j0 + jb] += acc[ib][jb];
  }
}

constexpr int kXiRows = 4;
constexpr int kXiCols = 6;

template <int IB>
void XiRow(const V* alpha, const V* w, int K, int T, int i0, V* xi) {
  int j = 0;
  for (; j + kXiCols <= K; j += kXiCols) XiBlock<IB, kXiCols>(alpha, w, K, T, i0, j, xi);
  DispatchTail<kXiCols>(K - j, [&](auto width) { XiBlock<IB, decltype(width)::value>(alpha, w, K, T, i0, j, xi); });
}

void AddXi(const ChainLanesWork& work, int K, int T, V* xi) {
  int i = 0;
  for (; i + kXiRows <= K; i += kXiRows) XiRow<kXiRows>(work.alpha.data(), work.w.data(), K, T, i, xi);
  DispatchTail<kXiRows>(
      K - i, [&](auto rows) { XiRow<decltype(rows)::value>(work.alpha.data(), work.w.data(), K, T, i, xi); });
}

}  // namespace

ChainLanesTransition::ChainLanesTransition(const Eigen::Ref<const RowMatrixXd>& transition)
    : num_labels(static_cast<int>(transition.rows())), shift(transition.maxCoeff()) {
  const int K = num_labels;
  e.resize(static_cast<size_t>(K) * K);
  et.resize(e.size());
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) {
      e[static_cast<size_t>(i) * K + j] = std::exp(transition(i, j) - shift);
      et[static_cast<size_t>(j) * K + i] = e[static_cast<size_t>(i) * K + j];
    }
  }
}

void ChainLanesWork::Reserve(int T, int K) {
  const size_t cells = static_cast<size_t>(T) * K;
  if (psi.size() < cells) {
    psi.resize(cells);
    alpha.resize(cells);
    w.resize(cells);
  }
  if (scale.size() < static_cast<size_t>(T)) scale.resize(T);
  beta.resize(K);
  gamma.resize(K);
}

template <class Out>
std::array<double, kLanes> ChainLanesForwardBackward(const double* scores, const ChainLanesTransition& transition,
                                                     const ChainLanesBatch& batch, ChainLanesWork& work,
                                                     const std::array<Out*, kLanes>& marginal_rows, V* xi) {
  const int K = transition.num_labels;
  work.Reserve(batch.length, K);
  IV bad = {};
  const V m_sum = FillPsi(scores, K, batch, work.psi.data(), &bad);
  std::array<double, kLanes> inv_s;
  const std::array<double, kLanes> log_z = Forward(transition, batch, m_sum, bad, work, inv_s);
  Backward<Out>(transition, batch, inv_s, work, marginal_rows);
  if (xi != nullptr) AddXi(work, K, batch.length, xi);
  return log_z;
}

void ChainLanesAddBigrams(const ChainLanesTransition& transition, V* xi, double* counts) {
  const size_t cells = static_cast<size_t>(transition.num_labels) * transition.num_labels;
  for (size_t c = 0; c < cells; ++c) {
    double sum = 0;
    for (int l = 0; l < kLanes; ++l) sum += xi[c][l];
    counts[c] += transition.e[c] * sum;
    xi[c] = V{};
  }
}

template std::array<double, kLanes> ChainLanesForwardBackward<double>(const double*, const ChainLanesTransition&,
                                                                      const ChainLanesBatch&, ChainLanesWork&,
                                                                      const std::array<double*, kLanes>&, V*);
template std::array<double, kLanes> ChainLanesForwardBackward<float>(const double*, const ChainLanesTransition&,
                                                                     const ChainLanesBatch&, ChainLanesWork&,
                                                                     const std::array<float*, kLanes>&, V*);

}  // namespace seqflow
