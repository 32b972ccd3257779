#include "nodes/hmm/fb_lanes.h"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "nodes/common/lane_transpose.h"

namespace seqflow {
namespace {

template <int L>
void Forward(const FbModel& model, const LaneBatch<L>& batch, FbWork<L>* work) {
  const int K = model.K;
  Lanes<L>* alpha = work->alpha.data();
  Lanes<L>* emit = work->emit.data();
  Lanes<L> length;
  for (int l = 0; l < L; ++l) length[l] = batch.len(l);
  IntLanes<L> log2_sum = {}, dead = {};
  for (int t = 0; t < batch.length; ++t) {
    Lanes<L>* a = alpha + static_cast<size_t>(t) * K;
    Lanes<L>* e = emit + static_cast<size_t>(t) * K;
    GatherStep<L>(model.hmm.emission.data(), K, batch, t, 1.0, e);
    if (t == 0) {
      for (int j = 0; j < K; ++j) a[j] = model.hmm.initial[j] * e[j];
    } else {
      LaneMatVec(a - K, model.a_row_major.data(), K, a, [e](int j, Lanes<L> x) { return x * e[j]; });
    }
    const Lanes<L> c = LaneSum<L>(a, K);
    const IntLanes<L> valid = static_cast<double>(t) < length;
    dead |= valid & !(c > 0);  // zero probability: the lane's a_t stay 0 from here on
    const Lanes<L> s = PowerOfTwoScale<L>(c, valid, &log2_sum);
    work->scale[t] = s;
    for (int j = 0; j < K; ++j) a[j] *= s;
  }
  for (int l = 0; l < L; ++l) {
    const int n = batch.len(l);
    if (n == 0 || dead[l] != 0) {
      work->log_likelihood[l] = n == 0 ? 0.0 : -std::numeric_limits<double>::infinity();
      work->inv_z[l] = 0;
      continue;
    }
    double z = 0;
    for (int j = 0; j < K; ++j) z += alpha[static_cast<size_t>(n - 1) * K + j][l];
    work->log_likelihood[l] = static_cast<double>(log2_sum[l]) * std::numbers::ln2 + std::log(z);
    work->inv_z[l] = 1.0 / z;
  }
}

template <int L>
void Backward(const FbModel& model, const LaneBatch<L>& batch, FbWork<L>* work,
              const std::array<double*, L>& gamma_rows) {
  const int K = model.K;
  Lanes<L>* beta = work->beta.data();
  Lanes<L>* gamma = work->gamma.data();
  for (int t = batch.length - 1; t >= 0; --t) {
    Lanes<L> last;
    for (int l = 0; l < L; ++l) last[l] = (t == batch.len(l) - 1) ? work->inv_z[l] : 0.0;
    const size_t row = static_cast<size_t>(t) * K;
    if (t == batch.length - 1) {
      for (int i = 0; i < K; ++i) beta[i] = last;
    } else {
      // A(i, j) at [j * K + i] in column-major A: the transposed step of the forward pass.
      LaneMatVec(work->w.data() + row + K, model.hmm.transition.data(), K, beta,
                 [last](int, Lanes<L> x) { return x + last; });
    }
    const Lanes<L> s = work->scale[t];
    for (int j = 0; j < K; ++j) {
      gamma[j] = work->alpha[row + j] * beta[j];
      work->w[row + j] = work->emit[row + j] * beta[j] * s;
    }
    ScatterStep<L>(gamma, K, batch, t, gamma_rows);
  }
}

// IB x JB accumulators stay in registers over all t; 4 x 6 vectors plus the 10 operands fill the
// 32 AVX-512 registers and need 10 loads per 24 FMAs (the tables are L2-resident for large K).
template <int L, int IB, int JB>
void XiBlock(const Lanes<L>* alpha, const Lanes<L>* w, int K, int T, int i0, int j0, Lanes<L>* xi) {
  Lanes<L> acc[IB][JB] = {};
  for (int t = 0; t + 1 < T; ++t) {
    const Lanes<L>* a = alpha + static_cast<size_t>(t) * K + i0;
    const Lanes<L>* wn = w + static_cast<size_t>(t + 1) * K + j0;
    for (int ib = 0; ib < IB; ++ib) {
      const Lanes<L> av = a[ib];
      for (int jb = 0; jb < JB; ++jb) acc[ib][jb] += av * wn[jb];
    }
  }
  for (int ib = 0; ib < IB; ++ib) {
    for (int jb = 0; jb < JB; ++jb) xi[static_cast<size_t>(i0 + ib) * K + j0 + jb] += acc[ib][jb];
  }
}

constexpr int kXiRows = 4;
constexpr int kXiCols = 6;

template <int L, int IB>
void XiRow(const Lanes<L>* alpha, const Lanes<L>* w, int K, int T, int i0, Lanes<L>* xi) {
  int j = 0;
  for (; j + kXiCols <= K; j += kXiCols) XiBlock<L, IB, kXiCols>(alpha, w, K, T, i0, j, xi);
  DispatchTail<kXiCols>(K - j, [&](auto width) { XiBlock<L, IB, decltype(width)::value>(alpha, w, K, T, i0, j, xi); });
}

}  // namespace

FbModel::FbModel(const HmmParams& params)
    : hmm(params), K(params.num_states()), a_row_major(params.transition.transpose()) {}

template <int L>
void FbWork<L>::Reserve(int T, int K) {
  const size_t cells = static_cast<size_t>(T) * K;
  if (emit.size() < cells) {
    emit.resize(cells);
    alpha.resize(cells);
    w.resize(cells);
  }
  if (scale.size() < static_cast<size_t>(T)) scale.resize(T);
  beta.resize(K);
  gamma.resize(K);
}

template <int L>
void FbRun(const FbModel& model, const LaneBatch<L>& batch, FbWork<L>* work, const std::array<double*, L>& gamma_rows) {
  work->Reserve(batch.length, model.K);
  Forward<L>(model, batch, work);
  Backward<L>(model, batch, work, gamma_rows);
}

template <int L>
void FbAddTransitionCounts(const FbWork<L>& work, int K, int T, Lanes<L>* xi) {
  const Lanes<L>* alpha = work.alpha.data();
  const Lanes<L>* w = work.w.data();
  int i = 0;
  for (; i + kXiRows <= K; i += kXiRows) XiRow<L, kXiRows>(alpha, w, K, T, i, xi);
  switch (K - i) {
    case 3:
      XiRow<L, 3>(alpha, w, K, T, i, xi);
      break;
    case 2:
      XiRow<L, 2>(alpha, w, K, T, i, xi);
      break;
    case 1:
      XiRow<L, 1>(alpha, w, K, T, i, xi);
      break;
    default:
      break;
  }
}

template struct FbWork<kLanes>;
template void FbRun<kLanes>(const FbModel&, const LaneBatch<kLanes>&, FbWork<kLanes>*,
                            const std::array<double*, kLanes>&);
template void FbAddTransitionCounts<kLanes>(const FbWork<kLanes>&, int, int, Lanes<kLanes>*);

}  // namespace seqflow
