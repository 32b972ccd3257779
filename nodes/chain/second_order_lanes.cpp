#include "nodes/chain/second_order_lanes.h"

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

IV ValidLanes(const LaneBatch<kLanes>& batch, int t) {
  IV valid;
  for (int l = 0; l < kLanes; ++l) valid[l] = t < batch.len(l) ? -1 : 0;
  return valid;
}

// ψ of the batch (1 past a lane's end), Σ_{t<len} max s_t per lane, and the lanes with a
// non-finite shifted score in *bad.
V FillPsi(const double* scores, int K, const LaneBatch<kLanes>& batch, V* psi, IV* bad) {
  V m_sum = {};
  for (int t = 0; t < batch.length; ++t) {
    V* p = psi + static_cast<size_t>(t) * K;
    GatherStep<kLanes>(scores, K, batch, t, 0.0, p);
    V m = p[0];
    for (int k = 1; k < K; ++k) m = p[k] > m ? p[k] : m;
    for (int k = 0; k < K; ++k) {
      p[k] -= m;
      *bad |= !(p[k] <= 0.0);
    }
    m_sum += std::bit_cast<V>(ValidLanes(batch, t) & std::bit_cast<IV>(m));
  }
  const size_t cells = static_cast<size_t>(batch.length) * K;
  for (size_t i = 0; i < cells; ++i) psi[i] = ExpLanes<kLanes>(psi[i]);
  return m_sum;
}

struct SecondOrderForwardResult {
  std::array<double, kLanes> log_z{};
  std::array<double, kLanes> inv_s{};  // 0 for unused or dead lanes
};

// Records position t's scale from the sum of its α; lanes ending with Σ α = 0 (or NaN) are dead.
void ScaleStep(V sum, const LaneBatch<kLanes>& batch, int t, IV* dead, IV* log2_sum, SecondOrderWork& work) {
  const IV valid = ValidLanes(batch, t);
  *dead = MaskOr(*dead, MaskAnd(valid, IV(!(sum > 0))));
  work.scale[t] = PowerOfTwoScale<kLanes>(sum, valid, log2_sum);
}

