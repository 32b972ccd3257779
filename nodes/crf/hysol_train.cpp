// Γ by Eq. 3 and the alternation of Figure 1 (hysol_train.h).
#include "nodes/crf/hysol_train.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "engine/base/status.h"
#include "nodes/optim/box_lbfgs.h"
#include "nodes/optim/objective.h"

namespace seqflow {

namespace {

// −(Eq. 3) as a function of Γ, for the minimiser.
class CombinationObjective final : public Objective {
 public:
  CombinationObjective(const HybridCorpus& heldout, const ExpertTransitions& experts, const GenerativeParams& theta,
                       double xi_prime, int threads)
      : heldout_(heldout), experts_(experts), theta_(theta), xi_prime_(xi_prime), threads_(threads) {}

  double Evaluate(const Eigen::VectorXd& gamma, Eigen::VectorXd& gradient) override {
    double value = HybridConditionalLogLikelihood(heldout_, experts_, theta_, gamma, threads_, &gradient);
    if (xi_prime_ > 0) {
      // log 0 = -inf makes the boundary infeasible; the line search backs off from it.
      value += xi_prime_ * gamma.array().log().sum();
      gradient.array() += xi_prime_ / gamma.array();
    }
    gradient = -gradient;
    return -value;
  }

 private:
  const HybridCorpus& heldout_;
  const ExpertTransitions& experts_;
  const GenerativeParams& theta_;
  double xi_prime_;
  int threads_;
};

// Eq. 3 with its prior at Γ.
double HeldoutObjective(const HybridCorpus& heldout, const ExpertTransitions& experts, const GenerativeParams& theta,
                        const Eigen::VectorXd& gamma, const HysolOptions& options) {
  return HybridConditionalLogLikelihood(heldout, experts, theta, gamma, options.threads, nullptr) +
         (options.xi_prime > 0 ? options.xi_prime * gamma.array().log().sum() : 0.0);
}

}  // namespace

CombinationFit FitCombinationWeights(const HybridCorpus& heldout, const ExpertTransitions& experts,
                                     const GenerativeParams& theta, const Eigen::VectorXd& start, double xi_prime,
                                     int threads) {
  const Eigen::Index models = start.size();
  CombinationObjective objective(heldout, experts, theta, xi_prime, threads);
  BoxLbfgsOptions options;
  options.gradient_tolerance = 1e-4;
  options.delta = 1e-10;
  CombinationFit fit;
  fit.gamma = start;
  const BoxLbfgsResult r =
      MinimizeInBox(objective, fit.gamma, Eigen::VectorXd::Zero(models), Eigen::VectorXd::Ones(models), options);
  if (r.stop == BoxLbfgsStop::kNumericalFailure || !std::isfinite(r.objective))
    throw StatusError(Status::Numerical("fitting the combination weights Γ: " + r.message));
  fit.objective = -r.objective;
  fit.iterations = r.iterations;
  return fit;
}

HysolResult TrainHysol(const HybridCorpus& labeled, const HybridCorpus& heldout, const HybridCorpus& unlabeled,
                       const ExpertTransitions& experts, const std::vector<int64_t>& vocabulary_sizes,
                       const HysolOptions& options, const HysolProgress& progress) {
  const auto experts_n = static_cast<Eigen::Index>(experts.size());
  const auto models = experts_n + static_cast<Eigen::Index>(vocabulary_sizes.size());
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(models - experts_n);
  auto report = [&](HysolResult& result, HysolStep step) {
    result.trace.push_back(std::move(step));
    if (progress && !progress(result.trace.back())) throw StatusError(Status::Cancelled("HySOL training cancelled"));
  };

  HysolResult result;
  result.theta = MaximizeGenerative(ObservedCounts(labeled, vocabulary_sizes), ones, options.eta_prime);
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(models, 1.0 / static_cast<double>(models));
  const double at_uniform = HeldoutObjective(heldout, experts, result.theta, uniform, options);
  CombinationFit fit =
      FitCombinationWeights(heldout, experts, result.theta, uniform, options.xi_prime, options.threads);
  result.gamma = fit.gamma;
  report(result, HysolStep{0, "gamma", 0, 0, at_uniform, fit.objective, 0, result.gamma});

  // Σ_m log Z_i(x_m) per expert: the Θ-independent part of G, so G is comparable across Γ.
  Eigen::VectorXd log_partitions(experts_n);
  for (Eigen::Index i = 0; i < experts_n; ++i)
    log_partitions(i) = ExpertLogPartition(unlabeled, experts[i], static_cast<int>(i), options.threads);

  GenerativeCounts counts;
  // G(Θ|Γ) of Eq. 4 at the current pair; leaves the E-step's expected counts in `counts`.
  auto generative_at_current = [&](const std::string& where) {
    const double chain = HybridExpectedCounts(unlabeled, experts, result.theta, result.gamma, options.threads, counts);
    const double generative =
        chain - result.gamma.head(experts_n).dot(log_partitions) + GenerativeLogPrior(result.theta, options.eta_prime);
    if (!std::isfinite(generative))
      throw StatusError(Status::Numerical(fmt::format("HySOL {}: G(Θ|Γ) is {}", where, generative)));
    return generative;
  };
  // §5.2: without convergence the paper keeps the pair (Θ(t), Γ(t)), t >= 1, of highest G(Θ|Γ).
  // The first E-step of iteration t + 1 evaluates G at the pair iteration t ended with; Θ(t) is
  // then also iteration t + 1's `previous`, which is moved (not copied) into best_theta once the
  // stopping rule has used it. The old best is released as soon as it is beaten.
  int best_iteration = 0;
  double best_generative = -std::numeric_limits<double>::infinity();
  GenerativeParams best_theta;
  Eigen::VectorXd best_gamma;
  auto consider = [&](int t, double generative) {
    if (t < 1 || generative <= best_generative) return false;
    best_iteration = t;
    best_generative = generative;
    best_theta = GenerativeParams();
    best_gamma = result.gamma;
    return true;
  };

  for (int t = 1; t <= options.max_iterations; ++t) {
    GenerativeParams previous = result.theta;
    const Eigen::VectorXd generative_gamma = result.gamma.tail(models - experts_n);
    double last = -std::numeric_limits<double>::infinity();
    bool previous_is_best = false;
    for (int e = 1; e <= options.em_iterations; ++e) {
      const double generative = generative_at_current(fmt::format("step 4.1 (iteration {}, EM iteration {})", t, e));
      if (e == 1) previous_is_best = consider(t - 1, generative);
      report(result, HysolStep{t, "em", e, generative, 0, 0, 0, result.gamma});
      if (e > 1 && generative - last <= options.em_tolerance * std::abs(generative)) break;
      last = generative;
      result.theta = MaximizeGenerative(counts, generative_gamma, options.eta_prime);
    }
    const double change = RelativeParamChange(result.theta, previous);
    if (previous_is_best) best_theta = std::move(previous);
    const double before = HeldoutObjective(heldout, experts, result.theta, result.gamma, options);
    fit = FitCombinationWeights(heldout, experts, result.theta, result.gamma, options.xi_prime, options.threads);
    result.gamma = fit.gamma;
    result.iterations = t;
    report(result, HysolStep{t, "gamma", 0, 0, before, fit.objective, change, result.gamma});
    if (change < options.tolerance) {
      result.converged = true;
      break;
    }
  }
  result.selected_iteration = result.iterations;
  if (!result.converged) {
    consider(result.iterations, generative_at_current("choosing the pair of highest G after the last iteration"));
    result.selected_iteration = best_iteration;
    if (best_iteration != result.iterations) {
      result.theta = std::move(best_theta);
      result.gamma = std::move(best_gamma);
    }
    report(result, HysolStep{best_iteration, "select", 0, best_generative, 0, 0, 0, result.gamma});
  }
  return result;
}

}  // namespace seqflow
