#include "nodes/hmm/classifier_em.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>

#include "engine/base/isa.h"
#include "nodes/common/parallel.h"
#include "nodes/common/portable_math.h"
#include "nodes/hmm/fixed_dual.h"
#include "nodes/hmm/scaled_blocks.h"

namespace seqflow {
namespace {

double ValueOf(double v) { return v; }
template <int N, int B>
double ValueOf(const FixedDual<N, B>& v) {
  return v.value;
}

// log |v| by portable_math.h; d log|v| = dv / v.
double LogAbs(double v) { return Log(std::abs(v)); }
template <int N, int B>
FixedDual<N, B> LogAbs(const FixedDual<N, B>& v) {
  FixedDual<N, B> r;
  SetScaled(r, v, 1 / v.value);
  r.value = Log(std::abs(v.value));
  return r;
}

// The scaled forward-backward's per-sequence tables, kept per thread so their capacity is reused.
template <class S>
struct ChainScratch {
  std::vector<S> alpha;      // [T x K], normalised per t
  std::vector<S> beta;       // [T x K], scaled by the same sums
  std::vector<S> inv_scale;  // [T], 1 / c_t
  std::vector<S> carry;      // [T x K], b_j(x_t) β_t(j) / c_t: shared by β_t-1 and ξ_t-1
  std::vector<S> transition_sums;  // [K x K], the unscaled pass's Σ_t α_t(i) carry_t+1(j)

  // Sizes every table for a sequence of T positions and K states (capacity kept).
  void Fit(int T, int K) {
    alpha.resize(static_cast<size_t>(T) * K);
    beta.resize(static_cast<size_t>(T) * K);
    inv_scale.resize(T);
    carry.resize(static_cast<size_t>(T) * K);
    transition_sums.resize(static_cast<size_t>(K) * K);
  }
};

// θ = [π, A row-major, B row-major] split, and the scratch tables sized for x.
template <class S>
struct ChainTables {
  const S* pi;
  const S* a;
  const S* b;
  int T;
  S* alpha;
  S* beta;
  S* carry;
};
template <class S>
ChainTables<S> PrepareChain(const std::vector<S>& theta, int K, const std::vector<int32_t>& x, ChainScratch<S>* w) {
  const int T = static_cast<int>(x.size());
  w->Fit(T, K);
  return {theta.data(), theta.data() + K, theta.data() + K + K * K, T, w->alpha.data(), w->beta.data(),
          w->carry.data()};
}

// Scaled forward-backward of one class's HMM on x (see the header), for sequences whose probability
// is too small for the unscaled recurrences below: returns log |p(x | θ)|, sets *sign to the sign of
// p, and adds the expected counts [γ_1, Σ ξ_t, Σ γ_t e_x_t] to counts[0, D).
// theta = [π, A row-major, B row-major]. The recurrences are rational in θ, so they stay smooth
// where a tracked Θ̃ has an entry a little below 0 (the scaling sums c_t keep their signs; only
// c_t = 0 is outside the map's domain). One reciprocal per position instead of a division per
// entry: in dual numbers a division costs twice a product.
template <class S>
S ScaledForwardBackwardCounts(const std::vector<S>& theta, int K, int V, const std::vector<int32_t>& x,
                              std::vector<S>* counts, ChainScratch<S>* w, double* sign) {
  *sign = 1;
  const auto [pi, a, b, T, alpha, beta, carry] = PrepareChain(theta, K, x, w);
  S log_p{}, in{}, sum{}, xi{};
  for (int t = 0; t < T; ++t) {
    SetZero(sum);
    for (int j = 0; j < K; ++j) {
      if (t == 0) {
        SetProduct(alpha[j], pi[j], b[j * V + x[0]]);
      } else {
        SetProduct(in, alpha[(t - 1) * K], a[j]);
        for (int i = 1; i < K; ++i) AddProduct(in, alpha[(t - 1) * K + i], a[i * K + j]);
        SetProduct(alpha[t * K + j], in, b[j * V + x[t]]);
      }
      Add(sum, alpha[t * K + j]);
    }
    SetReciprocal(w->inv_scale[t], sum);
    for (int j = 0; j < K; ++j) Multiply(alpha[t * K + j], w->inv_scale[t]);
    if (ValueOf(sum) < 0) *sign = -*sign;
    Add(log_p, LogAbs(sum));
  }
  for (int i = 0; i < K; ++i) {
    SetZero(beta[(T - 1) * K + i]);
    Add(beta[(T - 1) * K + i], 1.0);
  }
  for (int t = T - 1; t > 0; --t) {
    for (int j = 0; j < K; ++j) {
      SetProduct(carry[t * K + j], b[j * V + x[t]], beta[t * K + j]);
      Multiply(carry[t * K + j], w->inv_scale[t]);
    }
    for (int i = 0; i < K; ++i) {
      SetProduct(beta[(t - 1) * K + i], a[i * K], carry[t * K]);
      for (int j = 1; j < K; ++j) AddProduct(beta[(t - 1) * K + i], a[i * K + j], carry[t * K + j]);
    }
  }
  std::vector<S>& n = *counts;
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < K; ++i) {
      AddProduct(n[K + K * K + i * V + x[t]], alpha[t * K + i], beta[t * K + i]);
      if (t == 0) AddProduct(n[i], alpha[i], beta[i]);
      if (t + 1 == T) continue;
      for (int j = 0; j < K; ++j) {
        SetProduct(xi, alpha[t * K + i], a[i * K + j]);
        AddProduct(n[K + i * K + j], xi, carry[(t + 1) * K + j]);
      }
    }
  }
  return log_p;
}

