#include "nodes/homotopy/path_linear_algebra.h"

#include <cmath>
#include <limits>

namespace seqflow {
namespace {

class DenseLinearization final : public PathLinearization {
 public:
  DenseLinearization(EmJacobian em, double lambda, const Eigen::VectorXd& em0, const LinearSolveOptions& options)
      : PathLinearization(std::move(em), lambda, em0), options_(options) {}

  Eigen::VectorXd Tangent(const Eigen::VectorXd& eta_old) override {
    Factor();
    const int P = static_cast<int>(residual().size());
    Eigen::VectorXd e = Eigen::VectorXd::Zero(P + 1);
    e[P] = 1;
    Eigen::VectorXd eta = qr_.householderQ() * e;
    if (eta.dot(eta_old) < 0) eta = -eta;
    return eta;
  }

  Eigen::VectorXd SolveAugmented(const Eigen::VectorXd& eta, const Eigen::VectorXd& r, double s) override {
    Factor();
    const int P = static_cast<int>(r.size());
    const auto R = qr_.matrixQR().topRows(P).triangularView<Eigen::Upper>();
    const Eigen::VectorXd c = qr_.householderQ().adjoint() * eta;
    Eigen::VectorXd w(P + 1);
    w.head(P) = R.transpose().solve(r);
    w[P] = (s - c.head(P).dot(w.head(P))) / c[P];
    return qr_.householderQ() * w;
  }

  JacobianSpectrum Spectrum(Eigen::VectorXd* warm) override {
    Factor();
    const PomLayout& layout = em().layout();
    const Eigen::VectorXd& theta = em().theta_tilde();
    if (c_.rows() > kDenseEigenMaxP) {
      auto apply_s = [&](const Eigen::VectorXd& v) -> Eigen::VectorXd {
        return ApplyGt(layout, theta, c_ * ApplyG(layout, theta, v));
      };
      return LanczosSpectrum(apply_s, c_.rows(), lambda(), options_.lanczos, warm);
    }
    const Eigen::VectorXd mu =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(SymmetrizeDense(layout, theta, c_), Eigen::EigenvaluesOnly)
            .eigenvalues();
    JacobianSpectrum spectrum;
    spectrum.exact = true;
    spectrum.mu_max = mu.maxCoeff();
    spectrum.num_crossed = static_cast<int>((lambda() * mu.array() > 1.0).count());
    return spectrum;
  }

 private:
  // DFᵀ = [(I − λJ)ᵀ; (EM_0 − EM_1)ᵀ], factored on first use.
  void Factor() {
    if (factored_) return;
    const CountCovariance& cov = em().covariance();
    c_ = cov.Dense() / static_cast<double>(cov.num_sentences());
    const Eigen::Index P = c_.rows();
    Eigen::MatrixXd dft(P + 1, P);
    dft.topRows(P) = -lambda() * MultiplyH(em().layout(), em().theta_tilde(), c_).transpose();
    dft.topRows(P).diagonal().array() += 1.0;
    dft.row(P) = dF_dlambda().transpose();
    qr_.compute(dft);
    factored_ = true;
  }

  LinearSolveOptions options_;
  bool factored_ = false;
  Eigen::MatrixXd c_;                         // [P x P] Cov / |U|; J = C H
  Eigen::HouseholderQR<Eigen::MatrixXd> qr_;  // of DFᵀ [(P+1) x P]
};

class MatrixFreeLinearization final : public PathLinearization {
 public:
  MatrixFreeLinearization(EmJacobian em, double lambda, const Eigen::VectorXd& em0, const LinearSolveOptions& options)
      : PathLinearization(std::move(em), lambda, em0), options_(options) {}

  Eigen::VectorXd Tangent(const Eigen::VectorXd& eta_old) override {
    const Eigen::Index P = residual().size();
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(P + 1);
    rhs[P] = 1;
    // η_old / ‖η_old‖² already satisfies the border row and is close to the answer.
    const Eigen::VectorXd w = Bordered(eta_old, rhs, eta_old / eta_old.squaredNorm()).x;
    Eigen::VectorXd eta = w.normalized();
    if (eta.dot(eta_old) < 0) eta = -eta;
    return eta;
  }

