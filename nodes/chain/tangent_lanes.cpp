#include "nodes/chain/tangent_lanes.h"

#include <array>
#include <utility>

#include "engine/base/isa.h"
#include "nodes/common/lane_transpose.h"

namespace seqflow {
namespace {

using V = Lanes<kLanes>;

struct Pass {
  const ChainLanesTransition& tr;
  const LaneBatch<kLanes>& batch;
  const ChainLanesTables& tables;
  const ChainTangentDirection& u;
  ChainTangentWork& work;
  int K;
  bool bigrams;                   // U_E given: the (E ∘ U_E) terms and the bigram output
  std::array<bool, kLanes> live;  // used lanes with a finite log Z
};

void Prepare(const Pass& p) {
  const size_t cells = static_cast<size_t>(p.batch.length) * p.K;
  ChainTangentWork& w = p.work;
  if (w.alpha_dot.size() < cells) {
    w.alpha_dot.resize(cells);
    w.u.resize(cells);
  }
  w.beta_dot.resize(2 * p.K);
  w.scratch.resize(2 * p.K);
  if (!p.bigrams) return;
  if (w.w.size() < cells) {
    w.w.resize(cells);
    w.w_dot.resize(cells);
  }
  const size_t KK = static_cast<size_t>(p.K) * p.K;
  w.x.assign(KK, V{});
  w.y.assign(KK, V{});
  w.de.resize(KK);
  w.de_t.resize(KK);
  for (int i = 0; i < p.K; ++i) {
    for (int j = 0; j < p.K; ++j) {
      const size_t c = static_cast<size_t>(i) * p.K + j;
      w.de[c] = p.tr.e[c] * p.u.transition[c];
      w.de_t[static_cast<size_t>(j) * p.K + i] = w.de[c];
    }
  }
}

// ȧ_t for every t (U_t gathered on the way); returns ζ per lane. N: the clone's native width
// in bytes (LaneMatVec's blocks).
template <int N>
V ForwardTangent(const Pass& p) {
  const int K = p.K;
  V* ad = p.work.alpha_dot.data();
  V* ue = p.work.u.data();
  V* extra = p.work.scratch.data() + K;
  const V* alpha = p.tables.alpha.data();
  const V* emit = p.tables.emit.data();
  for (int t = 0; t < p.batch.length; ++t) {
    const size_t row = static_cast<size_t>(t) * K;
    GatherStep<kLanes, N>(p.u.position, K, p.batch, t, 0.0, ue + row);
    if (t == 0) {
      for (int j = 0; j < K; ++j) ad[j] = alpha[j] * (p.u.initial != nullptr ? p.u.initial[j] + ue[j] : ue[j]);
    } else if (p.bigrams) {
      LaneMatVec<N>(alpha + row - K, p.work.de.data(), K, extra, [](int, V s) { return s; });
      LaneMatVec<N>(ad + row - K, p.tr.e.data(), K, ad + row,
                 [&](int c, V s) { return (s + extra[c]) * emit[row + c] + alpha[row + c] * ue[row + c]; });
    } else {
      LaneMatVec<N>(ad + row - K, p.tr.e.data(), K, ad + row,
                 [&](int c, V s) { return s * emit[row + c] + alpha[row + c] * ue[row + c]; });
    }
  }
  V zeta = {};
  for (int l = 0; l < kLanes; ++l) {
    const int n = p.batch.len(l);
    if (n == 0) continue;
    const size_t last = static_cast<size_t>(n - 1) * K;
    double z = 0;
    for (int j = 0; j < K; ++j) z += ad[last + j][l] * p.tables.beta[last + j][l];
    zeta[l] = z;
  }
  return zeta;
}

// dP_t of the live lanes into the outputs.
void ScatterMarginals(const Pass& p, int t, const V* dg, const ChainTangentOutput& out) {
  const int K = p.K;
  for (int l = 0; l < kLanes; ++l) {
    if (t >= p.batch.len(l) || !p.live[l]) continue;
    double* col = out.position + static_cast<size_t>(p.batch.obs[l][t]) * K;
    for (int j = 0; j < K; ++j) col[j] += dg[j][l];
    if (t == 0 && out.initial != nullptr) {
      for (int j = 0; j < K; ++j) out.initial[j] += dg[j][l];
    }
  }
}

// ḃ_t from t = T-1 down, with dP_t scattered as soon as ḃ_t is known (and W_t, Ẇ_t kept for the
// bigram sums).
template <int N>
void BackwardTangent(const Pass& p, V zeta, const ChainTangentOutput& out) {
  const int K = p.K;
  const V* alpha = p.tables.alpha.data();
  const V* beta = p.tables.beta.data();
  const V* emit = p.tables.emit.data();
  const V* ad = p.work.alpha_dot.data();
  const V* ue = p.work.u.data();
  V* bd = p.work.beta_dot.data();  // ḃ_t
  V* bd_next = bd + K;             // ḃ_{t+1}
  V* v = p.work.scratch.data();
  V* extra = v + K;
  V* dg = v;  // v is spent once ḃ_t is computed
  for (int t = p.batch.length - 1; t >= 0; --t) {
    const size_t row = static_cast<size_t>(t) * K;
    if (t == p.batch.length - 1) {
      for (int j = 0; j < K; ++j) bd[j] = V{};
    } else {
      const size_t next = row + K;
      for (int k = 0; k < K; ++k) v[k] = emit[next + k] * (ue[next + k] * beta[next + k] + bd_next[k]);
      if (p.bigrams) {
        LaneMatVec<N>(p.work.w.data() + next, p.work.de_t.data(), K, extra, [](int, V s) { return s; });
        LaneMatVec<N>(v, p.tr.et.data(), K, bd, [extra](int c, V s) { return s + extra[c]; });
      } else {
        LaneMatVec<N>(v, p.tr.et.data(), K, bd, [](int, V s) { return s; });
      }
    }
    if (p.bigrams) {
      for (int j = 0; j < K; ++j) {
        const V w = emit[row + j] * beta[row + j];
        p.work.w[row + j] = w;
        p.work.w_dot[row + j] = ue[row + j] * w + emit[row + j] * bd[j];
      }
    }
    for (int j = 0; j < K; ++j) {
      const V a = alpha[row + j];
      const V be = beta[row + j];
      dg[j] = ad[row + j] * be + a * bd[j] - zeta * (a * be);
    }
    ScatterMarginals(p, t, dg, out);
    std::swap(bd, bd_next);
  }
}

// out.transition += E ∘ Σ_live lanes [Y + (U_E − ζ) ∘ X].
void AddBigramTangent(const Pass& p, V zeta, const ChainTangentOutput& out) {
  const int K = p.K, T = p.batch.length;
  ChainTangentWork& w = p.work;
  ChainLanesAddOuter(p.tables.alpha.data(), w.w.data(), K, T, w.x.data());
  ChainLanesAddOuter(w.alpha_dot.data(), w.w.data(), K, T, w.y.data());
  ChainLanesAddOuter(p.tables.alpha.data(), w.w_dot.data(), K, T, w.y.data());
  for (size_t c = 0; c < w.x.size(); ++c) {
    double sum = 0;
    for (int l = 0; l < kLanes; ++l) {
      if (p.live[l]) sum += w.y[c][l] + (p.u.transition[c] - zeta[l]) * w.x[c][l];
    }
    out.transition[c] += p.tr.e[c] * sum;
  }
}

template <int N>
void ChainLanesTangentKernel(const ChainLanesTransition& transition, const LaneBatch<kLanes>& batch,
                             const ChainLanesTables& tables, const ChainTangentDirection& u, ChainTangentWork& work,
                             const ChainTangentOutput& out) {
  Pass p{transition, batch, tables, u, work, transition.num_labels, u.transition != nullptr, {}};
  for (int l = 0; l < kLanes; ++l) p.live[l] = tables.live(l, batch);
  Prepare(p);
  const V zeta = ForwardTangent<N>(p);
  BackwardTangent<N>(p, zeta, out);
  if (p.bigrams) AddBigramTangent(p, zeta, out);
}

}  // namespace

SEQFLOW_ISA_WIDTH_CLONES(void, ChainLanesTangent,
                   (const ChainLanesTransition& transition, const LaneBatch<kLanes>& batch,
                    const ChainLanesTables& tables, const ChainTangentDirection& u, ChainTangentWork& work,
                    const ChainTangentOutput& out),
                   ChainLanesTangentKernel, (transition, batch, tables, u, work, out))

}  // namespace seqflow
