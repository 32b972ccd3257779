#include "nodes/common/portable_math.h"
#include "nodes/fhmm/loglinear_emissions.h"

#include <cmath>
#include <string>

namespace seqflow {

LogLinearObjective::LogLinearObjective(const Eigen::SparseMatrix<double>& phi, const Eigen::VectorXd& mu,
                                       double regularization)
    : phi_(phi), mu_(mu), regularization_(regularization) {}

Eigen::VectorXd LogLinearObjective::Distribution(const Eigen::VectorXd& theta) const {
  Eigen::VectorXd scores = phi_ * theta;
  const double top = scores.maxCoeff();
  Eigen::VectorXd p = (scores.array() - top).unaryExpr(&Exp);
  return p / p.sum();
}

double LogLinearObjective::Evaluate(const Eigen::VectorXd& theta, Eigen::VectorXd& gradient) {
  Eigen::VectorXd scores = phi_ * theta;
  const double top = scores.maxCoeff();
  Eigen::VectorXd p = (scores.array() - top).unaryExpr(&Exp);
  const double z = p.sum();
  p /= z;
  gradient = phi_.transpose() * p - mu_ + regularization_ * theta;
  return top + Log(z) - theta.dot(mu_) + 0.5 * regularization_ * theta.squaredNorm();
}

Result<Eigen::MatrixXd> FitLogLinearEmissions(const Eigen::SparseMatrix<double>& phi, const Eigen::MatrixXd& mu,
                                              const LogLinearOptions& options, const CancelToken& cancel) {
  if (mu.cols() != phi.cols())
    return Status::Invalid("log-linear emissions: mu has " + std::to_string(mu.cols()) + " features, phi " +
                           std::to_string(phi.cols()));
  if (!mu.allFinite()) return Status::Numerical("log-linear emissions: non-finite mean parameters");
  Eigen::MatrixXd emission(mu.rows(), phi.rows());
  for (Eigen::Index h = 0; h < mu.rows(); ++h) {
    const Eigen::VectorXd target = mu.row(h).transpose();
    LogLinearObjective objective(phi, target, options.regularization);
    Eigen::VectorXd theta = Eigen::VectorXd::Zero(phi.cols());
    SEQFLOW_ASSIGN_OR_RETURN(LbfgsResult fit, MinimizeLbfgs(objective, theta, options.lbfgs, nullptr, cancel));
    // A failed line search near the optimum is not an error; a non-finite point is.
    if (!theta.allFinite() || !std::isfinite(fit.objective))
      return Status::Numerical("log-linear emissions of label " + std::to_string(h) + ": " + fit.message);
    emission.row(h) = objective.Distribution(theta).transpose();
  }
  return emission;
}

}  // namespace seqflow
