// Objective: a differentiable function to minimise, the one interface between models and
// optimisers (STYLE §4): the CRF log-likelihood, HySOL's Γ objective and the LOP weights implement
// it; L-BFGS consumes it.
// Thread safety: an Objective may parallelise inside Evaluate; callers call it from one thread.
#pragma once

#include <Eigen/Dense>

namespace seqflow {

class Objective {
 public:
  virtual ~Objective() = default;
  // f(x), and ∇f(x) into `gradient` (resized by the callee to x.size()).
  virtual double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) = 0;
};

}  // namespace seqflow
