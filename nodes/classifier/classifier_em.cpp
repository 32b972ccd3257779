#include "nodes/classifier/classifier_em.h"

#include <cmath>
#include <string>
#include <unsupported/Eigen/AutoDiff>

#include "nodes/common/parallel.h"
#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {

// Dual numbers carrying up to Cap derivatives on the stack; the evaluator picks the smallest Cap
// that holds D, since every operation copies the whole derivative storage.
template <int Cap>
using Dual = Eigen::AutoDiffScalar<Eigen::Matrix<double, Eigen::Dynamic, 1, 0, Cap, 1>>;

double ValueOf(double v) { return v; }
template <int Cap>
double ValueOf(const Dual<Cap>& v) {
  return v.value();
}

// log |v| by portable_math.h (Eigen's AutoDiff log would call libm); d log|v| = dv / v.
double LogAbs(double v) { return Log(std::abs(v)); }
template <int Cap>
Dual<Cap> LogAbs(const Dual<Cap>& v) {
  return Dual<Cap>(Log(std::abs(v.value())), v.derivatives() / v.value());
}

// Scaled forward-backward of one class's HMM on x (see the header): returns log |p(x | θ)|, sets
// *sign to the sign of p, and adds the expected counts [γ_1, Σ ξ_t, Σ γ_t e_x_t] to counts[0, D).
// theta = [π, A row-major, B row-major]; `one` is 1 in S (a dual with zero derivatives). The
// recurrences are rational in θ, so they stay smooth where a tracked Θ̃ has an entry a little
// below 0 (the scaling sums c_t keep their signs; only c_t = 0 is outside the map's domain).
template <class S>
S ForwardBackwardCounts(const std::vector<S>& theta, int K, int V, const std::vector<int32_t>& x, const S& one,
                        std::vector<S>* counts, std::vector<S>* alpha, std::vector<S>* beta, std::vector<S>* scale,
                        double* sign) {
  *sign = 1;
  const S* pi = theta.data();
  const S* a = pi + K;
  const S* b = a + K * K;
  const int T = static_cast<int>(x.size());
  alpha->assign(static_cast<size_t>(T) * K, one);
  beta->assign(static_cast<size_t>(T) * K, one);
  scale->assign(T, one);
  S log_p = 0 * one;
  for (int t = 0; t < T; ++t) {
    S sum = 0 * one;
    for (int j = 0; j < K; ++j) {
      S in = 0 * one;
      if (t == 0) {
        in = pi[j];
      } else {
        for (int i = 0; i < K; ++i) in += (*alpha)[(t - 1) * K + i] * a[i * K + j];
      }
      (*alpha)[t * K + j] = in * b[j * V + x[t]];
      sum += (*alpha)[t * K + j];
    }
    for (int j = 0; j < K; ++j) (*alpha)[t * K + j] /= sum;
    (*scale)[t] = sum;
    if (ValueOf(sum) < 0) *sign = -*sign;
    log_p += LogAbs(sum);
  }
  for (int t = T - 2; t >= 0; --t) {
    for (int i = 0; i < K; ++i) {
      S acc = 0 * one;
      for (int j = 0; j < K; ++j) acc += a[i * K + j] * b[j * V + x[t + 1]] * (*beta)[(t + 1) * K + j];
      (*beta)[t * K + i] = acc / (*scale)[t + 1];
    }
  }
  std::vector<S>& n = *counts;
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < K; ++i) {
      const S gamma = (*alpha)[t * K + i] * (*beta)[t * K + i];
      if (t == 0) n[i] += gamma;
      n[K + K * K + i * V + x[t]] += gamma;
      if (t + 1 == T) continue;
      for (int j = 0; j < K; ++j)
        n[K + i * K + j] +=
            (*alpha)[t * K + i] * a[i * K + j] * b[j * V + x[t + 1]] * (*beta)[(t + 1) * K + j] / (*scale)[t + 1];
    }
  }
  return log_p;
}

// One class on one sequence: log p, g = ∂ log p/∂θ [D], n [D] and N = ∂n/∂θ [D x D].
struct ClassStats {
  double log_p = 0;  // log |p(x | θ)|
  double sign = 1;   // of p(x | θ): -1 only off the simplex
  Eigen::VectorXd g;
  Eigen::VectorXd n;
  Eigen::MatrixXd dn;
};

// log p, g, n and N of one class's HMM on x by forward-mode differentiation in Dual<Cap>.
// The scratch vectors live per thread and keep their capacity: allocation was a quarter of the
// time of a Jacobian evaluation (perf, BM_EmJacobian).
template <int Cap>
void EvaluateDual(const std::vector<double>& theta, int K, int V, const std::vector<int32_t>& x, ClassStats* s) {
  using D = Dual<Cap>;
  thread_local std::vector<D> dual, counts, alpha, beta, scale;
  const int n = static_cast<int>(theta.size());
  dual.resize(n);
  for (int d = 0; d < n; ++d) dual[d] = D(theta[d], n, d);
  const D one(1.0, D::DerType::Zero(n));
  counts.assign(n, 0 * one);
  const D log_p = ForwardBackwardCounts<D>(dual, K, V, x, one, &counts, &alpha, &beta, &scale, &s->sign);
  s->log_p = log_p.value();
  s->g = log_p.derivatives();
  s->n.resize(n);
  s->dn.resize(n, n);
  for (int d = 0; d < n; ++d) {
    s->n[d] = counts[d].value();
    s->dn.row(d) = counts[d].derivatives().transpose();
  }
}

