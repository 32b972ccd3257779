#include "nodes/numerics/curve_linearization.h"

#include <limits>
#include <memory>

#include "nodes/numerics/recycling_gmres.h"

namespace seqflow {
namespace {

class DenseCurve final : public CurveLinearization {
 public:
  explicit DenseCurve(const Eigen::MatrixXd& jacobian) : n_(jacobian.rows()), qr_(jacobian.transpose()) {}

  Eigen::VectorXd Tangent(const Eigen::VectorXd& orient) const override {
    Eigen::VectorXd t = qr_.householderQ() * Eigen::VectorXd::Unit(n_ + 1, n_);
    if (t.dot(orient) < 0) t = -t;
    return t;
  }

  Eigen::VectorXd SolveAugmented(const Eigen::VectorXd& c, const Eigen::VectorXd& r, double s) const override {
    const auto R = qr_.matrixQR().topRows(n_).triangularView<Eigen::Upper>();
    const Eigen::VectorXd qc = qr_.householderQ().adjoint() * c;
    Eigen::VectorXd w(n_ + 1);
    w.head(n_) = R.transpose().solve(r);
    w[n_] = (s - qc.head(n_).dot(w.head(n_))) / qc[n_];
    return qr_.householderQ() * w;
  }

  // [Dρ; tᵀ] Q = [R₁ᵀ 0; tᵀQ₁ tᵀq] with q = Q e_n+1, so det = det R₁ · (tᵀ q) / det Q, and
  // det Q = (−1)^(reflections with a non-zero coefficient).
  int OrientationSign(const Eigen::VectorXd& t) const override {
    int sign = t.dot(qr_.householderQ() * Eigen::VectorXd::Unit(n_ + 1, n_)) < 0 ? -1 : 1;
    for (Eigen::Index i = 0; i < n_; ++i) {
      if (qr_.matrixQR()(i, i) < 0) sign = -sign;
      if (qr_.hCoeffs()[i] != 0) sign = -sign;
    }
    return sign;
  }

 private:
  Eigen::Index n_;
  Eigen::HouseholderQR<Eigen::MatrixXd> qr_;  // of Dρᵀ [(n+1) x n]
};

class KrylovCurve final : public CurveLinearization {
 public:
  KrylovCurve(LinearOperator apply, Eigen::Index n, const GmresOptions& options, LinearOperator precondition,
              double solve_rel_tol, int recycle)
      : apply_(std::move(apply)), n_(n), options_(options), precondition_(std::move(precondition)),
        solve_options_(options), recycle_(precondition_ ? 0 : recycle) {
    if (solve_rel_tol > 0) solve_options_.rel_tol = solve_rel_tol;
  }

  Eigen::VectorXd Tangent(const Eigen::VectorXd& orient) const override {
    // orient / ‖orient‖² satisfies the border row and is close to the answer.
    const Eigen::VectorXd x0 = orient / orient.squaredNorm();
    const Eigen::VectorXd rhs = Eigen::VectorXd::Unit(n_ + 1, n_);
    const GmresResult g = recycle_ > 0
                              ? RecyclingGmres(BorderedOperator(orient), n_ + 1, recycle_).Solve(rhs, x0, options_)
                              : Bordered(orient, rhs, x0, options_);
    if (!g.converged) return NotANumber();
    return g.x.normalized();  // orientᵀ w = 1 > 0 orients it
  }

  int OrientationSign(const Eigen::VectorXd&) const override { return 0; }

  Eigen::VectorXd SolveAugmented(const Eigen::VectorXd& c, const Eigen::VectorXd& r, double s) const override {
    Eigen::VectorXd rhs(n_ + 1);
    rhs << r, s;
    GmresResult g;
    if (recycle_ > 0) {
      // Later solves with the same border row start from the directions the earlier ones found.
      if (!recycled_ || recycled_border_ != c) {
        recycled_ = std::make_unique<RecyclingGmres>(BorderedOperator(c), n_ + 1, recycle_);
        recycled_border_ = c;
      }
      g = recycled_->Solve(rhs, Eigen::VectorXd(), solve_options_);
    } else {
      g = Bordered(c, rhs, Eigen::VectorXd(), solve_options_);
    }
    return g.converged ? g.x : NotANumber();
  }

 private:
  GmresResult Bordered(const Eigen::VectorXd& border, const Eigen::VectorXd& rhs, const Eigen::VectorXd& x0,
                       const GmresOptions& gmres) const {
    auto apply = [&](const Eigen::VectorXd& d) -> Eigen::VectorXd {
      Eigen::VectorXd out(n_ + 1);
      out << apply_(d), border.dot(d);
      return out;
    };
    if (!precondition_) return Gmres(apply, rhs, x0, gmres);
    // Right preconditioning keeps GMRES's residual that of the unpreconditioned system. Only P⁻¹
    // is at hand, so the initial guess enters as x = x0 + P⁻¹ u with GMRES on the residual
    // equation from u = 0, its tolerance rescaled to stay relative to ‖rhs‖.
    auto preconditioned = [&](const Eigen::VectorXd& u) -> Eigen::VectorXd { return apply(precondition_(u)); };
    const Eigen::VectorXd start = x0.size() == 0 ? Eigen::VectorXd::Zero(n_ + 1) : x0;
    const Eigen::VectorXd residual = rhs - apply(start);
    const double rhs_norm = rhs.norm();
    const double residual_norm = residual.norm();
    if (residual_norm <= gmres.rel_tol * rhs_norm) return GmresResult{start, 0, rhs_norm > 0 ? residual_norm / rhs_norm : 0, true};
    GmresOptions options = gmres;
    options.rel_tol = gmres.rel_tol * rhs_norm / residual_norm;
    GmresResult g = Gmres(preconditioned, residual, Eigen::VectorXd(), options);
    g.x = start + precondition_(g.x);
    g.relative_residual *= residual_norm / rhs_norm;
    return g;
  }

  // [Dρ; borderᵀ] as a product, holding its own copy of the border.
  LinearOperator BorderedOperator(const Eigen::VectorXd& border) const {
    return [this, border](const Eigen::VectorXd& d) -> Eigen::VectorXd {
      Eigen::VectorXd out(n_ + 1);
      out << apply_(d), border.dot(d);
      return out;
    };
  }

  Eigen::VectorXd NotANumber() const {
    return Eigen::VectorXd::Constant(n_ + 1, std::numeric_limits<double>::quiet_NaN());
  }

  LinearOperator apply_;
  Eigen::Index n_;
  GmresOptions options_;
  LinearOperator precondition_;
  GmresOptions solve_options_;
  int recycle_;
  mutable std::unique_ptr<RecyclingGmres> recycled_;  // SolveAugmented's, for recycled_border_
  mutable Eigen::VectorXd recycled_border_;
};

}  // namespace

std::unique_ptr<CurveLinearization> DenseCurveLinearization(const Eigen::MatrixXd& jacobian) {
  return std::make_unique<DenseCurve>(jacobian);
}

std::unique_ptr<CurveLinearization> KrylovCurveLinearization(LinearOperator apply, Eigen::Index n,
                                                             const GmresOptions& options,
                                                             LinearOperator precondition, double solve_rel_tol,
                                                             int recycle) {
  return std::make_unique<KrylovCurve>(std::move(apply), n, options, std::move(precondition), solve_rel_tol, recycle);
}

}  // namespace seqflow
