#include "nodes/optim/box_lbfgs.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <utility>
#include <vector>

namespace seqflow {

const char* BoxLbfgsStopName(BoxLbfgsStop s) {
  switch (s) {
    case BoxLbfgsStop::kGradient:
      return "gradient";
    case BoxLbfgsStop::kConverged:
      return "converged";
    case BoxLbfgsStop::kMaxIterations:
      return "max_iterations";
    case BoxLbfgsStop::kLineSearchFailed:
      return "line_search_failed";
  }
  return "?";
}

namespace {

constexpr double kArmijo = 1e-4;     // sufficient-decrease fraction of the first-order change
constexpr double kCurvature = 1e-8;  // minimum cosine between s and y for a pair to be used
constexpr double kBinding = 1e-10;   // relative distance to a bound that counts as on it
constexpr double kRoundoff = 1e-10;  // relative change in f indistinguishable from round-off

struct Box {
  const Eigen::VectorXd& lower;
  const Eigen::VectorXd& upper;
  Eigen::VectorXd Project(const Eigen::VectorXd& x) const { return x.cwiseMax(lower).cwiseMin(upper); }
};

struct Point {
  Eigen::VectorXd x, g;  // [n] iterate, ∇f there
  double f = 0;
};

bool Finite(const Point& p) { return std::isfinite(p.f) && p.g.allFinite(); }

// ‖P(x - g) - x‖_inf: zero exactly at KKT points of the box problem.
double ProjectedGradientNorm(const Point& p, const Box& box) {
  return (box.Project(p.x - p.g) - p.x).lpNorm<Eigen::Infinity>();
}

bool Near(double x, double bound) {
  return std::isfinite(bound) && std::abs(x - bound) <= kBinding * std::max(1.0, std::abs(bound));
}

// [n] 0 for binding variables (on a bound their gradient pushes against), 1 for free ones.
Eigen::VectorXd FreeMask(const Point& p, const Box& box) {
  Eigen::VectorXd free(p.x.size());
  for (Eigen::Index i = 0; i < p.x.size(); ++i) {
    const bool binding = (Near(p.x[i], box.lower[i]) && p.g[i] > 0) || (Near(p.x[i], box.upper[i]) && p.g[i] < 0);
    free[i] = binding ? 0.0 : 1.0;
  }
  return free;
}

// The m newest correction pairs, and the two-loop product restricted to a free set.
class PairMemory {
 public:
  explicit PairMemory(int capacity) : capacity_(static_cast<size_t>(capacity)) {}

  void Add(Eigen::VectorXd s, Eigen::VectorXd y) {
    if (!(s.dot(y) > kCurvature * s.norm() * y.norm())) return;
    if (pairs_.size() == capacity_) pairs_.pop_front();
    pairs_.push_back({std::move(s), std::move(y)});
  }
  void Clear() { pairs_.clear(); }

  // d = -H_F g_F on the free variables, 0 on the others; returns the number of pairs used
  // (0: d = -g_F, which carries no step scale).
  int Direction(const Eigen::VectorXd& g, const Eigen::VectorXd& free, Eigen::VectorXd& d) const {
    struct Used {
      Eigen::VectorXd s, y;  // restricted to F
      double sy, alpha;
    };
    std::vector<Used> used;  // newest first
    Eigen::VectorXd q = g.cwiseProduct(free);
    for (auto it = pairs_.rbegin(); it != pairs_.rend(); ++it) {
      Eigen::VectorXd s = it->s.cwiseProduct(free), y = it->y.cwiseProduct(free);
      const double sy = s.dot(y);
      if (!(sy > kCurvature * s.norm() * y.norm())) continue;  // no curvature left on this face
      const double alpha = s.dot(q) / sy;
      q -= alpha * y;
      used.push_back({std::move(s), std::move(y), sy, alpha});
    }
    if (!used.empty()) q *= used.front().sy / used.front().y.squaredNorm();  // H_0 = γ I
    for (auto it = used.rbegin(); it != used.rend(); ++it) q += (it->alpha - it->y.dot(q) / it->sy) * it->s;
    d = -q;
    return static_cast<int>(used.size());
  }