// Below this |p(x | θ)| the unscaled recurrences hand over to the scaled ones: 1/p and the
// reciprocal's slope 1/p² must stay finite (1e-150² = 1e-300), and so must β = p(x_t+1.. | z_t)/p.
constexpr double kMinUnscaledProbability = 1e-150;

// The same counts without per-position scaling, for sequences short enough that p(x | θ) stays far
// from underflow (the Ji data's 5 and 8 symbols: p ~ 1e-8): α_t(j) = (Σ_i α_t-1(i) a_ij) b_j(x_t),
// p = Σ_j α_T(j), then β_T = 1/p and β_t-1(i) = Σ_j a_ij b_j(x_t) β_t(j), so α_t β_t is already the
// posterior: no reciprocal, rescaling or logarithm per position. The transition counts are summed
// as S_ij = Σ_t α_t(i) b_j(x_t+1) β_t+1(j) and multiplied by a_ij once. In dual numbers that is 18
// operations a position for K = 2 instead of 31. Returns false (and adds nothing) when |p| is below
// kMinUnscaledProbability or not finite; the caller then takes the scaled recurrences.
// KT > 0 fixes K at compile time (K = 2, the Ji experiments' classes: the loops over states unroll
// and the indices become constants, 5% of a map evaluation); KT = 0 takes k_runtime.
template <int KT, class S>
bool UnscaledForwardBackwardCounts(const std::vector<S>& theta, int k_runtime, int V, const std::vector<int32_t>& x,
                                   std::vector<S>* counts, ChainScratch<S>* w, double* sign, S* log_p) {
  const int K = KT > 0 ? KT : k_runtime;
  const auto [pi, a, b, T, alpha, beta, carry] = PrepareChain(theta, K, x, w);
  for (int j = 0; j < K; ++j) SetProduct(alpha[j], pi[j], b[j * V + x[0]]);
  for (int t = 1; t < T; ++t) {
    for (int j = 0; j < K; ++j) {
      S& out = alpha[t * K + j];
      SetProduct(out, alpha[(t - 1) * K], a[j]);
      for (int i = 1; i < K; ++i) AddProduct(out, alpha[(t - 1) * K + i], a[i * K + j]);
      Multiply(out, b[j * V + x[t]]);
    }
  }
  S p = alpha[(T - 1) * K];
  for (int j = 1; j < K; ++j) Add(p, alpha[(T - 1) * K + j]);
  if (!(std::abs(ValueOf(p)) >= kMinUnscaledProbability) || !std::isfinite(ValueOf(p))) return false;
  SetReciprocal(beta[(T - 1) * K], p);
  for (int i = 1; i < K; ++i) beta[(T - 1) * K + i] = beta[(T - 1) * K];
  for (int t = T - 1; t > 0; --t) {
    for (int j = 0; j < K; ++j) SetProduct(carry[t * K + j], b[j * V + x[t]], beta[t * K + j]);
    for (int i = 0; i < K; ++i) {
      SetProduct(beta[(t - 1) * K + i], a[i * K], carry[t * K]);
      for (int j = 1; j < K; ++j) AddProduct(beta[(t - 1) * K + i], a[i * K + j], carry[t * K + j]);
    }
  }
  std::vector<S>& n = *counts;
  S* sums = w->transition_sums.data();
  for (int k = 0; k < K * K; ++k) SetZero(sums[k]);
  for (int i = 0; i < K; ++i) AddProduct(n[i], alpha[i], beta[i]);
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < K; ++i) {
      AddProduct(n[K + K * K + i * V + x[t]], alpha[t * K + i], beta[t * K + i]);
      if (t + 1 == T) continue;
      for (int j = 0; j < K; ++j) AddProduct(sums[i * K + j], alpha[t * K + i], carry[(t + 1) * K + j]);
    }
  }
  for (int k = 0; k < K * K; ++k) AddProduct(n[K + k], a[k], sums[k]);
  *sign = ValueOf(p) < 0 ? -1 : 1;
  *log_p = LogAbs(p);
  return true;
}

