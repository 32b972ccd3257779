#include "nodes/chain/forward_backward_lanes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "engine/base/isa.h"
#include "nodes/common/lane_transpose.h"
#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {

using V = Lanes<kLanes>;
using IV = IntLanes<kLanes>;
using Kind = ChainPotentials::Kind;

// ψ table of a score batch: rows gathered into lanes (0 past a lane's end), shifted by the
// per-lane row max m_t, then exponentiated in one vectorised pass. Returns Σ_{t<len} m_t per lane
// and flags in *bad the lanes with a NaN or infinite shifted score (which exp may not propagate).
// N is the clone's native width in bytes: the row max runs on native pieces.
template <int N>
V FillPsi(const double* scores, int K, const LaneBatch<kLanes>& batch, V* psi, IV* bad) {
  V m_sum = {};
  for (int t = 0; t < batch.length; ++t) {
    V* p = psi + static_cast<size_t>(t) * K;
    IV valid;
    for (int l = 0; l < kLanes; ++l) valid[l] = t < batch.len(l) ? -1 : 0;
    GatherStep<kLanes, N>(scores, K, batch, t, 0.0, p);
    V m;
    for (int q = 0; q < NativePieces<V, N>::kCount; ++q) {
      const PieceColumn<N, V> pq{p, q};
      Piece<V, N> mq = pq[0];
      for (int k = 1; k < K; ++k) mq = pq[k] > mq ? pq[k] : mq;
      StorePiece<N>(&m, q, mq);
    }
    IV not_shifted_down = {};
    for (int k = 0; k < K; ++k) {
      p[k] -= m;
      not_shifted_down = MaskOr(not_shifted_down, PieceWise<N, IV>([](auto x) { return !(x <= 0.0); }, p[k]));
    }
    *bad |= not_shifted_down;
    m_sum += std::bit_cast<V>(valid & std::bit_cast<IV>(m));
  }
  const size_t cells = static_cast<size_t>(batch.length) * K;
  for (size_t i = 0; i < cells; ++i) psi[i] = ExpLanes<kLanes, N>(psi[i]);
  return m_sum;
}

struct ForwardResult {
  std::array<double, kLanes> log_z{};
  std::array<double, kLanes> inv_s{};  // 1 / S per lane, 0 for unused or dead lanes
};

