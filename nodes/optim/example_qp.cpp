#include "nodes/optim/example_qp.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace seqflow {

namespace {

bool Capped(double cap) { return std::isfinite(cap); }

// The multiplier μ of the sum constraint at α: max(0, −min_j g_j), the least μ ≥ 0 with g + μ ≥ 0
// (at a solution the support's gradients all equal −μ, the least of all); 0 without a cap.
double SumMultiplier(const Eigen::VectorXd& g, double cap) {
  return Capped(cap) && g.size() > 0 ? std::max(0.0, -g.minCoeff()) : 0.0;
}

Eigen::VectorXd Feasible(const Eigen::VectorXd& start, Eigen::Index n, double cap) {
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n);
  if (start.size() == n) alpha = start.cwiseMax(0.0);
  const double sum = alpha.sum();
  if (Capped(cap) && sum > cap) alpha *= cap / sum;
  return alpha;
}

// One SMO step on the simplex {β = (α, slack) ≥ 0, Σβ = cap}: moves mass from the support
// coordinate of largest gradient to the coordinate of least gradient. Returns the pair's gap.
double SimplexStep(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, double cap, Eigen::VectorXd& alpha,
                   Eigen::VectorXd& g) {
  const Eigen::Index n = alpha.size();
  const Eigen::Index kSlack = n;  // gradient 0, curvature 0
  const double slack = cap - alpha.sum();
  auto grad = [&](Eigen::Index j) { return j == kSlack ? 0.0 : g[j]; };
  auto value = [&](Eigen::Index j) { return j == kSlack ? slack : alpha[j]; };
  Eigen::Index up = kSlack, down = -1;
  for (Eigen::Index j = 0; j < n; ++j)
    if (g[j] < grad(up)) up = j;
  for (Eigen::Index j = 0; j <= n; ++j)
    if (value(j) > 0 && (down < 0 || grad(j) > grad(down))) down = j;
  if (down < 0 || up == down) return 0;
  const double gap = grad(down) - grad(up);
  if (gap <= 0) return 0;
  auto q = [&](Eigen::Index i, Eigen::Index k) { return i == kSlack || k == kSlack ? 0.0 : Q(i, k); };
  const double curvature = q(up, up) + q(down, down) - 2 * q(up, down);
  const double delta = curvature > 0 ? std::min(gap / curvature, value(down)) : value(down);
  if (up != kSlack) {
    alpha[up] += delta;
    g += delta * Q.col(up);
  }
  if (down != kSlack) {
    alpha[down] -= delta;
    if (alpha[down] < 0) alpha[down] = 0;
    g -= delta * Q.col(down);
  }
  return gap;
}

// One sweep of exact coordinate descent on α ≥ 0.
void OrthantSweep(const Eigen::MatrixXd& Q, Eigen::VectorXd& alpha, Eigen::VectorXd& g) {
  for (Eigen::Index j = 0; j < alpha.size(); ++j) {
    if (Q(j, j) <= 0) continue;  // g_j is then constant along j; KKT reports it if negative
    const double next = std::max(0.0, alpha[j] - g[j] / Q(j, j));
    const double delta = next - alpha[j];
    if (delta == 0) continue;
    alpha[j] = next;
    g += delta * Q.col(j);
  }
}

}  // namespace

double ExampleQpKktViolation(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, double cap,
                             const Eigen::VectorXd& alpha) {
  // The natural residual of each complementarity pair: min(α_j, g_j + μ) and min(cap − Σα, μ) are
  // 0 exactly at a KKT point; negative parts are infeasibility, positive ones slackness on both sides.
  const Eigen::VectorXd g = Q * alpha - b;
  const double mu = SumMultiplier(g, cap);
  double violation = 0;
  for (Eigen::Index j = 0; j < alpha.size(); ++j)
    violation = std::max(violation, std::abs(std::min(alpha[j], g[j] + mu)));
  if (Capped(cap)) violation = std::max(violation, std::abs(std::min(cap - alpha.sum(), mu)));
  return violation;
}

Result<Eigen::VectorXd> SolveExampleQp(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, double cap,
                                       const Eigen::VectorXd& start, const ExampleQpOptions& options) {
  const Eigen::Index n = b.size();
  if (Q.rows() != n || Q.cols() != n)
    return Status::Invalid(fmt::format("example QP: Q is {} x {} for {} multipliers", Q.rows(), Q.cols(), n));
  if (cap < 0) return Status::Invalid(fmt::format("example QP: cap {} < 0", cap));
  if (!Q.allFinite() || !b.allFinite() || std::isnan(cap)) return Status::Numerical("example QP: non-finite Q or b");
  if (!Q.isApprox(Q.transpose(), 1e-12)) return Status::Invalid("example QP: Q is not symmetric");
  Eigen::VectorXd alpha = Feasible(start, n, cap);
  if (n == 0) return alpha;
  Eigen::VectorXd g = Q * alpha - b;
  const double tolerance = options.tolerance * std::max(1.0, b.cwiseAbs().maxCoeff());
  for (int it = 0; it < options.max_iterations; ++it) {
    if (ExampleQpKktViolation(Q, b, cap, alpha) <= tolerance) return alpha;
    if (Capped(cap)) {
      for (Eigen::Index step = 0; step < n + 1; ++step)
        if (SimplexStep(Q, b, cap, alpha, g) <= tolerance) break;
    } else {
      OrthantSweep(Q, alpha, g);
    }
    g = Q * alpha - b;  // against drift of the incremental updates
  }
  return Status::Numerical(fmt::format("example QP: KKT violation {:.3g} after {} iterations",
                                       ExampleQpKktViolation(Q, b, cap, alpha), options.max_iterations));
}

}  // namespace seqflow