  Eigen::VectorXd SolveAugmented(const Eigen::VectorXd& eta, const Eigen::VectorXd& r, double s) override {
    Eigen::VectorXd rhs(r.size() + 1);
    rhs << r, s;
    GmresResult g = Bordered(eta, rhs, Eigen::VectorXd());
    if (!g.converged) g.x.setConstant(std::numeric_limits<double>::quiet_NaN());
    return g.x;
  }

  JacobianSpectrum Spectrum(Eigen::VectorXd* warm) override {
    return LanczosSpectrum([this](const Eigen::VectorXd& v) { return em().ApplySymmetric(v); }, residual().size(),
                           lambda(), options_.lanczos, warm);
  }

 private:
  // Solves [DF; borderᵀ] x = rhs by GMRES.
  GmresResult Bordered(const Eigen::VectorXd& border, const Eigen::VectorXd& rhs, const Eigen::VectorXd& x0) const {
    const Eigen::Index P = residual().size();
    auto apply = [&](const Eigen::VectorXd& d) -> Eigen::VectorXd {
      Eigen::VectorXd out(P + 1);
      out << ApplyDF(d), border.dot(d);
      return out;
    };
    return Gmres(apply, rhs, x0, options_.gmres);
  }

  LinearSolveOptions options_;
};

}  // namespace

PathLinearization::PathLinearization(EmJacobian em, double lambda, const Eigen::VectorXd& em0)
    : em_(std::move(em)), lambda_(lambda) {
  dF_dlambda_ = em0 - em_.em1();
  residual_ = em_.theta_tilde() - (1 - lambda_) * em0 - lambda_ * em_.em1();
}

Eigen::VectorXd PathLinearization::ApplyDF(const Eigen::VectorXd& d) const {
  const Eigen::Index P = residual_.size();
  const Eigen::VectorXd d_theta = d.head(P);
  return d_theta - lambda_ * em_.Apply(d_theta) + d[P] * dF_dlambda_;
}

std::unique_ptr<PathLinearization> Linearize(PathSolver solver, EmJacobian em, double lambda,
                                             const Eigen::VectorXd& em0, const LinearSolveOptions& options) {
  if (solver == PathSolver::kDense) return std::make_unique<DenseLinearization>(std::move(em), lambda, em0, options);
  return std::make_unique<MatrixFreeLinearization>(std::move(em), lambda, em0, options);
}

Eigen::VectorXd LanczosStart(Eigen::Index size, const Eigen::VectorXd& warm) {
  // A fixed start with no special structure: a Weyl sequence in [1, 2) (no libm call, so the
  // same bits on every CPU).
  Eigen::VectorXd start(size);
  for (Eigen::Index i = 0; i < size; ++i) {
    const double x = 0.6180339887498949 * static_cast<double>(i + 1);
    start[i] = 1.0 + (x - std::floor(x));
  }
  start.normalize();
  // A little of the fixed start keeps the Krylov space from being trapped in an eigenvector of
  // a lower eigenvalue, should the previous top eigenvector have become one.
  if (warm.size() == size && warm.norm() > 0) start = warm.normalized() + 1e-2 * start;
  return start;
}

JacobianSpectrum LanczosSpectrum(const LinearOperator& apply_s, Eigen::Index size, double lambda,
                                 const LanczosOptions& options, Eigen::VectorXd* warm) {
  // 1 − λ μ_max changes sign at μ_max = 1/λ: the side Lanczos must not leave uncertain.
  const double threshold = lambda > 0 ? 1.0 / lambda : std::numeric_limits<double>::infinity();
  const LanczosResult top = LargestEigenpair(apply_s, LanczosStart(size, *warm), options, threshold);
  *warm = top.vector;
  JacobianSpectrum spectrum;
  spectrum.mu_max = top.value;
  spectrum.iterations = top.iterations;
  spectrum.num_crossed = lambda * top.value > 1.0 ? 1 : 0;
  return spectrum;
}

}  // namespace seqflow
