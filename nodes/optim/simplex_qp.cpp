#include "nodes/optim/simplex_qp.h"

#include <cmath>
#include <utility>

namespace seqflow {

namespace {
constexpr int kCheckEvery = 4;
}  // namespace

void ProjectOntoSimplex(const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> x) {
  // Michelot (1986): θ = (Σ_S u_i − 1) / |S| over a support S, starting from S = all. Each θ is a
  // lower bound of the answer θ*, so {u_i > θ} still contains the true support; shrinking S to it
  // raises θ, and once S stops shrinking S = {u_i > θ} with θ = θ_S: the KKT conditions of the
  // projection. No sort: a few passes over K entries (K = 12: two or three), where the sort was
  // a third of an anchor HMM's QPs.
  const Eigen::Index k = u.size();
  Eigen::Index support = k;
  double theta = (u.sum() - 1) / static_cast<double>(k);
  for (;;) {
    double sum = 0;
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < k; ++i) {
      if (u[i] > theta) {
        sum += u[i];
        ++count;
      }
    }
    // In exact arithmetic the support only shrinks and never empties; in rounding an entry equal
    // to θ can drop out and come back as θ moves by an ulp, so a support that does not shrink ends
    // the search (θ is then the answer to rounding) and the loop cannot cycle.
    if (count >= support || count == 0) break;
    support = count;
    theta = (sum - 1) / static_cast<double>(count);
  }
  x = (u.array() - theta).max(0.0);
}

SimplexQp::SimplexQp(Eigen::MatrixXd a, double lipschitz, SimplexQpOptions options)
    : a_(std::move(a)), lipschitz_(lipschitz), options_(options) {
  const Eigen::Index k = a_.rows();
  for (Eigen::VectorXd* v : {&y_, &previous_, &gradient_, &step_, &projected_, &face_point_, &face_beta_, &face_ones_})
    v->resize(k);
  face_factor_.resize(k, k);
  face_.resize(k);
  previous_face_.resize(k);
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

double SimplexQp::Residual(const Eigen::Ref<const Eigen::VectorXd>& beta,
                           const Eigen::Ref<const Eigen::VectorXd>& point) const {
  gradient_.noalias() = a_ * point;
  gradient_ -= beta;
  step_ = point - (1 / lipschitz_) * gradient_;
  ProjectOntoSimplex(step_, projected_);
  return (projected_ - point).cwiseAbs().maxCoeff();
}

bool SimplexQp::SolveOnFace(const Eigen::Ref<const Eigen::VectorXd>& beta) const {
  const Eigen::Index n = face_size_;
  const auto face = face_.head(n);
  // A_FF = L Lᵀ in place in face_factor_'s corner (no allocation); A_FF singular: FISTA goes on.
  Eigen::Ref<Eigen::MatrixXd> a_ff = face_factor_.topLeftCorner(n, n);
  a_ff = a_(face, face);
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> cholesky(a_ff);
  if (cholesky.info() != Eigen::Success) return false;
  // A_FF y = β_F and A_FF u = 1; x_F = y − ν u with ν from 1ᵀx_F = 1.
  auto y = face_beta_.head(n);
  auto u = face_ones_.head(n);
  y = beta(face);
  u.setOnes();
  cholesky.solveInPlace(y);
  cholesky.solveInPlace(u);
  const double nu = (y.sum() - 1) / u.sum();
  face_point_.setZero();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double value = y[i] - nu * u[i];
    if (!(value > 0)) return false;  // the face's minimiser leaves the simplex: not the optimum's face
    face_point_[face[i]] = value;
  }
  return true;
}

Result<SimplexQpStats> SimplexQp::Solve(const Eigen::Ref<const Eigen::VectorXd>& beta,
                                        Eigen::Ref<Eigen::VectorXd> x) const {
  if (beta.size() != a_.rows() || x.size() != a_.rows())
    return Status::Invalid("simplex QP: beta and x must have K = " + std::to_string(a_.rows()) + " entries");
  if (!beta.allFinite()) return Status::Numerical("simplex QP: beta has a non-finite entry");
  const double inverse_l = 1 / lipschitz_;
  if (!x.allFinite()) x.setConstant(1.0 / static_cast<double>(x.size()));
  step_ = x;
  ProjectOntoSimplex(step_, x);
  SimplexQpStats stats;
  y_ = x;
  double t = 1;
  previous_face_size_ = -1;
  for (stats.iterations = 0; stats.iterations < options_.max_iter; ++stats.iterations) {
    // The residual costs as much as a FISTA step: test it every kCheckEvery iterations.
    if (stats.iterations % kCheckEvery == 0) {
      stats.residual = Residual(beta, x);
      if (!std::isfinite(stats.residual)) return Status::Numerical("simplex QP: iterates became non-finite");
      if (stats.residual <= options_.tol) {
        stats.converged = true;
        return stats;
      }
      // Once FISTA's support has held between two tests it is likely the optimum's face: the
      // minimiser on that face is one Cholesky solve away, and kept when its residual passes
      // (FISTA's linear convergence otherwise takes tens of iterations more to reach tol).
      face_size_ = 0;
      for (Eigen::Index i = 0; i < x.size(); ++i)
        if (x[i] > 0) face_[face_size_++] = i;
      if (face_size_ == previous_face_size_ && (face_.head(face_size_) == previous_face_.head(face_size_)).all() &&
          SolveOnFace(beta)) {
        const double residual = Residual(beta, face_point_);
        if (residual <= options_.tol) {
          x = face_point_;
          stats.residual = residual;
          stats.converged = true;
          return stats;
        }
      }
      std::swap(face_, previous_face_);
      std::swap(face_size_, previous_face_size_);
    }
    // FISTA step from the extrapolated point y.
    previous_ = x;
    gradient_.noalias() = a_ * y_;
    gradient_ -= beta;
    step_ = y_ - inverse_l * gradient_;
    ProjectOntoSimplex(step_, x);
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
  stats.residual = Residual(beta, x);
  if (!std::isfinite(stats.residual)) return Status::Numerical("simplex QP: iterates became non-finite");
  stats.converged = stats.residual <= options_.tol;
  return stats;
}

}  // namespace seqflow
