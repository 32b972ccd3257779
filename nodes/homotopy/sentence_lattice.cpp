#include "nodes/homotopy/sentence_lattice.h"

#include <cmath>
#include <limits>

namespace seqflow {
namespace {

// W_t = E_t ⊙ β̂_t / c_t for t >= 1 (column 0 unused), shared by counts and tangents.
void FillW(const HmmParams& hmm, std::span<const int32_t> x, const SentenceLattice& lat, Eigen::MatrixXd* w) {
  const int T = lat.length();
  w->resize(hmm.num_states(), T);
  w->col(0).setZero();
  for (int t = 1; t < T; ++t) {
    w->col(t) = hmm.emission.col(x[t]).cwiseProduct(lat.beta.col(t)) / lat.scale[t];
  }
}

}  // namespace

bool SentenceLattice::alive() const { return std::isfinite(log_likelihood); }

void BuildLattice(const HmmParams& hmm, std::span<const int32_t> x, SentenceLattice* lat) {
  const int K = hmm.num_states();
  const int T = static_cast<int>(x.size());
  lat->alpha.resize(K, T);
  lat->beta.resize(K, T);
  lat->scale.resize(T);
  lat->log_likelihood = 0;
  Eigen::VectorXd v = hmm.initial.cwiseProduct(hmm.emission.col(x[0]));
  for (int t = 0;; ++t) {
    const double c = v.sum();
    if (!(c > 0)) {
      lat->log_likelihood = -std::numeric_limits<double>::infinity();
      return;
    }
    lat->scale[t] = c;
    lat->alpha.col(t) = v / c;
    lat->log_likelihood += std::log(c);
    if (t + 1 == T) break;
    v = (hmm.transition.transpose() * lat->alpha.col(t)).cwiseProduct(hmm.emission.col(x[t + 1]));
  }
  lat->beta.col(T - 1).setOnes();
  for (int t = T - 2; t >= 0; --t) {
    lat->beta.col(t) =
        hmm.transition * hmm.emission.col(x[t + 1]).cwiseProduct(lat->beta.col(t + 1)) / lat->scale[t + 1];
  }
}

void AddLatticeCounts(const HmmParams& hmm, std::span<const int32_t> x, const SentenceLattice& lat,
                      ExpectedCounts* counts) {
  const int T = static_cast<int>(x.size());
  counts->tokens += T;
  counts->log_likelihood += lat.log_likelihood;
  if (!lat.alive()) return;
  counts->initial += lat.alpha.col(0).cwiseProduct(lat.beta.col(0));
  for (int t = 0; t < T; ++t) counts->emission.col(x[t]) += lat.alpha.col(t).cwiseProduct(lat.beta.col(t));
  if (T < 2) return;
  Eigen::MatrixXd w;
  FillW(hmm, x, lat, &w);
  const Eigen::MatrixXd xi_over_a = lat.alpha.leftCols(T - 1) * w.rightCols(T - 1).transpose();
  counts->transition += hmm.transition.cwiseProduct(xi_over_a);
}

double LatticeEntropy(const SentenceLattice& lat) {
  if (!lat.alive()) return 0;
  double h = 0;
  for (int t = 0; t < lat.length(); ++t) {
    for (int j = 0; j < lat.alpha.rows(); ++j) {
      const double g = lat.alpha(j, t) * lat.beta(j, t);
      if (g > 0) h -= g * std::log(g);
    }
  }
  return h;
}

void AddCountTangent(const HmmParams& hmm, std::span<const int32_t> x, const SentenceLattice& lat,
                     const LogDirection& u, TangentWork* work, ExpectedCounts* d) {
  if (!lat.alive()) return;
  const int K = hmm.num_states();
  const int T = lat.length();
  const Eigen::MatrixXd& A = hmm.transition;
  const Eigen::MatrixXd& B = hmm.emission;
  // A ⊙ U_A: the derivative of A along the direction (empty when transitions are frozen).
  const Eigen::MatrixXd dA = u.transition_free ? Eigen::MatrixXd(A.cwiseProduct(u.transition)) : Eigen::MatrixXd();
  Eigen::MatrixXd& ad = work->alpha_dot;
  Eigen::MatrixXd& bd = work->beta_dot;
  ad.resize(K, T);
  bd.resize(K, T);
  // Forward tangent.
  ad.col(0) = lat.alpha.col(0).cwiseProduct(u.initial + u.emission.col(x[0]));
  for (int t = 1; t < T; ++t) {
    Eigen::VectorXd pre = A.transpose() * ad.col(t - 1);
    if (u.transition_free) pre.noalias() += dA.transpose() * lat.alpha.col(t - 1);
    ad.col(t) = pre.cwiseProduct(B.col(x[t])) / lat.scale[t] + lat.alpha.col(t).cwiseProduct(u.emission.col(x[t]));
  }
  const double zeta = ad.col(T - 1).sum();
  // Backward tangent.
  bd.col(T - 1).setZero();
  for (int t = T - 2; t >= 0; --t) {
    const auto e = B.col(x[t + 1]);
    const Eigen::VectorXd q = e.cwiseProduct(lat.beta.col(t + 1));
    Eigen::VectorXd pre = A * (q.cwiseProduct(u.emission.col(x[t + 1])) + e.cwiseProduct(bd.col(t + 1)));
    if (u.transition_free) pre.noalias() += dA * q;
    bd.col(t) = pre / lat.scale[t + 1];
  }
  // Node posteriors: dγ_t to the initial and emission outputs.
  for (int t = 0; t < T; ++t) {
    const Eigen::VectorXd gamma = lat.alpha.col(t).cwiseProduct(lat.beta.col(t));
    const Eigen::VectorXd dgamma =
        ad.col(t).cwiseProduct(lat.beta.col(t)) + lat.alpha.col(t).cwiseProduct(bd.col(t)) - zeta * gamma;
    if (t == 0) d->initial += dgamma;
    d->emission.col(x[t]) += dgamma;
  }
  if (!u.transition_free || T < 2) return;
  // Edge posteriors: Σ_t dξ_t = A ⊙ [Y + (U_A − ζ) ⊙ X].
  FillW(hmm, x, lat, &work->w);
  work->w_dot.resize(K, T);
  for (int t = 1; t < T; ++t) {
    work->w_dot.col(t) =
        u.emission.col(x[t]).cwiseProduct(work->w.col(t)) + B.col(x[t]).cwiseProduct(bd.col(t)) / lat.scale[t];
  }
  const auto w_next = work->w.rightCols(T - 1).transpose();
  const Eigen::MatrixXd X = lat.alpha.leftCols(T - 1) * w_next;
  Eigen::MatrixXd Y = ad.leftCols(T - 1) * w_next;
  Y.noalias() += lat.alpha.leftCols(T - 1) * work->w_dot.rightCols(T - 1).transpose();
  d->transition += A.cwiseProduct(Y + (u.transition.array() - zeta).matrix().cwiseProduct(X));
}

}  // namespace seqflow
