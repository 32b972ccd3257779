#include "nodes/optim/line_search.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "nodes/optim/blocked_sum.h"

namespace seqflow {
// Named, not anonymous: WolfeLineSearch, a template of external linkage, holds these in its
// lambdas, which GCC reports (-Wsubobject-linkage) once the file is part of a unity batch.
namespace wolfe {

struct Trial {
  double step = 0;
  double f = 0;
  double slope = 0;  // φ'(step) = ∇f(x + step d)·d
};

// Moves x from wherever it is to the start point + step·d and evaluates there.
template <class Direction>
class Walker {
 public:
  Walker(Objective& f, Eigen::VectorXd& x, Eigen::VectorXd& g, const Direction& d, int threads)
      : f_(f), x_(x), g_(g), d_(d), threads_(threads) {}
  Trial At(double step) {
    ParallelAxpy(step - at_, d_, x_, threads_);
    at_ = step;
    ++evaluations_;
    Trial t{step, f_.Evaluate(x_, g_), 0};
    t.slope = ParallelDot(g_, d_, threads_);
    if (!std::isfinite(t.f) || !std::isfinite(t.slope)) finite_ = false;
    return t;
  }
  int evaluations() const { return evaluations_; }
  bool finite() const { return finite_; }

 private:
  Objective& f_;
  Eigen::VectorXd& x_;
  Eigen::VectorXd& g_;
  const Direction& d_;
  int threads_;
  double at_ = 0;
  int evaluations_ = 0;
  bool finite_ = true;
};

// Minimiser of the cubic through (a, φa, φ'a) and (b, φb, φ'b), kept at least 10% of the
// interval away from both ends; bisection when the cubic has no usable minimiser.
double CubicStep(const Trial& a, const Trial& b) {
  const double d1 = a.slope + b.slope - 3 * (a.f - b.f) / (a.step - b.step);
  const double disc = d1 * d1 - a.slope * b.slope;
  double step = 0.5 * (a.step + b.step);
  if (disc >= 0) {
    const double d2 = std::copysign(std::sqrt(disc), b.step - a.step);
    const double denom = b.slope - a.slope + 2 * d2;
    if (denom != 0) step = b.step - (b.step - a.step) * (b.slope + d2 - d1) / denom;
  }
  const double lo = std::min(a.step, b.step), hi = std::max(a.step, b.step), margin = 0.1 * (hi - lo);
  if (!std::isfinite(step)) return 0.5 * (lo + hi);
  return std::clamp(step, lo + margin, hi - margin);
}

}  // namespace wolfe

template <class Direction>
LineSearchResult WolfeLineSearch(Objective& f, Eigen::VectorXd& x, Eigen::VectorXd& g, const Direction& d, double f0,
                                 double slope0, double initial_step, double c1, double c2, int max_evaluations,
                                 int threads) {
  wolfe::Walker<Direction> walk(f, x, g, d, threads);
  const wolfe::Trial start{0, f0, slope0};
  wolfe::Trial best = start;
  auto sufficient = [&](const wolfe::Trial& t) { return t.f <= f0 + c1 * t.step * slope0; };
  auto curvature = [&](const wolfe::Trial& t) { return std::abs(t.slope) <= -c2 * slope0; };
  auto done = [&](const wolfe::Trial& t) { return LineSearchResult{true, t.step, t.f, walk.evaluations(), true}; };

  // Zoom on [lo, hi]: lo satisfies sufficient decrease and has the lowest f seen so far.
  auto zoom = [&](wolfe::Trial lo, wolfe::Trial hi) -> std::optional<wolfe::Trial> {
    while (walk.evaluations() < max_evaluations && walk.finite()) {
      const wolfe::Trial t = walk.At(wolfe::CubicStep(lo, hi));
      if (t.f < best.f) best = t;
      if (!sufficient(t) || t.f >= lo.f) {
        hi = t;
      } else {
        if (curvature(t)) return t;
        if (t.slope * (hi.step - lo.step) >= 0) hi = lo;
        lo = t;
      }
      if (std::abs(hi.step - lo.step) <= 1e-16 * std::max(1.0, std::abs(lo.step))) break;
    }
    return std::nullopt;
  };

  wolfe::Trial prev = start;
  double step = initial_step;
  std::optional<wolfe::Trial> found;
  for (int i = 0; walk.evaluations() < max_evaluations; ++i) {
    const wolfe::Trial t = walk.At(step);
    if (!walk.finite()) break;
    if (t.f < best.f) best = t;
    if (!sufficient(t) || (i > 0 && t.f >= prev.f)) {
      found = zoom(prev, t);
      break;
    }
    if (curvature(t)) {
      found = t;
      break;
    }
    if (t.slope >= 0) {
      found = zoom(t, prev);
      break;
    }
    prev = t;
    step *= 2;
  }
  if (found) return done(*found);  // the last evaluation was `found`, so x and g are there
  // No Wolfe point: settle on the best point seen (or the start) with its gradient.
  const bool finite = walk.finite();
  const wolfe::Trial settle = walk.At(best.step);
  LineSearchResult r{false, settle.step, settle.f, walk.evaluations(), finite && walk.finite()};
  return r;
}

template LineSearchResult WolfeLineSearch(Objective&, Eigen::VectorXd&, Eigen::VectorXd&, const Eigen::VectorXd&,
                                          double, double, double, double, double, int, int);
template LineSearchResult WolfeLineSearch(Objective&, Eigen::VectorXd&, Eigen::VectorXd&, const Eigen::VectorXf&,
                                          double, double, double, double, double, int, int);

}  // namespace seqflow