template <int N>
SecondOrderForwardResult Forward(const SecondOrderTransition& tr, const LaneBatch<kLanes>& batch, V m_sum, IV bad,
                      SecondOrderWork& work) {
  const int K = tr.num_labels, T = batch.length;
  const size_t TK = static_cast<size_t>(T) * K;
  IV log2_sum = {}, dead = bad;
  const V* psi = work.psi.data();
  V* alpha = work.alpha.data();
  V* row = work.row.data();
  for (int c = 0; c < K; ++c) work.alpha0[c] = psi[c];
  ScaleStep(LaneSum<kLanes>(work.alpha0.data(), K), batch, 0, &dead, &log2_sum, work);
  for (int c = 0; c < K; ++c) work.alpha0[c] *= work.scale[0];
  for (int b = 0; b < K; ++b) std::fill(alpha + b * TK, alpha + b * TK + K, V{});
  const double* start = tr.e.data() + static_cast<size_t>(K) * K * K;
  for (int t = 1; t < T; ++t) {
    const V* p = psi + static_cast<size_t>(t) * K;
    V sum = {};
    for (int b = 0; b < K; ++b) {
      if (t == 1) {
        const V a0 = work.alpha0[b];
        const double* e = start + static_cast<size_t>(b) * K;
        for (int c = 0; c < K; ++c) row[c] = a0 * e[c] * p[c];
      } else {
        LaneMatVec<N>(alpha + b * TK + static_cast<size_t>(t - 1) * K,
                      tr.forward.data() + static_cast<size_t>(b) * K * K, K, row, [p](int c, V x) { return x * p[c]; });
      }
      sum += LaneSum<kLanes>(row, K);
      for (int c = 0; c < K; ++c) alpha[c * TK + static_cast<size_t>(t) * K + b] = row[c];
    }
    ScaleStep(sum, batch, t, &dead, &log2_sum, work);
    const V s = work.scale[t];
    for (int c = 0; c < K; ++c) {
      V* a = alpha + c * TK + static_cast<size_t>(t) * K;
      for (int b = 0; b < K; ++b) a[b] *= s;
    }
  }
  SecondOrderForwardResult out;
  for (int l = 0; l < kLanes; ++l) {
    const int n = batch.len(l);
    if (n == 0) continue;
    if (dead[l] != 0) {
      out.log_z[l] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    double s = 0;
    if (n == 1) {
      for (int c = 0; c < K; ++c) s += work.alpha0[c][l];
    } else {
      for (int c = 0; c < K; ++c) {
        const V* a = alpha + c * TK + static_cast<size_t>(n - 1) * K;
        for (int b = 0; b < K; ++b) s += a[b][l];
      }
    }
    out.log_z[l] = m_sum[l] + (n - 1) * tr.shift + static_cast<double>(log2_sum[l]) * std::numbers::ln2 + Log(s);
    out.inv_s[l] = 1.0 / s;
  }
  return out;
}

template <int N, class Out>
void Backward(const SecondOrderTransition& tr, const LaneBatch<kLanes>& batch, const std::array<double, kLanes>& inv_s,
              SecondOrderWork& work, const std::array<Out*, kLanes>& marginal_rows,
              const std::array<double*, kLanes>& pair_rows) {
  const int K = tr.num_labels, T = batch.length;
  const size_t TK = static_cast<size_t>(T) * K;
  const V* psi = work.psi.data();
  const V* alpha = work.alpha.data();
  V* w = work.w.data();
  V* row = work.row.data();
  V* gamma = work.gamma.data();
  const bool pairs = std::any_of(pair_rows.begin(), pair_rows.end(), [](double* r) { return r != nullptr; });
  for (int t = T - 1; t >= 0; --t) {
    V last;
    for (int l = 0; l < kLanes; ++l) last[l] = t == batch.len(l) - 1 ? inv_s[l] : 0.0;
    const V* p = psi + static_cast<size_t>(t) * K;
    const V s = work.scale[t];
    if (t == 0) {
      const double* start = tr.e.data() + static_cast<size_t>(K) * K * K;
      for (int c = 0; c < K; ++c) {
        V beta = last;
        if (T > 1) {
          const V* wn = w + c * TK + K;
          const double* e = start + static_cast<size_t>(c) * K;
          V acc = {};
          for (int d = 0; d < K; ++d) acc += wn[d] * e[d];
          beta += acc;
        }
        gamma[c] = work.alpha0[c] * beta;
      }
      ScatterStep<Out>(gamma, K, batch, 0, marginal_rows);
      for (double* r : pair_rows) {
        if (r != nullptr) std::fill(r, r + static_cast<size_t>(K) * K, 0.0);
      }
      break;
    }
    for (int c = 0; c < K; ++c) {
      if (t == T - 1) {
        for (int b = 0; b < K; ++b) row[b] = last;
      } else {
        LaneMatVec<N>(w + c * TK + static_cast<size_t>(t + 1) * K, tr.backward.data() + static_cast<size_t>(c) * K * K,
                      K, row, [last](int, V x) { return x + last; });
      }
      const V* a = alpha + c * TK + static_cast<size_t>(t) * K;
      const V ws = p[c] * s;
      V g = {};
      for (int b = 0; b < K; ++b) {
        const V pb = a[b] * row[b];
        g += pb;
        w[b * TK + static_cast<size_t>(t) * K + c] = ws * row[b];
        if (pairs) {
          for (int l = 0; l < kLanes; ++l) {
            if (pair_rows[l] != nullptr && t < batch.len(l)) {
              pair_rows[l][(static_cast<size_t>(t) * K + b) * K + c] = pb[l];
            }
          }
        }
      }
      gamma[c] = g;
    }
    ScatterStep<Out>(gamma, K, batch, t, marginal_rows);
  }
}

// ξ: per middle tag b the sums Σ_t α_{t-1}(a, b) W_t(b, c) (ChainLanesAddOuter over the two
// time-major tables of b), then the start rows α_0(b) W_1(b, c).
void AddXi(int K, int T, const SecondOrderWork& work, V* xi) {
  const size_t TK = static_cast<size_t>(T) * K, KK = static_cast<size_t>(K) * K;
  for (int b = 0; b < K; ++b) {
    ChainLanesAddOuter(work.alpha.data() + b * TK, work.w.data() + b * TK, K, T, xi + b * KK);
  }
  if (T < 2) return;
  V* start = xi + KK * K;
  for (int b = 0; b < K; ++b) {
    const V a0 = work.alpha0[b];
    const V* wn = work.w.data() + b * TK + K;
    for (int c = 0; c < K; ++c) start[static_cast<size_t>(b) * K + c] += a0 * wn[c];
  }
}

void Reserve(int T, int K, SecondOrderWork& work) {
  const size_t cells = static_cast<size_t>(T) * K;
  if (work.psi.size() < cells) work.psi.resize(cells);
  if (work.scale.size() < static_cast<size_t>(T)) work.scale.resize(T);
  if (work.alpha.size() < cells * K) {
    work.alpha.resize(cells * K);
    work.w.resize(cells * K);
  }
  work.alpha0.resize(K);
  work.row.resize(K);
  work.gamma.resize(K);
}

// N: the clone's native width in bytes (SEQFLOW_ISA_WIDTH_CLONES), so that the K x K steps run in
// blocks the target has registers for; the arithmetic per lane is the same at every width.
template <int N, class Out>
std::array<double, kLanes> ForwardBackwardKernel(const double* scores, const SecondOrderTransition& transition,
                                                 const LaneBatch<kLanes>& batch, SecondOrderWork& work,
                                                 const std::array<Out*, kLanes>& marginal_rows,
                                                 const std::array<double*, kLanes>& pair_rows, V* xi) {
  const int K = transition.num_labels;
  Reserve(batch.length, K, work);
  IV bad = {};
  const V m_sum = FillPsi(scores, K, batch, work.psi.data(), &bad);
  const SecondOrderForwardResult forward = Forward<N>(transition, batch, m_sum, bad, work);
  const auto set = [](auto* r) { return r != nullptr; };
  const bool rows = std::any_of(marginal_rows.begin(), marginal_rows.end(), set) ||
                    std::any_of(pair_rows.begin(), pair_rows.end(), set);
  if (!rows && xi == nullptr) return forward.log_z;
  Backward<N, Out>(transition, batch, forward.inv_s, work, marginal_rows, pair_rows);
  if (xi != nullptr) AddXi(K, batch.length, work, xi);
  return forward.log_z;
}

using LogZ = std::array<double, kLanes>;
using DoubleRows = std::array<double*, kLanes>;
using FloatRows = std::array<float*, kLanes>;
SEQFLOW_ISA_WIDTH_CLONES(LogZ, SecondOrderDouble,
                         (const double* scores, const SecondOrderTransition& transition, const LaneBatch<kLanes>& batch,
                          SecondOrderWork& work, const DoubleRows& rows, const DoubleRows& pairs, V* xi),
                         ForwardBackwardKernel, (scores, transition, batch, work, rows, pairs, xi))
SEQFLOW_ISA_WIDTH_CLONES(LogZ, SecondOrderFloat,
                         (const double* scores, const SecondOrderTransition& transition, const LaneBatch<kLanes>& batch,
                          SecondOrderWork& work, const FloatRows& rows, const DoubleRows& pairs, V* xi),
                         ForwardBackwardKernel, (scores, transition, batch, work, rows, pairs, xi))

}  // namespace

