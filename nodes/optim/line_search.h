// Line search for the strong Wolfe conditions (Nocedal & Wright 2006, Alg. 3.5 bracketing and
// Alg. 3.6 zoom with safeguarded cubic interpolation):
//   φ(α) <= φ(0) + c1 α φ'(0)      and      |φ'(α)| <= c2 |φ'(0)|,   φ(α) = f(x + α d).
// The point moves in place (x += Δα d), so no trial copy of x is kept; the gradient buffer holds
// the gradient of the last evaluated point.
#pragma once

#include <Eigen/Dense>

#include "nodes/optim/objective.h"

namespace seqflow {

struct LineSearchResult {
  bool ok = false;  // strong Wolfe point found; x, f, g are that point
  double step = 0;  // α of the point x is at
  double f = 0;     // f(x)
  int evaluations = 0;
  bool finite = true;  // false when f or ∇f became NaN/inf at some trial point
};

// REQUIRES: φ'(0) = g0·d < 0; x is the start point; initial_step > 0.
// On failure x is moved back to the start point, or to the best trial point if any decreased f
// (then `ok` is false but f < f0 and the caller may continue), and g holds that point's gradient.
// Direction is Eigen::VectorXd or Eigen::VectorXf (explicitly instantiated).
template <class Direction>
LineSearchResult WolfeLineSearch(Objective& f, Eigen::VectorXd& x, Eigen::VectorXd& g, const Direction& d, double f0,
                                 double slope0, double initial_step, double c1, double c2, int max_evaluations,
                                 int threads = 1);

}  // namespace seqflow
