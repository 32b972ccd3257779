// Log-linear emissions of the feature HMM from mean parameters (Marinho et al. 2016, Eq. 2 and
// Eq. 25): for each label h,
//   θ_h = argmin_θ  log Z(θ) - θᵀμ_h + (ε/2)||θ||²,   Z(θ) = Σ_w exp(φ(w)ᵀθ),
// and the emission row p(w | h) = exp(φ(w)ᵀθ_h) / Z(θ_h) over the V symbols. The paper writes the
// regularizer as ε||θ||; the squared norm keeps the objective smooth for L-BFGS (nodes/optim).
// The gradient is Φᵀ softmax(Φθ) - μ + εθ. Pure; thread safety: stateless.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/optim/lbfgs.h"
#include "nodes/optim/objective.h"

namespace seqflow {

struct LogLinearOptions {
  double regularization = 1e-4;  // ε
  LbfgsOptions lbfgs;
};

// f(θ) = log Z(θ) - θᵀμ + (ε/2)||θ||² for one label.
class LogLinearObjective final : public Objective {
 public:
  // REQUIRES: phi is V x W, mu has W entries; both outlive the objective.
  LogLinearObjective(const Eigen::SparseMatrix<double>& phi, const Eigen::VectorXd& mu, double regularization);
  double Evaluate(const Eigen::VectorXd& theta, Eigen::VectorXd& gradient) override;
  // softmax(Φθ): the emission row at θ.
  Eigen::VectorXd Distribution(const Eigen::VectorXd& theta) const;

 private:
  const Eigen::SparseMatrix<double>& phi_;
  const Eigen::VectorXd& mu_;
  double regularization_;
};

// Emission rows [K x V], one fit per row of mu [K x W]. Numerical if a fit fails or is not finite.
Result<Eigen::MatrixXd> FitLogLinearEmissions(const Eigen::SparseMatrix<double>& phi, const Eigen::MatrixXd& mu,
                                              const LogLinearOptions& options, const CancelToken& cancel);

}  // namespace seqflow