// log Z and 1 / S of every lane from its last α row. One instantiation per kind, so that neither
// formula shares (and so changes the rounding of) the other's products: a probability table has
// no shifts, and its log Z keeps the rounding of Rabiner's sum.
template <ChainPotentials::Kind kKind>
ForwardResult LogPartition(const ChainLanesTransition& tr, const LaneBatch<kLanes>& batch, V m_sum, IV log2_sum,
                           IV dead, const V* alpha) {
  const int K = tr.num_labels;
  ForwardResult out;
  for (int l = 0; l < kLanes; ++l) {
    const int n = batch.len(l);
    if (n == 0) continue;
    if (dead[l] != 0) {
      out.log_z[l] = kKind == Kind::kProbabilities ? -std::numeric_limits<double>::infinity()
                                                   : std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    double s = 0;
    for (int j = 0; j < K; ++j) s += alpha[static_cast<size_t>(n - 1) * K + j][l];
    if constexpr (kKind == Kind::kProbabilities) {
      out.log_z[l] = static_cast<double>(log2_sum[l]) * std::numbers::ln2 + Log(s);
    } else {
      out.log_z[l] = m_sum[l] + (n - 1) * tr.shift + static_cast<double>(log2_sum[l]) * std::numbers::ln2 + Log(s);
    }
    out.inv_s[l] = 1.0 / s;
  }
  return out;
}

// Forward pass. A probability table is gathered step by step (ψ_t = its column, padded with 1);
// a score table's ψ was filled beforehand, with the shifts m_sum and the non-finite lanes `bad`.
// One instantiation per kind, so each kind's steps are compiled for it alone. Flattened because
// GCC otherwise leaves the gather and the K x K blocks as calls per step (5% of the HMM E-step).
template <ChainPotentials::Kind kKind, int N>
[[gnu::flatten]] ForwardResult Forward(const ChainPotentials& potentials, const ChainLanesTransition& tr,
                                       const LaneBatch<kLanes>& batch, V m_sum, IV bad, ChainLanesWork& work) {
  const int K = tr.num_labels;
  V* alpha = work.alpha.data();
  IV log2_sum = {}, dead = bad;
  for (int t = 0; t < batch.length; ++t) {
    V* a = alpha + static_cast<size_t>(t) * K;
    V* p = work.psi.data() + static_cast<size_t>(t) * K;
    if constexpr (kKind == Kind::kProbabilities) GatherStep<kLanes, N>(potentials.table, K, batch, t, 1.0, p);
    if (t > 0) {
      LaneMatVec<N>(a - K, tr.e.data(), K, a, [p](int j, V x) { return x * p[j]; });
    } else if (potentials.initial != nullptr) {
      for (int j = 0; j < K; ++j) a[j] = potentials.initial[j] * p[j];
    } else {
      for (int j = 0; j < K; ++j) a[j] = p[j];
    }
    const V c = LaneSum<kLanes>(a, K);
    IV valid;
    for (int l = 0; l < kLanes; ++l) valid[l] = t < batch.len(l) ? -1 : 0;
    dead = MaskOr(dead, MaskAnd(valid, PieceWise<N, IV>([](auto x) { return !(x > 0); }, c)));  // impossible, NaN potentials or an underflow: no finite log Z
    const V s = PowerOfTwoScale<kLanes>(c, valid, &log2_sum);
    work.scale[t] = s;
    for (int j = 0; j < K; ++j) a[j] *= s;
  }
  return LogPartition<kKind>(tr, batch, m_sum, log2_sum, dead, alpha);
}

// Backward pass; writes b_t to beta_rows [T x K] unless it is null.
template <class Out, int N>
void Backward(const ChainLanesTransition& tr, const LaneBatch<kLanes>& batch, const std::array<double, kLanes>& inv_s,
              ChainLanesWork& work, const std::array<Out*, kLanes>& marginal_rows, V* beta_rows) {
  const int K = tr.num_labels;
  V* beta = work.beta.data();
  V* gamma = work.gamma.data();
  for (int t = batch.length - 1; t >= 0; --t) {
    V last;
    for (int l = 0; l < kLanes; ++l) last[l] = t == batch.len(l) - 1 ? inv_s[l] : 0.0;
    const size_t row = static_cast<size_t>(t) * K;
    if (t == batch.length - 1) {
      for (int i = 0; i < K; ++i) beta[i] = last;
    } else {
      LaneMatVec<N>(work.w.data() + row + K, tr.et.data(), K, beta, [last](int, V x) { return x + last; });
    }
    const V s = work.scale[t];
    for (int j = 0; j < K; ++j) {
      gamma[j] = work.alpha[row + j] * beta[j];
      work.w[row + j] = work.psi[row + j] * beta[j] * s;
    }
    ScatterStep<Out, N>(gamma, K, batch, t, marginal_rows);
    if (beta_rows != nullptr) std::copy(beta, beta + K, beta_rows + row);
  }
}

// The tables of the batch just run (b_t was written by Backward).
void KeepTables(const LaneBatch<kLanes>& batch, int K, const ChainLanesWork& work, ChainLanesTables* tables) {
  const size_t cells = static_cast<size_t>(batch.length) * K;
  tables->alpha.assign(work.alpha.begin(), work.alpha.begin() + static_cast<std::ptrdiff_t>(cells));
  tables->emit.resize(cells);
  for (int t = 0; t < batch.length; ++t) {
    const size_t row = static_cast<size_t>(t) * K;
    for (int j = 0; j < K; ++j) tables->emit[row + j] = work.psi[row + j] * work.scale[t];
  }
}

// IB x JB accumulators of Σ_t α_t(i) W_{t+1}(j) stay in registers over all t: 4 x 6 of them plus
// the 10 operands fill the 32 AVX-512 registers and need 10 loads per 24 multiply-adds (the tables are
// L2-resident for large K). Narrower clones (N < 64 bytes, 16 registers) take one native piece of
// the lanes at a time in 2 x 4 blocks. Each accumulator sums over t in order either way.
template <int N>
struct XiShape {
  static constexpr int kRows = NativePieces<V, N>::kCount == 1 ? 4 : 2;
  static constexpr int kCols = NativePieces<V, N>::kCount == 1 ? 6 : 4;
};

template <int N, int IB, int JB>
void XiBlock(const V* alpha, const V* w, int K, int T, int i0, int j0, V* xi) {
  using P = Piece<V, N>;
  for (int q = 0; q < NativePieces<V, N>::kCount; ++q) {
    P acc[IB][JB] = {};
    for (int t = 0; t + 1 < T; ++t) {
      const PieceColumn<N, V> a{alpha + static_cast<size_t>(t) * K + i0, q};
      const PieceColumn<N, V> wn{w + static_cast<size_t>(t + 1) * K + j0, q};
      for (int ib = 0; ib < IB; ++ib) {
        const P av = a[ib];
        for (int jb = 0; jb < JB; ++jb) acc[ib][jb] += av * wn[jb];
      }
    }
    for (int ib = 0; ib < IB; ++ib) {
      for (int jb = 0; jb < JB; ++jb) {
        V& out = xi[static_cast<size_t>(i0 + ib) * K + j0 + jb];
        StorePiece<N>(&out, q, LoadPiece<N>(out, q) + acc[ib][jb]);
      }
    }
  }
}

template <int N, int IB>
void XiRow(const V* alpha, const V* w, int K, int T, int i0, V* xi) {
  constexpr int kCols = XiShape<N>::kCols;
  int j = 0;
  for (; j + kCols <= K; j += kCols) XiBlock<N, IB, kCols>(alpha, w, K, T, i0, j, xi);
  DispatchTail<kCols>(K - j, [&](auto width) { XiBlock<N, IB, decltype(width)::value>(alpha, w, K, T, i0, j, xi); });
}

template <int N>
void AddOuterKernel(const V* a, const V* w, int K, int T, V* acc) {
  constexpr int kRows = XiShape<N>::kRows;
  int i = 0;
  for (; i + kRows <= K; i += kRows) XiRow<N, kRows>(a, w, K, T, i, acc);
  DispatchTail<kRows>(K - i, [&](auto rows) { XiRow<N, decltype(rows)::value>(a, w, K, T, i, acc); });
}

}  // namespace

