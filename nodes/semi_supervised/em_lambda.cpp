#include "nodes/semi_supervised/em_lambda.h"

#include <cmath>

#include "nodes/common/portable_math.h"
#include "nodes/hmm/forward_backward.h"

namespace seqflow {

Eigen::VectorXd Em0(const PomLayout& layout, const IdSentences& words, const IdSentences& labels,
                    const HmmSmoothing& smoothing) {
  ExpectedCounts counts = LabeledSentenceCounts(layout.num_states(), layout.num_symbols(), words, labels);
  counts.initial.array() += smoothing.initial;
  counts.transition.array() += smoothing.transition;
  counts.emission.array() += smoothing.emission;
  return layout.Gather(counts) / static_cast<double>(labels.size());
}

Em1Result Em1(const PomLayout& layout, const HmmParams& hmm, const IdSentences& unlabeled, int threads) {
  return Em1(layout, hmm, unlabeled, threads, nullptr).value();  // one process: cannot fail
}

Result<Em1Result> Em1(const PomLayout& layout, const HmmParams& hmm, const IdSentences& unlabeled, int threads,
                      const ProcessGroup* group) {
  SEQFLOW_ASSIGN_OR_RETURN(const ExpectedCounts counts, CorpusExpectedCounts(hmm, unlabeled, threads, group));
  const double n = static_cast<double>(unlabeled.size());
  return Em1Result{layout.Gather(counts) / n, counts.log_likelihood / n};
}

double LambdaObjective(const PomLayout& layout, const Eigen::VectorXd& em0, const HmmParams& hmm, double lambda,
                       double mean_log_likelihood) {
  const Eigen::VectorXd theta = layout.Gather(hmm);
  double labeled = 0;
  for (Eigen::Index i = 0; i < em0.size(); ++i) {
    if (em0[i] > 0) labeled += em0[i] * Log(theta[i]);  // 0 log 0 = 0: unseen, unsmoothed
  }
  // λ = 0 must not touch the unlabeled term (unset, or -inf without U), nor λ = 1 the labeled
  // one: at λ = 1 EM may drive a labeled-only event's θ to 0, and 0 · log 0 must stay 0.
  return (lambda < 1 ? (1 - lambda) * labeled : 0.0) + (lambda > 0 ? lambda * mean_log_likelihood : 0.0);
}

Result<EmLambdaResult> RunEmLambda(const HmmParams& start, double lambda, const Eigen::VectorXd& em0,
                                   const IdSentences& unlabeled, const PomLayout& layout,
                                   const EmLambdaOptions& options, const CancelToken& cancel,
                                   const EmLambdaResult* resume_from,
                                   const std::function<void(const EmLambdaResult&)>& after_update) {
  EmLambdaResult result;
  result.model = start;
  result.theta_tilde = layout.Gather(start);
  if (resume_from != nullptr) {
    if (resume_from->iterations < 1 || resume_from->theta_tilde.size() != layout.num_params() ||
        resume_from->objective.size() != static_cast<size_t>(resume_from->iterations))
      return Status::Invalid("EM_λ: the state to resume from does not fit this model");
    // A state past where these options stop cannot give their result.
    bool stopped_before = resume_from->iterations > options.max_iter;
    const std::vector<double>& objective = resume_from->objective;
    for (size_t i = 1; i < objective.size() && !stopped_before; ++i)
      stopped_before = std::abs(objective[i] - objective[i - 1]) < options.tol * (1 + std::abs(objective[i]));
    if (stopped_before)
      return Status::Invalid("EM_λ: the state to resume from (iteration " + std::to_string(resume_from->iterations) +
                             ") is past where these options stop");
    result.theta_tilde = resume_from->theta_tilde;
    result.model = layout.ToHmm(result.theta_tilde, start);
    result.objective = resume_from->objective;
    result.iterations = resume_from->iterations;
  }
  for (int iter = result.iterations;; ++iter) {
    if (Status s = cancel.Check("EM_λ"); !s.ok()) return s;
    // E-step at θ_iter: gives both L_λ(θ_iter) and EM_1(θ_iter).
    Em1Result e{Eigen::VectorXd::Zero(layout.num_params()), 0.0};
    if (lambda > 0) {
      SEQFLOW_ASSIGN_OR_RETURN(e, Em1(layout, result.model, unlabeled, options.threads, options.processes));
    }
    const double objective = LambdaObjective(layout, em0, result.model, lambda, e.mean_log_likelihood);
    result.objective.push_back(objective);
    if (iter > 0) {
      const double change = std::abs(objective - result.objective[iter - 1]);
      if (change < options.tol * (1 + std::abs(objective))) {
        result.converged = true;
        break;
      }
    }
    if (iter == options.max_iter) break;
    result.theta_tilde = (1 - lambda) * em0 + lambda * e.em1;
    result.model = layout.ToHmm(result.theta_tilde, start);
    result.iterations = iter + 1;
    if (after_update) after_update(result);
  }
  return result;
}

}  // namespace seqflow