class SequenceEvaluator {
 public:
  SequenceEvaluator(const ClassifierLayout& layout, const HmmClassifier& model, bool jacobians)
      : K_(layout.num_states()), V_(layout.num_symbols()), D_(layout.block_size() - 1), jacobians_(jacobians) {
    const Eigen::VectorXd stacked = layout.Stack(model);
    for (int y = 0; y < layout.num_classes(); ++y) {
      const Eigen::VectorXd theta = stacked.segment(layout.initial_offset(y), D_);
      plain_.emplace_back(theta.data(), theta.data() + D_);
    }
  }

  // Fills *s (whose storage is reused when it has the sizes already).
  void Evaluate(int y, const std::vector<int32_t>& x, ClassStats* s) const {
    if (!jacobians_) {
      thread_local std::vector<double> counts, alpha, beta, scale;
      counts.assign(D_, 0.0);
      s->log_p = ForwardBackwardCounts<double>(plain_[y], K_, V_, x, 1.0, &counts, &alpha, &beta, &scale, &s->sign);
      s->n = Eigen::Map<const Eigen::VectorXd>(counts.data(), D_);
    } else if (D_ <= 32) {
      EvaluateDual<32>(plain_[y], K_, V_, x, s);
    } else if (D_ <= 64) {
      EvaluateDual<64>(plain_[y], K_, V_, x, s);
    } else {
      EvaluateDual<kMaxClassDerivatives>(plain_[y], K_, V_, x, s);
    }
  }

 private:
  int K_, V_, D_;
  bool jacobians_;
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
  eval.Evaluate(y, x, &s);
  const int p = layout.prior_index(y);
  const int D = layout.block_size() - 1;
  out->em[p] += 1;
  out->em.segment(p + 1, D) += s.n;
  if (out->jacobian.size() > 0) out->jacobian.block(p + 1, p + 1, D, D) += s.dn;
  out->log_likelihood += Log(model.prior[y]) + s.log_p;
}

Status AddUnlabeled(const ClassifierLayout& layout, const SequenceEvaluator& eval, const HmmClassifier& model,
                    const std::vector<int32_t>& x, size_t index, Partial* out, Eigen::MatrixXd* posteriors) {
  const int C = layout.num_classes();
  const int D = layout.block_size() - 1;
  thread_local std::vector<ClassStats> stats;
  stats.resize(C);
  Eigen::VectorXd score(C);
  for (int y = 0; y < C; ++y) {
    eval.Evaluate(y, x, &stats[y]);
    score[y] = Log(model.prior[y]) + stats[y].log_p;
  }
  const double top = score.maxCoeff();
  if (!std::isfinite(top))
    return Status::Numerical("classifier EM: unlabeled sequence " + std::to_string(index + 1) +
                             " has probability 0 (or a non-finite likelihood) under every class");
  Eigen::VectorXd e = (score.array() - top).unaryExpr(&Exp);
  for (int y = 0; y < C; ++y) e[y] *= stats[y].sign;
  if (!(e.sum() > 0))
    return Status::Numerical("classifier EM: unlabeled sequence " + std::to_string(index + 1) +
                             " has a non-positive likelihood (parameters off the simplex)");
  const Eigen::VectorXd r = e / e.sum();
  posteriors->row(static_cast<Eigen::Index>(index)) = r.transpose();
  out->log_likelihood += top + Log(e.sum());
  for (int y = 0; y < C; ++y) {
    const int p = layout.prior_index(y);
    out->em[p] += r[y];
    out->em.segment(p + 1, D) += r[y] * stats[y].n;
  }
  if (out->jacobian.size() == 0) return Status::Ok();
  for (int y = 0; y < C; ++y) {
    const int p = layout.prior_index(y);
    Eigen::VectorXd rows(D + 1);
    rows << 1.0, stats[y].n;  // [1, n^y]: the rows r_jy multiplies
    for (int y2 = 0; y2 < C; ++y2) {
      const int p2 = layout.prior_index(y2);
      const double coef = r[y] * ((y == y2 ? 1.0 : 0.0) - r[y2]);
      out->jacobian.block(p, p2, D + 1, 1) += rows * (coef / model.prior[y2]);
      out->jacobian.block(p, p2 + 1, D + 1, D) += rows * (coef * stats[y2].g).transpose();
    }
    out->jacobian.block(p + 1, p + 1, D, D) += r[y] * stats[y].dn;
  }
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
        for (size_t j = begin; j < end && failures[s].ok(); ++j)
          failures[s] = AddUnlabeled(layout, eval, model, data.unlabeled[j], j, &slot[s], &out.unlabeled_posteriors);
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
