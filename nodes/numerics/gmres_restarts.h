// The restart loop shared by Gmres (gmres.h) and RecyclingGmres (recycling_gmres.h): from x, the
// true residual is recomputed at every cycle's start (one product, not counted in `iterations`),
// convergence is ‖r‖ <= rel_tol ‖b‖, and a cycle of at most `restart` steps runs while the product
// budget lasts. The two differ only in how a residual is prepared (the recycling one first takes
// its part along W within span Z, which also moves x) and in the cycle itself.
#pragma once

#include <Eigen/Dense>
#include <algorithm>

#include "nodes/numerics/gmres.h"

namespace seqflow {

// prepare(x, r): may move x and r together, keeping r = b − A x. cycle(r, beta, target, budget, x):
// adds a correction to x, returns the products it used. REQUIRES: b ≠ 0.
template <class Prepare, class Cycle>
GmresResult RunGmresRestarts(const LinearOperator& apply, const Eigen::VectorXd& b, Eigen::VectorXd x,
                             const GmresOptions& options, const Prepare& prepare, const Cycle& cycle) {
  GmresResult result;
  result.x = std::move(x);
  const double b_norm = b.norm();
  const double target = options.rel_tol * b_norm;
  while (true) {
    Eigen::VectorXd r = b - apply(result.x);
    prepare(&result.x, &r);
    const double beta = r.norm();
    result.relative_residual = beta / b_norm;
    if (beta <= target) {
      result.converged = true;
      return result;
    }
    const int budget = std::min(options.restart, options.max_iter - result.iterations);
    if (budget <= 0) return result;
    result.iterations += cycle(r, beta, target, budget, &result.x);
  }
}

}  // namespace seqflow