SEQFLOW_ISA_WIDTH_CLONES(void, ChainLanesAddOuter, (const V* a, const V* w, int K, int T, V* acc), AddOuterKernel,
                   (a, w, K, T, acc))

bool ChainLanesTables::live(int lane, const LaneBatch<kLanes>& batch) const {
  return batch.len(lane) > 0 && std::isfinite(log_z[lane]);
}

ChainLanesTransition ChainLanesTransition::FromLogPotentials(const Eigen::Ref<const RowMatrixXd>& transition) {
  ChainLanesTransition out;
  const int K = static_cast<int>(transition.rows());
  out.num_labels = K;
  out.shift = transition.maxCoeff();
  out.e.resize(static_cast<size_t>(K) * K);
  out.et.resize(out.e.size());
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) {
      out.e[static_cast<size_t>(i) * K + j] = Exp(transition(i, j) - out.shift);
      out.et[static_cast<size_t>(j) * K + i] = out.e[static_cast<size_t>(i) * K + j];
    }
  }
  return out;
}

ChainLanesTransition ChainLanesTransition::FromProbabilities(const Eigen::Ref<const Eigen::MatrixXd>& transition) {
  ChainLanesTransition out;
  const int K = static_cast<int>(transition.rows());
  out.num_labels = K;
  out.e.resize(static_cast<size_t>(K) * K);
  out.et.assign(transition.data(), transition.data() + out.e.size());  // column-major A is Eᵀ row-major
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) out.e[static_cast<size_t>(i) * K + j] = transition(i, j);
  }
  return out;
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