 private:
  struct Pair {
    Eigen::VectorXd s, y;  // [n] x_{k+1} - x_k, g_{k+1} - g_k
  };
  std::deque<Pair> pairs_;  // oldest first
  size_t capacity_;
};

// Minimiser of the quadratic through φ(0) = f0, φ'(0) = change / step and φ(step) = f1, kept in
// [0.1, 0.5]·step so a wild interpolant neither stalls nor barely shrinks the step.
double Backtrack(double step, double f0, double change, double f1) {
  const double t = -change * step / (2 * (f1 - f0 - change));
  return std::clamp(t, 0.1 * step, 0.5 * step);
}

// Armijo: f(x⁺) <= f(x) + c1·gᵀs, s = x⁺ - x. Near a minimiser the decrease this asks for falls
// below the round-off in f, and the test fails for every step. Where f changed by no more than
// round-off, the approximate Armijo condition of Hager & Zhang (2005, SIAM J. Optim. 16(1))
// is used instead: g⁺ᵀs <= (2 c1 - 1)·gᵀs, which is Armijo on the segment [x, x⁺] for a
// quadratic and needs gradients only.
bool Acceptable(const Point& at, const Point& next, double change) {
  if (next.f <= at.f + kArmijo * change) return true;
  const bool within_roundoff = std::abs(next.f - at.f) <= kRoundoff * std::max(1.0, std::abs(at.f));
  return within_roundoff && next.g.dot(next.x - at.x) <= (2 * kArmijo - 1) * change;
}

struct Search {
  bool ok = false;  // `point` passed Acceptable
  int evaluations = 0;
  bool saw_nonfinite = false;
  Point point;
};

// Backtracking Armijo search along x(α) = P(x + α d) from α = step.
Search ProjectedSearch(Objective& f, const Point& at, const Eigen::VectorXd& d, double step, const Box& box,
                       int max_backtracks) {
  Search s;
  for (int b = 0; b <= max_backtracks; ++b) {
    s.point.x = box.Project(at.x + step * d);
    const double change = at.g.dot(s.point.x - at.x);  // first-order change along the path
    if (!(change < 0)) {
      if (s.point.x == at.x) break;  // the step no longer moves x
      step *= 0.5;                   // the projection bent the path uphill: shorter steps follow d more closely
      continue;
    }
    s.point.f = f.Evaluate(s.point.x, s.point.g);
    ++s.evaluations;
    if (Finite(s.point) && Acceptable(at, s.point, change)) {
      s.ok = true;
      return s;
    }
    if (!Finite(s.point)) s.saw_nonfinite = true;
    step = Finite(s.point) ? Backtrack(step, at.f, change, s.point.f) : 0.5 * step;
  }
  return s;
}

// The search direction of the header's steps 1-3 into d; returns the pairs it used, or -1 when no
// free variable has a nonzero gradient (d = 0).
int ChooseDirection(PairMemory& memory, const Point& at, const Box& box, Eigen::VectorXd& d) {
  const Eigen::VectorXd free = FreeMask(at, box);
  int used = memory.Direction(at.g, free, d);
  if (!(at.g.dot(d) < 0)) {  // lost descent (round-off in the pairs): restart along -g_F
    memory.Clear();
    used = memory.Direction(at.g, free, d);
  }
  return at.g.dot(d) < 0 ? used : -1;
}

BoxLbfgsResult Stop(BoxLbfgsResult r, BoxLbfgsStop stop, std::string message) {
  r.stop = stop;
  r.message = std::move(message);
  return r;
}

}  // namespace

Result<BoxLbfgsResult> MinimizeInBox(Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower,
                                     const Eigen::VectorXd& upper, const BoxLbfgsOptions& options) {
  assert(lower.size() == x.size() && upper.size() == x.size() && (lower.array() <= upper.array()).all());
  assert(options.memory >= 1);
  const Box box{lower, upper};
  Point at;
  at.x = x = box.Project(x);
  at.f = f.Evaluate(at.x, at.g);
  BoxLbfgsResult r;
  r.evaluations = 1;
  r.objective = at.f;
  if (!Finite(at)) return Status::Numerical("objective or gradient not finite at the (projected) start point");
  auto gradient_small = [&] { return ProjectedGradientNorm(at, box) <= options.gradient_tolerance; };
  const double first_move = std::min(1.0, (upper - lower).lpNorm<Eigen::Infinity>());
  PairMemory memory(options.memory);
  Eigen::VectorXd d;
  while (true) {
    if (gradient_small()) return Stop(r, BoxLbfgsStop::kGradient, "projected gradient below gradient_tolerance");
    if (r.iterations >= options.max_iterations) return Stop(r, BoxLbfgsStop::kMaxIterations, "max_iterations reached");
    const int used = ChooseDirection(memory, at, box, d);
    if (used < 0)
      return Stop(r, BoxLbfgsStop::kGradient, "every variable with a nonzero gradient is held at its bound");
    const double step = used > 0 ? 1.0 : first_move / d.lpNorm<Eigen::Infinity>();
    Search s = ProjectedSearch(f, at, d, step, box, options.max_backtracks);
    r.evaluations += s.evaluations;
    if (!s.ok && used > 0) {  // the pairs may describe the function badly here: retry along -g_F
      memory.Clear();
      continue;
    }
    if (!s.ok)
      return Stop(r, BoxLbfgsStop::kLineSearchFailed,
                  "no decrease along the projected gradient after iteration " + std::to_string(r.iterations) +
                      (s.saw_nonfinite ? " (objective or gradient NaN/inf at trial points)" : ""));
    memory.Add(s.point.x - at.x, s.point.g - at.g);
    const double decrease = (at.f - s.point.f) / std::max(1.0, std::abs(s.point.f));
    at = std::move(s.point);
    x = at.x;
    r.objective = at.f;
    ++r.iterations;
    if (options.delta > 0 && decrease < options.delta && !gradient_small())
      return Stop(r, BoxLbfgsStop::kConverged, "relative decrease of the objective below delta");
  }
}

}  // namespace seqflow
