#include "nodes/moments/simplex_qp.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace seqflow {

namespace {
constexpr int kCheckEvery = 4;
}  // namespace

void ProjectOntoSimplex(const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> x,
                        Eigen::Ref<Eigen::VectorXd> scratch) {
  const Eigen::Index k = u.size();
  scratch = u;
  std::sort(scratch.data(), scratch.data() + k, std::greater<double>());
  // θ = (Σ_{i<=ρ} s_i - 1) / ρ for the largest ρ with s_ρ > θ_ρ; sorted descending, the test
  // holds for a prefix, so the last index passing it is ρ.
  double prefix = 0, theta = 0;
  for (Eigen::Index j = 0; j < k; ++j) {
    prefix += scratch[j];
    const double candidate = (prefix - 1) / static_cast<double>(j + 1);
    if (scratch[j] > candidate) theta = candidate;
  }
  x = (u.array() - theta).max(0.0);
}

SimplexQp::SimplexQp(Eigen::MatrixXd a, double lipschitz, SimplexQpOptions options)
    : a_(std::move(a)), lipschitz_(lipschitz), options_(options) {
  const Eigen::Index k = a_.rows();
  for (Eigen::VectorXd* v : {&y_, &previous_, &gradient_, &step_, &projected_, &sort_}) v->resize(k);
}

Result<SimplexQp> SimplexQp::Create(const Eigen::MatrixXd& A, SimplexQpOptions options) {
  if (A.rows() < 1 || A.rows() != A.cols())
    return Status::Invalid("simplex QP: A must be square with K >= 1, got " + std::to_string(A.rows()) + " x " +
                           std::to_string(A.cols()));
  if (!A.allFinite()) return Status::Numerical("simplex QP: A has a non-finite entry");
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(A, Eigen::EigenvaluesOnly);
  const double lipschitz = eigen.eigenvalues().maxCoeff();
  if (!(lipschitz > 0)) return Status::Numerical("simplex QP: A has no positive eigenvalue (A = 0?)");
  return SimplexQp(A, lipschitz, options);
}

Result<SimplexQpStats> SimplexQp::Solve(const Eigen::Ref<const Eigen::VectorXd>& beta,
                                        Eigen::Ref<Eigen::VectorXd> x) const {
  if (beta.size() != a_.rows() || x.size() != a_.rows())
    return Status::Invalid("simplex QP: beta and x must have K = " + std::to_string(a_.rows()) + " entries");
  if (!beta.allFinite()) return Status::Numerical("simplex QP: beta has a non-finite entry");
  const double inverse_l = 1 / lipschitz_;
  if (!x.allFinite()) x.setConstant(1.0 / static_cast<double>(x.size()));
  step_ = x;
  ProjectOntoSimplex(step_, x, sort_);
  SimplexQpStats stats;
  y_ = x;
  double t = 1;
  auto residual_at_x = [&] {
    gradient_.noalias() = a_ * x;
    gradient_ -= beta;
    step_ = x - inverse_l * gradient_;
    ProjectOntoSimplex(step_, projected_, sort_);
    return (projected_ - x).cwiseAbs().maxCoeff();
  };
  for (stats.iterations = 0; stats.iterations < options_.max_iter; ++stats.iterations) {
    // The residual costs as much as a FISTA step: test it every kCheckEvery iterations.
    if (stats.iterations % kCheckEvery == 0) {
      stats.residual = residual_at_x();
      if (!std::isfinite(stats.residual)) return Status::Numerical("simplex QP: iterates became non-finite");
      if (stats.residual <= options_.tol) {
        stats.converged = true;
        return stats;
      }
    }
    // FISTA step from the extrapolated point y.
    previous_ = x;
    gradient_.noalias() = a_ * y_;
    gradient_ -= beta;
    step_ = y_ - inverse_l * gradient_;
    ProjectOntoSimplex(step_, x, sort_);
    // Restart the momentum when it points uphill (gradient scheme of O'Donoghue & Candès).
    if ((y_ - x).dot(x - previous_) > 0) {
      t = 1;
      y_ = x;
      continue;
    }
    const double t_next = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
    y_ = x + ((t - 1) / t_next) * (x - previous_);
    t = t_next;
  }
  stats.residual = residual_at_x();
  if (!std::isfinite(stats.residual)) return Status::Numerical("simplex QP: iterates became non-finite");
  stats.converged = stats.residual <= options_.tol;
  return stats;
}

}  // namespace seqflow