namespace {

template <class Out, int N>
std::array<double, kLanes> ForwardBackwardKernel(const ChainPotentials& potentials,
                                                 const ChainLanesTransition& transition, const LaneBatch<kLanes>& batch,
                                                 ChainLanesWork& work, const std::array<Out*, kLanes>& marginal_rows,
                                                 V* xi, ChainLanesTables* tables) {
  const int K = transition.num_labels;
  work.Reserve(batch.length, K);
  IV bad = {};
  ForwardResult forward;
  if (potentials.kind == Kind::kLogScores) {
    const V m_sum = FillPsi<N>(potentials.table, K, batch, work.psi.data(), &bad);
    forward = Forward<Kind::kLogScores, N>(potentials, transition, batch, m_sum, bad, work);
  } else {
    forward = Forward<Kind::kProbabilities, N>(potentials, transition, batch, V{}, bad, work);
  }
  const bool rows = std::any_of(marginal_rows.begin(), marginal_rows.end(), [](Out* r) { return r != nullptr; });
  if (!rows && xi == nullptr && tables == nullptr) return forward.log_z;
  V* beta_rows = nullptr;
  if (tables != nullptr) {
    tables->beta.resize(static_cast<size_t>(batch.length) * K);
    beta_rows = tables->beta.data();
  }
  Backward<Out, N>(transition, batch, forward.inv_s, work, marginal_rows, beta_rows);
  if (xi != nullptr) AddOuterKernel<N>(work.alpha.data(), work.w.data(), K, batch.length, xi);
  if (tables != nullptr) {
    KeepTables(batch, K, work, tables);
    tables->log_z = forward.log_z;
  }
  return forward.log_z;
}

using LogZ = std::array<double, kLanes>;
using DoubleRows = std::array<double*, kLanes>;
using FloatRows = std::array<float*, kLanes>;
template <int N>
LogZ ForwardBackwardDoubleKernel(const ChainPotentials& potentials, const ChainLanesTransition& transition,
                                 const LaneBatch<kLanes>& batch, ChainLanesWork& work, const DoubleRows& rows, V* xi,
                                 ChainLanesTables* tables) {
  return ForwardBackwardKernel<double, N>(potentials, transition, batch, work, rows, xi, tables);
}
template <int N>
LogZ ForwardBackwardFloatKernel(const ChainPotentials& potentials, const ChainLanesTransition& transition,
                                const LaneBatch<kLanes>& batch, ChainLanesWork& work, const FloatRows& rows, V* xi,
                                ChainLanesTables* tables) {
  return ForwardBackwardKernel<float, N>(potentials, transition, batch, work, rows, xi, tables);
}

SEQFLOW_ISA_WIDTH_CLONES(LogZ, ForwardBackwardDouble,
                   (const ChainPotentials& potentials, const ChainLanesTransition& transition,
                    const LaneBatch<kLanes>& batch, ChainLanesWork& work, const DoubleRows& rows, V* xi,
                    ChainLanesTables* tables),
                   ForwardBackwardDoubleKernel, (potentials, transition, batch, work, rows, xi, tables))
SEQFLOW_ISA_WIDTH_CLONES(LogZ, ForwardBackwardFloat,
                   (const ChainPotentials& potentials, const ChainLanesTransition& transition,
                    const LaneBatch<kLanes>& batch, ChainLanesWork& work, const FloatRows& rows, V* xi,
                    ChainLanesTables* tables),
                   ForwardBackwardFloatKernel, (potentials, transition, batch, work, rows, xi, tables))

}  // namespace

template <class Out>
std::array<double, kLanes> ChainLanesForwardBackward(const ChainPotentials& potentials,
                                                     const ChainLanesTransition& transition,
                                                     const LaneBatch<kLanes>& batch, ChainLanesWork& work,
                                                     const std::array<Out*, kLanes>& marginal_rows, V* xi,
                                                     ChainLanesTables* tables) {
  if constexpr (std::is_same_v<Out, double>) {
    return ForwardBackwardDouble(potentials, transition, batch, work, marginal_rows, xi, tables);
  } else {
    return ForwardBackwardFloat(potentials, transition, batch, work, marginal_rows, xi, tables);
  }
}

double SumLanes(const V& v) {
  double s = 0;
  for (int l = 0; l < kLanes; ++l) s += v[l];
  return s;
}

void ChainLanesAddBigrams(const ChainLanesTransition& transition, V* xi, double* counts) {
  const size_t cells = static_cast<size_t>(transition.num_labels) * transition.num_labels;
  for (size_t c = 0; c < cells; ++c) {
    counts[c] += transition.e[c] * SumLanes(xi[c]);
    xi[c] = V{};
  }
}

template std::array<double, kLanes> ChainLanesForwardBackward<double>(const ChainPotentials&,
                                                                      const ChainLanesTransition&,
                                                                      const LaneBatch<kLanes>&, ChainLanesWork&,
                                                                      const std::array<double*, kLanes>&, V*,
                                                                      ChainLanesTables*);
template std::array<double, kLanes> ChainLanesForwardBackward<float>(const ChainPotentials&,
                                                                     const ChainLanesTransition&,
                                                                     const LaneBatch<kLanes>&, ChainLanesWork&,
                                                                     const std::array<float*, kLanes>&, V*,
                                                                     ChainLanesTables*);

}  // namespace seqflow