SecondOrderTransition SecondOrderTransition::FromLogPotentials(const Eigen::Ref<const Eigen::VectorXd>& trigram,
                                                               int num_labels) {
  const int K = num_labels;
  SecondOrderTransition out;
  out.num_labels = K;
  out.shift = trigram.maxCoeff();
  out.e.resize(static_cast<size_t>(TrigramSize(K)));
  for (size_t i = 0; i < out.e.size(); ++i) out.e[i] = Exp(trigram[static_cast<Eigen::Index>(i)] - out.shift);
  const size_t cube = static_cast<size_t>(K) * K * K;
  out.forward.resize(cube);
  out.backward.resize(cube);
  for (int a = 0; a < K; ++a) {
    for (int b = 0; b < K; ++b) {
      for (int c = 0; c < K; ++c) {
        const double e = out.e[TrigramIndex(K, a, b, c)];
        out.forward[(static_cast<size_t>(b) * K + a) * K + c] = e;
        out.backward[(static_cast<size_t>(b) * K + c) * K + a] = e;
      }
    }
  }
  return out;
}

template <class Out>
std::array<double, kLanes> SecondOrderForwardBackward(const double* scores, const SecondOrderTransition& transition,
                                                      const LaneBatch<kLanes>& batch, SecondOrderWork& work,
                                                      const std::array<Out*, kLanes>& marginal_rows,
                                                      const std::array<double*, kLanes>& pair_rows, V* xi) {
  if constexpr (std::is_same_v<Out, double>) {
    return SecondOrderDouble(scores, transition, batch, work, marginal_rows, pair_rows, xi);
  } else {
    return SecondOrderFloat(scores, transition, batch, work, marginal_rows, pair_rows, xi);
  }
}