// log |p(x | θ)| with the expected counts added to counts[0, D): unscaled where p allows it, else
// scaled.
template <class S>
S ForwardBackwardCounts(const std::vector<S>& theta, int K, int V, const std::vector<int32_t>& x,
                        std::vector<S>* counts, ChainScratch<S>* w, double* sign) {
  S log_p{};
  if (K == 2 ? UnscaledForwardBackwardCounts<2>(theta, K, V, x, counts, w, sign, &log_p)
             : UnscaledForwardBackwardCounts<0>(theta, K, V, x, counts, w, sign, &log_p))
    return log_p;
  return ScaledForwardBackwardCounts(theta, K, V, x, counts, w, sign);
}

// One class on one sequence: log p, g = ∂ log p/∂θ [D], n [D] and N = ∂n/∂θ restricted to the
// parameters the sequence reads (`read`): every other row and column of N is zero.
struct ClassStats {
  double log_p = 0;  // log |p(x | θ)|
  double sign = 1;   // of p(x | θ): -1 only off the simplex
  Eigen::VectorXd g;
  Eigen::VectorXd n;
  std::vector<int> read;  // indices into θ, ascending: π, A, then the emissions of x's symbols
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dn;  // [read x read], N's nonzero block
};

// The number of derivatives of the dual numbers that carry m of them.
int DualSize(size_t m) {
  for (int n : {16, 24, 32, 64})
    if (m <= static_cast<size_t>(n)) return n;
  return kMaxClassDerivatives;
}

// The parameters to differentiate on x: π, A and each state's emissions of the symbols in x (the
// forward-backward reads no others, so every other derivative is zero), in index order — or all D
// when that takes duals as wide anyway (the whole N is then one contiguous block). A sequence of 8
// symbols over 10 reads 16 or 22 of a 2-state class's 26 parameters: 16 or 24 lanes instead of 32.
// Every parameter, 0..D-1 (the list is kept when it has that size already).
void AllParameters(int D, std::vector<int>* read) {
  if (read->size() == static_cast<size_t>(D)) return;
  read->resize(D);
  std::iota(read->begin(), read->end(), 0);
}

void ParametersToDifferentiate(int K, int V, const std::vector<int32_t>& x, std::vector<int>* read) {
  // The symbols of x as a bit set: cheaper than a byte per symbol to clear, fill and walk.
  thread_local std::vector<uint64_t> seen;
  seen.assign((static_cast<size_t>(V) + 63) / 64, 0);
  for (int32_t v : x) seen[v >> 6] |= uint64_t{1} << (v & 63);
  int distinct = 0;
  for (uint64_t word : seen) distinct += std::popcount(word);
  const int D = K + K * K + K * V;
  if (DualSize(K + K * K + K * distinct) == DualSize(D)) return AllParameters(D, read);
  read->resize(K + K * K + K * distinct);
  int* out = read->data();
  for (int d = 0; d < K + K * K; ++d) *out++ = d;
  for (int i = 0; i < K; ++i)
    for (size_t w = 0; w < seen.size(); ++w)
      for (uint64_t bits = seen[w]; bits != 0; bits &= bits - 1)
        *out++ = K + K * K + i * V + static_cast<int>(w * 64) + std::countr_zero(bits);
}

