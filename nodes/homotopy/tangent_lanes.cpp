#include "nodes/homotopy/tangent_lanes.h"

#include <algorithm>
#include <utility>

#include "nodes/common/lane_transpose.h"

namespace seqflow {

template <int L>
void PackLatticeBatch(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& x, std::span<const size_t> ids,
                      const std::vector<SentenceLattice>& lattices, LatticeBatch<L>* out) {
  const int K = hmm.num_states();
  out->batch = LaneBatch<L>{};
  for (size_t l = 0; l < ids.size(); ++l) {
    out->batch.obs[l] = x[ids[l]];
    out->batch.length = std::max(out->batch.length, out->batch.len(static_cast<int>(l)));
  }
  const size_t cells = static_cast<size_t>(out->batch.length) * K;
  out->alpha.assign(cells, Lanes<L>{});
  out->beta.assign(cells, Lanes<L>{});
  out->emit.assign(cells, Lanes<L>{});
  for (size_t l = 0; l < ids.size(); ++l) {
    const SentenceLattice& lat = lattices[ids[l]];
    const std::vector<int32_t>& s = x[ids[l]];
    for (int t = 0; t < lat.length(); ++t) {
      for (int j = 0; j < K; ++j) {
        const size_t c = static_cast<size_t>(t) * K + j;
        out->alpha[c][l] = lat.alpha(j, t);
        out->beta[c][l] = lat.beta(j, t);
        out->emit[c][l] = hmm.emission(j, s[t]) / lat.scale[t];
      }
    }
  }
}

template <int L>
void AddCountTangentLanes(const HmmParams& hmm, const LatticeBatch<L>& b, const LogDirection& u,
                          TangentLaneWork<L>* work, ExpectedCounts* d) {
  const int K = hmm.num_states();
  const int T = b.batch.length;
  const size_t cells = static_cast<size_t>(T) * K;
  if (work->alpha_dot.size() < cells) {
    work->alpha_dot.resize(cells);
    work->u_emit.resize(cells);
  }
  work->beta_dot.resize(2 * K);
  work->scratch.resize(K);
  Lanes<L>* ad = work->alpha_dot.data();
  Lanes<L>* ue = work->u_emit.data();
  const Lanes<L>* alpha = b.alpha.data();
  const Lanes<L>* beta = b.beta.data();
  const Lanes<L>* emit = b.emit.data();
  // m[k * K + c] = A(k, c) for the forward step Aᵀ ȧ: A's row-major layout is Aᵀ's column-major.
  const Eigen::MatrixXd a_row_major = hmm.transition.transpose();
  // Forward tangent.
  for (int t = 0; t < T; ++t) {
    const size_t row = static_cast<size_t>(t) * K;
    GatherStep<L>(u.emission.data(), K, b.batch, t, 0.0, ue + row);
    if (t == 0) {
      for (int j = 0; j < K; ++j) ad[j] = alpha[j] * (u.initial[j] + ue[j]);
    } else {
      LaneMatVec(ad + row - K, a_row_major.data(), K, ad + row,
                 [&](int c, Lanes<L> s) { return s * emit[row + c] + alpha[row + c] * ue[row + c]; });
    }
  }
  Lanes<L> zeta = {};
  for (int l = 0; l < L; ++l) {
    const int n = b.batch.len(l);
    if (n == 0) continue;
    double z = 0;
    for (int j = 0; j < K; ++j) z += ad[static_cast<size_t>(n - 1) * K + j][l];
    zeta[l] = z;
  }
  // Backward tangent, with dγ_t scattered to the outputs as soon as ḃ_t is known.
  Lanes<L>* bd = work->beta_dot.data();  // ḃ_t
  Lanes<L>* bd_next = bd + K;            // ḃ_t+1
  Lanes<L>* v = work->scratch.data();
  Lanes<L>* dg = v;  // v is spent once ḃ_t is computed
  for (int t = T - 1; t >= 0; --t) {
    const size_t row = static_cast<size_t>(t) * K;
    if (t == T - 1) {
      for (int j = 0; j < K; ++j) bd[j] = Lanes<L>{};
    } else {
      const size_t next = row + K;
      for (int k = 0; k < K; ++k) v[k] = emit[next + k] * (ue[next + k] * beta[next + k] + bd_next[k]);
      // m[k * K + c] = A(c, k): A's column-major data.
      LaneMatVec(v, hmm.transition.data(), K, bd, [](int, Lanes<L> s) { return s; });
    }
    for (int j = 0; j < K; ++j) {
      const Lanes<L> a = alpha[row + j];
      const Lanes<L> be = beta[row + j];
      dg[j] = ad[row + j] * be + a * bd[j] - zeta * (a * be);
    }
    for (int l = 0; l < L; ++l) {
      if (t >= b.batch.len(l)) continue;
      double* col = d->emission.data() + static_cast<size_t>(b.batch.obs[l][t]) * K;
      for (int j = 0; j < K; ++j) col[j] += dg[j][l];
      if (t == 0) {
        for (int j = 0; j < K; ++j) d->initial[j] += dg[j][l];
      }
    }
    std::swap(bd, bd_next);
  }
}

template struct LatticeBatch<kLanes>;
template void PackLatticeBatch<kLanes>(const HmmParams&, const std::vector<std::vector<int32_t>>&,
                                       std::span<const size_t>, const std::vector<SentenceLattice>&,
                                       LatticeBatch<kLanes>*);
template void AddCountTangentLanes<kLanes>(const HmmParams&, const LatticeBatch<kLanes>&, const LogDirection&,
                                           TangentLaneWork<kLanes>*, ExpectedCounts*);

}  // namespace seqflow