template std::array<double, kLanes> SecondOrderForwardBackward<double>(const double*, const SecondOrderTransition&,
                                                                       const LaneBatch<kLanes>&, SecondOrderWork&,
                                                                       const std::array<double*, kLanes>&,
                                                                       const std::array<double*, kLanes>&, V*);
template std::array<double, kLanes> SecondOrderForwardBackward<float>(const double*, const SecondOrderTransition&,
                                                                      const LaneBatch<kLanes>&, SecondOrderWork&,
                                                                      const std::array<float*, kLanes>&,
                                                                      const std::array<double*, kLanes>&, V*);

void SecondOrderAddTrigrams(const SecondOrderTransition& transition, V* xi, double* counts) {
  const int K = transition.num_labels;
  for (int a = 0; a <= K; ++a) {
    for (int b = 0; b < K; ++b) {
      for (int c = 0; c < K; ++c) {
        // xi holds the rows a < K per middle tag b, then the start rows.
        const size_t from = a < K ? (static_cast<size_t>(b) * K + a) * K + c
                                  : static_cast<size_t>(K) * K * K + static_cast<size_t>(b) * K + c;
        const int64_t to = TrigramIndex(K, a, b, c);
        counts[to] += transition.e[static_cast<size_t>(to)] * SumLanes(xi[from]);
        xi[from] = V{};
      }
    }
  }
}

std::vector<int32_t> SecondOrderViterbi(const double* scores, int T, int K, const double* trigram) {
  std::vector<int32_t> path(static_cast<size_t>(T));
  const auto best_of = [](const double* v, int n) { return static_cast<int32_t>(std::max_element(v, v + n) - v); };
  if (T == 1) {
    path[0] = best_of(scores, K);
    return path;
  }
  const size_t KK = static_cast<size_t>(K) * K;
  // delta[b * K + c]: the best score of a prefix ending in the pair (b, c).
  std::vector<double> delta(KK), next(KK);
  std::vector<int32_t> back(static_cast<size_t>(T) * KK, 0);
  for (int b = 0; b < K; ++b) {
    for (int c = 0; c < K; ++c) delta[b * K + c] = scores[b] + trigram[TrigramIndex(K, K, b, c)] + scores[K + c];
  }
  for (int t = 2; t < T; ++t) {
    const double* s = scores + static_cast<size_t>(t) * K;
    for (int b = 0; b < K; ++b) {
      for (int c = 0; c < K; ++c) {
        double best = -std::numeric_limits<double>::infinity();
        int32_t arg = 0;
        for (int a = 0; a < K; ++a) {
          const double v = delta[a * K + b] + trigram[TrigramIndex(K, a, b, c)];
          if (v > best) best = v, arg = a;
        }
        next[b * K + c] = best + s[c];
        back[static_cast<size_t>(t) * KK + b * K + c] = arg;
      }
    }
    delta.swap(next);
  }
  const int32_t end = best_of(delta.data(), static_cast<int>(KK));
  path[T - 2] = end / K;
  path[T - 1] = end % K;
  for (int t = T - 1; t >= 2; --t) {
    path[t - 2] = back[static_cast<size_t>(t) * KK + path[t - 1] * K + path[t]];
  }
  return path;
}

double SecondOrderScore(const Eigen::Ref<const RowMatrixXd>& scores, const Eigen::Ref<const Eigen::VectorXd>& trigram,
                        const std::vector<int32_t>& labels) {
  const int K = static_cast<int>(scores.cols());
  double total = 0;
  for (size_t t = 0; t < labels.size(); ++t) {
    total += scores(static_cast<Eigen::Index>(t), labels[t]);
    if (t == 0) continue;
    const int a = t == 1 ? K : labels[t - 2];
    total += trigram[TrigramIndex(K, a, labels[t - 1], labels[t])];
  }
  return total;
}

}  // namespace seqflow