// Seeds *v in place as the variable θ with derivative 1 in direction `index` (a FixedDual built on
// the stack and copied stalled the wide load of the copy on the narrow stores that built it: a
// sixth of the time of the dual pass).
template <int N, int B>
void SetVariable(FixedDual<N, B>& v, double theta, int index) {
  SetZero(v);
  v.value = theta;
  v.d[index] = 1;
}

// log p, g, n and N of one class's HMM on x by forward-mode differentiation in FixedDual<N, Bytes>,
// N >= s->read.size() (derivative i is with respect to θ[read[i]]), Bytes the native vector width
// of the ISA clone running it. Each derivative is computed apart from the others, so carrying only
// the read ones gives the same bits as carrying all. With all D read, the seeded variables are kept
// per class and rebuilt only when its θ changes (it is the same for every sequence of an
// evaluation); otherwise only the read ones are seeded, per sequence (the recurrences touch no
// others, neither in θ nor in the counts).
template <int N, int Bytes>
void EvaluateDual(const std::vector<double>& theta, int y, int K, int V, const std::vector<int32_t>& x,
                  ClassStats* s) {
  using D = FixedDual<N, Bytes>;
  thread_local std::vector<std::vector<D>> dual_of_class;
  thread_local std::vector<std::vector<double>> theta_of_class;
  thread_local std::vector<D> dual;
  thread_local std::vector<D> counts;
  thread_local ChainScratch<D> scratch;
  const int n = static_cast<int>(theta.size());
  const std::vector<int>& read = s->read;
  const int m = static_cast<int>(read.size());
  counts.resize(n);
  const std::vector<D>* variables = &dual;
  if (m == n) {
    if (dual_of_class.size() <= static_cast<size_t>(y)) {
      dual_of_class.resize(y + 1);
      theta_of_class.resize(y + 1);
    }
    if (theta_of_class[y] != theta) {
      dual_of_class[y].resize(n);
      for (int d = 0; d < n; ++d) SetVariable(dual_of_class[y][d], theta[d], d);
      theta_of_class[y] = theta;
    }
    variables = &dual_of_class[y];
    static_assert(std::is_trivially_copyable_v<D>);
    std::memset(static_cast<void*>(counts.data()), 0, counts.size() * sizeof(D));
  } else {
    dual.resize(n);
    for (int i = 0; i < m; ++i) {
      SetVariable(dual[read[i]], theta[read[i]], i);
      SetZero(counts[read[i]]);
    }
  }
  const D log_p = ForwardBackwardCounts<D>(*variables, K, V, x, &counts, &scratch, &s->sign);
  s->log_p = log_p.value;
  s->dn.resize(m, m);
  if (m == n) {
    s->g = Eigen::Map<const Eigen::VectorXd>(log_p.derivatives(), n);
    s->n.resize(n);
    for (int d = 0; d < n; ++d) {
      s->n[d] = counts[d].value;
      s->dn.row(d) = Eigen::Map<const Eigen::RowVectorXd>(counts[d].derivatives(), n);
    }
    return;
  }
  s->g.setZero(n);
  s->n.setZero(n);
  for (int i = 0; i < m; ++i) {
    s->g[read[i]] = log_p.d[i];
    s->n[read[i]] = counts[read[i]].value;
    s->dn.row(i) = Eigen::Map<const Eigen::RowVectorXd>(counts[read[i]].derivatives(), m);
  }
}

// EvaluateDual per dual size, compiled per instruction set (engine/base/isa.h) with duals of its
// register width: each derivative is computed apart from the others, so every variant gives the
// same bits while the wider ones do 4-8 derivatives per instruction instead of 2.
#define SEQFLOW_CLASSIFIER_DUAL_CLONES(N)                                                                  \
  template <int Bytes>                                                                                     \
  void EvaluateDual##N##Wide(const std::vector<double>& theta, int y, int K, int V,                        \
                             const std::vector<int32_t>& x, ClassStats* s) {                               \
    EvaluateDual<N, Bytes>(theta, y, K, V, x, s);                                                          \
  }                                                                                                        \
  SEQFLOW_ISA_WIDTH_CLONES(void, EvaluateDual##N##Isa,                                                     \
                           (const std::vector<double>& theta, int y, int K, int V,                         \
                            const std::vector<int32_t>& x, ClassStats* s),                                 \
                           EvaluateDual##N##Wide, (theta, y, K, V, x, s))
SEQFLOW_CLASSIFIER_DUAL_CLONES(16)
SEQFLOW_CLASSIFIER_DUAL_CLONES(24)
SEQFLOW_CLASSIFIER_DUAL_CLONES(32)
SEQFLOW_CLASSIFIER_DUAL_CLONES(64)
#undef SEQFLOW_CLASSIFIER_DUAL_CLONES

class SequenceEvaluator {
 public:
  SequenceEvaluator(const ClassifierLayout& layout, const HmmClassifier& model, bool jacobians)
      : K_(layout.num_states()),
        V_(layout.num_symbols()),
        D_(layout.block_size() - 1),
        jacobians_(jacobians),
        may_compact_(DualSize(K_ + K_ * K_ + K_) < DualSize(D_)) {
    const Eigen::VectorXd stacked = layout.Stack(model);
    for (int y = 0; y < layout.num_classes(); ++y) {
      const Eigen::VectorXd theta = stacked.segment(layout.initial_offset(y), D_);
      plain_.emplace_back(theta.data(), theta.data() + D_);
    }
  }

  // The parameters to differentiate on x (the same for every class), into *read.
  void SetParameters(const std::vector<int32_t>& x, std::vector<int>* read) const {
    if (!jacobians_) return;
    if (may_compact_)
      ParametersToDifferentiate(K_, V_, x, read);
    else
      AllParameters(D_, read);
  }

  // Fills *s (whose storage is reused when it has the sizes already); with Jacobians, s->read must
  // have been set by SetParameters.
  void Evaluate(int y, const std::vector<int32_t>& x, ClassStats* s) const {
    if (!jacobians_) {
      thread_local std::vector<double> counts;
      thread_local ChainScratch<double> scratch;
      counts.assign(D_, 0.0);
      s->log_p = ForwardBackwardCounts<double>(plain_[y], K_, V_, x, &counts, &scratch, &s->sign);
      s->n = Eigen::Map<const Eigen::VectorXd>(counts.data(), D_);
      return;
    }
    switch (DualSize(s->read.size())) {
      case 16:
        return EvaluateDual16Isa(plain_[y], y, K_, V_, x, s);
      case 24:
        return EvaluateDual24Isa(plain_[y], y, K_, V_, x, s);
      case 32:
        return EvaluateDual32Isa(plain_[y], y, K_, V_, x, s);
      case 64:
        return EvaluateDual64Isa(plain_[y], y, K_, V_, x, s);
      default:
        return EvaluateDual<kMaxClassDerivatives, 16>(plain_[y], y, K_, V_, x, s);
    }
  }

 private:
  int K_, V_, D_;
  bool jacobians_;
  bool may_compact_;  // a sequence with one distinct symbol would take narrower duals than all D
  std::vector<std::vector<double>> plain_;
};

// Sums over sequences in Θ-space (∂/∂Θ, before the normalisation's chain rule).
struct Partial {
  Eigen::VectorXd em;
  Eigen::MatrixXd jacobian;
  double log_likelihood = 0;

  void Reset(int P, bool jacobians) {
    em = Eigen::VectorXd::Zero(P);
    jacobian = jacobians ? Eigen::MatrixXd::Zero(P, P) : Eigen::MatrixXd();
    log_likelihood = 0;
  }
  void Add(const Partial& o) {
    em += o.em;
    if (jacobian.size() > 0) jacobian += o.jacobian;
    log_likelihood += o.log_likelihood;
  }
};

void AddLabeled(const ClassifierLayout& layout, const SequenceEvaluator& eval, const HmmClassifier& model,
                const std::vector<int32_t>& x, int y, Partial* out) {
  thread_local ClassStats s;
  eval.SetParameters(x, &s.read);
  eval.Evaluate(y, x, &s);
  const int p = layout.prior_index(y);
  const int D = layout.block_size() - 1;
  out->em[p] += 1;
  out->em.segment(p + 1, D) += s.n;
  if (out->jacobian.size() > 0 && s.read.size() == static_cast<size_t>(D)) {
    out->jacobian.block(p + 1, p + 1, D, D) += s.dn;
  } else if (out->jacobian.size() > 0) {
    AddScaledBlock(&out->jacobian(p + 1, p + 1), 1, out->jacobian.outerStride(), s.dn.data(), s.read, 1.0);
  }
  out->log_likelihood += Log(model.prior[y]) + s.log_p;
}

// Per class, Σ_j r_jy N_jy over a shard's sequences in order, row-major (rows of ClassStats::dn
// add contiguously, where a block of the column-major Jacobian strides), each row padded to whole
// 64-byte chunks and aligned to them (scaled_blocks.h: a chunk across two cache lines cost a
// third of the adding).
class WeightedCountDerivatives {
 public:
  void Reset(int classes, int D) {
    D_ = D;
    stride_ = (D + 7) / 8 * 8;
    sums_.resize(classes);
    for (auto& sum : sums_) sum.assign(static_cast<size_t>(D) * stride_ / 8, Chunk{});
  }
  void Add(int y, double r, const ClassStats& s) { AddScaledRows(sums_[y].data()->v, stride_, D_, s.dn.data(), s.read, r); }
  // Adds each class's sum into its block of the shard's Jacobian (zero there until now, so the
  // sums are those of adding sequence by sequence into the block).
  void AddTo(const ClassifierLayout& layout, Eigen::MatrixXd* jacobian) const {
    using Rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    for (size_t y = 0; y < sums_.size(); ++y) {
      const Eigen::Map<const Rows, 0, Eigen::OuterStride<>> sum(sums_[y].data()->v, D_, D_, Eigen::OuterStride<>(stride_));
      const int p = layout.prior_index(static_cast<int>(y));
      jacobian->block(p + 1, p + 1, D_, D_) += sum;
    }
  }

 private:
  struct alignas(64) Chunk {
    double v[8] = {};
  };
  int D_ = 0;
  int stride_ = 0;
  std::vector<std::vector<Chunk>> sums_;  // per class [D x stride_]
};

// The posterior coupling's part of the EM_1 Jacobian of a shard,
//   Σ_j Σ_y,y' r_jy (δ_yy' − r_jy') [1, n_jy] [1/w_y', g_jy']ᵀ
//   = Σ_y U_y ((1 − r_y) H_y)ᵀ (block y, y) − Σ_y≠y' U_y (R H)_y'ᵀ (block y, y'),
// with per class the columns U_y = r_jy [1, n_jy], H_y = [1/w_y, g_jy] and (R H)_y = r_jy H_y over
// the shard's sequences j: C² matrix products per shard instead of C² rank-1 updates per sequence
// (those were a fifth of an evaluation; one product over all sequences instead of per shard was
// measured slower). 1 − r_jy is summed from the other classes' posteriors, not subtracted from 1,
// so a posterior near 1 keeps its complement's digits.
class CouplingColumns {
 public:
  void Reset(int classes, int rows, int capacity) {
    u_.resize(classes);
    complement_h_.resize(classes);
    rh_.resize(classes);
    for (int y = 0; y < classes; ++y) {
      u_[y].resize(rows, capacity);
      complement_h_[y].resize(rows, capacity);
      rh_[y].resize(rows, capacity);
    }
    used_ = 0;
  }

  // r [C]: the sequence's posteriors; complement [C]: 1 − r_y as the sum of the others.
  void Append(const std::vector<ClassStats>& stats, const Eigen::VectorXd& r, const Eigen::VectorXd& complement,
              const HmmClassifier& model) {
    for (size_t y = 0; y < stats.size(); ++y) {
      u_[y](0, used_) = r[y];
      u_[y].col(used_).tail(stats[y].n.size()) = r[y] * stats[y].n;
      rh_[y](0, used_) = r[y] / model.prior[y];
      rh_[y].col(used_).tail(stats[y].g.size()) = r[y] * stats[y].g;
      complement_h_[y](0, used_) = complement[y] / model.prior[y];
      complement_h_[y].col(used_).tail(stats[y].g.size()) = complement[y] * stats[y].g;
    }
    ++used_;
  }

  void AddTo(const ClassifierLayout& layout, Eigen::MatrixXd* jacobian) const {
    const int C = static_cast<int>(u_.size());
    const Eigen::Index rows = C > 0 ? u_[0].rows() : 0;
    for (int y = 0; y < C; ++y) {
      const int p = layout.prior_index(y);
      const auto u = u_[y].leftCols(used_);
      for (int y2 = 0; y2 < C; ++y2) {
        auto block = jacobian->block(p, layout.prior_index(y2), rows, rows);
        if (y2 == y)
          block.noalias() += u * complement_h_[y].leftCols(used_).transpose();
        else
          block.noalias() -= u * rh_[y2].leftCols(used_).transpose();
      }
    }
  }

 private:
  std::vector<Eigen::MatrixXd> u_, complement_h_, rh_;
  Eigen::Index used_ = 0;
};

Status AddUnlabeled(const ClassifierLayout& layout, const SequenceEvaluator& eval, const HmmClassifier& model,
                    const std::vector<int32_t>& x, size_t index, Partial* out, CouplingColumns* coupling,
                    WeightedCountDerivatives* weighted, Eigen::MatrixXd* posteriors) {
  const int C = layout.num_classes();
  const int D = layout.block_size() - 1;
  // Per-thread buffers: allocating these per sequence was a twentieth of an evaluation.
  thread_local std::vector<ClassStats> stats;
  thread_local Eigen::VectorXd score, e, r, complement;
  stats.resize(C);
  score.resize(C);
  eval.SetParameters(x, &stats[0].read);
  for (int y = 0; y < C; ++y) {
    if (y > 0) stats[y].read = stats[0].read;
    eval.Evaluate(y, x, &stats[y]);
    score[y] = Log(model.prior[y]) + stats[y].log_p;
  }
  const double top = score.maxCoeff();
  if (!std::isfinite(top))
    return Status::Numerical("classifier EM: unlabeled sequence " + std::to_string(index + 1) +
                             " has probability 0 (or a non-finite likelihood) under every class");
  e = (score.array() - top).unaryExpr(&Exp);
  for (int y = 0; y < C; ++y) e[y] *= stats[y].sign;
  if (!(e.sum() > 0))
    return Status::Numerical("classifier EM: unlabeled sequence " + std::to_string(index + 1) +
                             " has a non-positive likelihood (parameters off the simplex)");
  const double total = e.sum();
  r = e / total;
  posteriors->row(static_cast<Eigen::Index>(index)) = r.transpose();
  out->log_likelihood += top + Log(total);
  for (int y = 0; y < C; ++y) {
    const int p = layout.prior_index(y);
    out->em[p] += r[y];
    out->em.segment(p + 1, D) += r[y] * stats[y].n;
  }
  if (out->jacobian.size() == 0) return Status::Ok();
  complement.resize(C);
  for (int y = 0; y < C; ++y) {
    double others = 0;
    for (int y2 = 0; y2 < C; ++y2)
      if (y2 != y) others += e[y2];
    complement[y] = others / total;
  }
  coupling->Append(stats, r, complement, model);
  for (int y = 0; y < C; ++y) weighted->Add(y, r[y], stats[y]);
  return Status::Ok();
}

// J_Θ̃ = J_Θ ∂Θ/∂Θ̃, ∂θ_a/∂Θ̃_b = (δ_ab − θ_a) / S per multinomial of sum S.
void ChainNormalization(const ClassifierLayout& layout, const Eigen::VectorXd& theta_tilde, Eigen::MatrixXd* j) {
  auto apply = [&](int offset, int size) {
    const double sum = theta_tilde.segment(offset, size).sum();
    const Eigen::VectorXd theta = theta_tilde.segment(offset, size) / sum;
    const Eigen::VectorXd jt = j->middleCols(offset, size) * theta;
    j->middleCols(offset, size) = (j->middleCols(offset, size) - jt * Eigen::RowVectorXd::Ones(size)) / sum;
  };
  const int K = layout.num_states(), V = layout.num_symbols();
  // The priors are one multinomial over classes, spread one entry per block.
  Eigen::MatrixXd prior_cols(j->rows(), layout.num_classes());
  Eigen::VectorXd w(layout.num_classes());
  for (int y = 0; y < layout.num_classes(); ++y) {
    prior_cols.col(y) = j->col(layout.prior_index(y));
    w[y] = theta_tilde[layout.prior_index(y)];
  }
  const double w_sum = w.sum();
  const Eigen::VectorXd jw = prior_cols * (w / w_sum);
  for (int y = 0; y < layout.num_classes(); ++y) j->col(layout.prior_index(y)) = (prior_cols.col(y) - jw) / w_sum;
  for (int y = 0; y < layout.num_classes(); ++y) {
    apply(layout.initial_offset(y), K);
    for (int i = 0; i < K; ++i) {
      apply(layout.transition_offset(y) + i * K, K);
      apply(layout.emission_offset(y) + i * V, V);
    }
  }
}

}  // namespace

Result<ClassifierEmValue> EvaluateClassifierEm(const ClassifierLayout& layout, const Eigen::VectorXd& theta_tilde,
                                               const ClassifierData& data, const ClassifierEmOptions& options) {
  const int P = layout.num_params();
  if (options.jacobians && layout.block_size() - 1 > kMaxClassDerivatives)
    return Status::Invalid("classifier EM: K + K² + K V = " + std::to_string(layout.block_size() - 1) +
                           " exceeds the " + std::to_string(kMaxClassDerivatives) + " derivatives of the Jacobian");
  SEQFLOW_ASSIGN_OR_RETURN(HmmClassifier model, layout.Normalize(theta_tilde));
  const SequenceEvaluator eval(layout, model, options.jacobians);
  ClassifierEmValue out;
  constexpr size_t kShard = 32;
  const size_t slots = OrderedSlots(options.threads);

  // Labeled: EM_0 = (Σ [1, n] + ε) / L.
  {
    Partial total;
    total.Reset(P, options.jacobians);
    std::vector<Partial> slot(slots);
    ParallelShardsOrdered(
        data.labeled.size(), kShard, options.threads, slots,
        [&](size_t, size_t begin, size_t end, size_t s) {
          slot[s].Reset(P, options.jacobians);
          for (size_t i = begin; i < end; ++i) AddLabeled(layout, eval, model, data.labeled[i], data.labels[i], &slot[s]);
        },
        [&](size_t, size_t s) { total.Add(slot[s]); });
    const double L = static_cast<double>(data.labeled.size());
    out.em0 = (total.em.array() + options.smoothing).matrix() / L;
    out.labeled_log_likelihood = total.log_likelihood / L;
    if (options.jacobians) {
      out.em0_jacobian = total.jacobian / L;
      ChainNormalization(layout, theta_tilde, &out.em0_jacobian);
    }
    if (!std::isfinite(out.labeled_log_likelihood))
      return Status::Numerical("classifier EM: a labeled sequence has probability 0 under its class");
  }
  if (!options.need_em1) return out;

  Partial total;
  total.Reset(P, options.jacobians);
  std::vector<Partial> slot(slots);
  std::vector<Status> failures(slots);
  Status failure;
  out.unlabeled_posteriors.resize(static_cast<Eigen::Index>(data.unlabeled.size()), layout.num_classes());
  ParallelShardsOrdered(
      data.unlabeled.size(), kShard, options.threads, slots,
      [&](size_t, size_t begin, size_t end, size_t s) {
        slot[s].Reset(P, options.jacobians);
        failures[s] = Status::Ok();
        thread_local CouplingColumns coupling;
        thread_local WeightedCountDerivatives weighted;
        if (options.jacobians) {
          coupling.Reset(layout.num_classes(), layout.block_size(), static_cast<int>(kShard));
          weighted.Reset(layout.num_classes(), layout.block_size() - 1);
        }
        for (size_t j = begin; j < end && failures[s].ok(); ++j)
          failures[s] = AddUnlabeled(layout, eval, model, data.unlabeled[j], j, &slot[s], &coupling, &weighted,
                                     &out.unlabeled_posteriors);
        if (options.jacobians && failures[s].ok()) {
          weighted.AddTo(layout, &slot[s].jacobian);
          coupling.AddTo(layout, &slot[s].jacobian);
        }
      },
      [&](size_t, size_t s) {
        if (failure.ok() && !failures[s].ok()) failure = failures[s];
        total.Add(slot[s]);
      });
  SEQFLOW_RETURN_IF_ERROR(failure);
  const double U = static_cast<double>(data.unlabeled.size());
  out.em1 = (total.em.array() + options.smoothing).matrix() / U;
  out.unlabeled_log_likelihood = total.log_likelihood / U;
  if (options.jacobians) {
    out.em1_jacobian = total.jacobian / U;
    ChainNormalization(layout, theta_tilde, &out.em1_jacobian);
  }
  if (!out.em1.allFinite()) return Status::Numerical("classifier EM: EM_1 is not finite");
  return out;
}

}  // namespace seqflow
