#include "nodes/fhmm/fhmm_em.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "nodes/common/iterate.h"
#include "nodes/common/parallel.h"
#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {

// Rows of `counts` normalised; a row with no mass is uniform.
Eigen::MatrixXd NormalizedRows(const Eigen::MatrixXd& counts) {
  Eigen::MatrixXd p = counts;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const double total = p.row(i).sum();
    if (total > 0)
      p.row(i) /= total;
    else
      p.row(i).setConstant(1.0 / static_cast<double>(p.cols()));
  }
  return p;
}

// Σ c log p over the cells with c > 0 (0 log 0 = 0).
double WeightedLog(const Eigen::MatrixXd& c, const Eigen::MatrixXd& p) {
  double sum = 0;
  for (Eigen::Index j = 0; j < c.cols(); ++j)
    for (Eigen::Index i = 0; i < c.rows(); ++i)
      if (c(i, j) > 0) sum += c(i, j) * Log(p(i, j));
  return sum;
}

// The labeled counts with the initial and transition pseudo-counts, divided by |L|.
ExpectedCounts SmoothedLabeled(const ExpectedCounts& labeled, int64_t num_labeled, const HmmSmoothing& smoothing) {
  ExpectedCounts c = labeled;
  c.initial.array() += smoothing.initial;
  c.transition.array() += smoothing.transition;
  const double n = static_cast<double>(num_labeled);
  c.initial /= n;
  c.transition /= n;
  c.emission /= n;
  return c;
}

double LabeledObjective(const ExpectedCounts& smoothed, const HmmParams& model) {
  return WeightedLog(smoothed.initial, model.initial) + WeightedLog(smoothed.transition, model.transition) +
         WeightedLog(smoothed.emission, model.emission);
}

}  // namespace

Eigen::MatrixXd ExpectedFeatureMeans(const Eigen::MatrixXd& emission_counts, const Eigen::SparseMatrix<double>& phi) {
  Eigen::MatrixXd mu = emission_counts * phi;
  for (Eigen::Index h = 0; h < mu.rows(); ++h) {
    const double total = emission_counts.row(h).sum();
    if (total > 0)
      mu.row(h) /= total;
    else
      mu.row(h).setZero();
  }
  return mu;
}

Result<HmmParams> FhmmMStep(const ExpectedCounts& counts, const Eigen::SparseMatrix<double>& phi,
                            const FhmmEmOptions& options, const CancelToken& cancel, Eigen::MatrixXd& theta) {
  const Eigen::Index k = counts.emission.rows();
  if (counts.emission.cols() != phi.rows() || theta.rows() != k || theta.cols() != phi.cols())
    return Status::Invalid("FHMM M-step: counts over " + std::to_string(counts.emission.cols()) +
                           " symbols, features over " + std::to_string(phi.rows()) + ", weights " +
                           std::to_string(theta.rows()) + " x " + std::to_string(theta.cols()));
  HmmParams model;
  model.initial = NormalizedRows(counts.initial.transpose()).transpose();
  model.transition = NormalizedRows(counts.transition);
  model.emission.resize(k, phi.rows());
  const Eigen::MatrixXd mu = ExpectedFeatureMeans(counts.emission, phi);
  std::vector<Status> status(static_cast<size_t>(k));
  ParallelShards(static_cast<size_t>(k), 1, options.threads, [&](size_t h, size_t, size_t) {
    const auto row = static_cast<Eigen::Index>(h);
    if (!(counts.emission.row(row).sum() > 0)) {
      model.emission.row(row).setConstant(1.0 / static_cast<double>(phi.rows()));
      return;
    }
    const Eigen::VectorXd target = mu.row(row).transpose();
    LogLinearObjective objective(phi, target, options.loglinear.regularization);
    Eigen::VectorXd weights = theta.row(row).transpose();
    Result<LbfgsResult> fit = MinimizeLbfgs(objective, weights, options.loglinear.lbfgs, nullptr, cancel);
    if (!fit.ok()) {
      status[h] = fit.status();
      return;
    }
    if (!weights.allFinite() || !std::isfinite(fit->objective)) {
      status[h] = Status::Numerical("FHMM M-step, label " + std::to_string(h) + ": " + fit->message);
      return;
    }
    theta.row(row) = weights.transpose();
    model.emission.row(row) = objective.Distribution(weights).transpose();
  });
  for (const Status& s : status)
    if (!s.ok()) return s;
  if (!model.emission.allFinite()) return Status::Numerical("FHMM M-step: non-finite emissions");
  return model;
}

Result<HmmParams> EstimateTaggedFhmm(const std::vector<std::vector<int32_t>>& words,
                                     const std::vector<std::vector<int32_t>>& labels, int num_states,
                                     const Eigen::SparseMatrix<double>& phi, const FhmmEmOptions& options,
                                     const CancelToken& cancel) {
  ExpectedCounts counts = LabeledSentenceCounts(num_states, static_cast<int>(phi.rows()), words, labels);
  counts.initial.array() += options.smoothing.initial;
  counts.transition.array() += options.smoothing.transition;
  Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(num_states, phi.cols());
  return FhmmMStep(counts, phi, options, cancel, theta);
}

namespace {

constexpr uint64_t kStateMagic = 0x31534d4545484653;  // "SFHEEMS1"

// After the M-step of iteration `iterations` - 1: the model and θ it made and the objectives of
// the models before it; the next E-step follows from the model.
// REQUIRES on reading: the result holds the start (model and θ of the run's shapes).
StateTable<FhmmEmResult> StateOf() {
  return StateTable<FhmmEmResult>("FHMM EM")
      .Tag(kStateMagic)
      .I64(&FhmmEmResult::iterations)
      .Doubles(&FhmmEmResult::objective)
      .Check([](const FhmmEmResult& r) {
        return r.iterations >= 1 && r.objective.size() == static_cast<size_t>(r.iterations);
      })
      .DoublesInPlace(At(&FhmmEmResult::model, &HmmParams::initial))
      .DoublesInPlace(At(&FhmmEmResult::model, &HmmParams::transition))
      .DoublesInPlace(At(&FhmmEmResult::model, &HmmParams::emission))
      .DoublesInPlace(&FhmmEmResult::theta);
}

}  // namespace

Result<FhmmEmResult> RunFhmmEm(const HmmParams& start, const Eigen::MatrixXd& start_theta,
                               const Eigen::SparseMatrix<double>& phi, const ExpectedCounts& labeled,
                               int64_t num_labeled, const std::vector<std::vector<int32_t>>& unlabeled, double lambda,
                               const FhmmEmOptions& options, const CancelToken& cancel, const FhmmEmObserver& observe,
                               const KernelCheckpoints& checkpoints) {
  if (!(lambda >= 0 && lambda <= 1)) return Status::Invalid("FHMM EM: lambda must be in [0, 1]");
  if (num_labeled < 1) return Status::Invalid("FHMM EM: no labeled sentences");
  if (lambda > 0 && unlabeled.empty()) return Status::Invalid("FHMM EM: lambda > 0 needs unlabeled sentences");
  const ExpectedCounts em0 = SmoothedLabeled(labeled, num_labeled, options.smoothing);
  FhmmEmResult result;
  result.model = start;
  result.theta = start_theta;
  const double n_unlabeled = static_cast<double>(unlabeled.size());
  // The E-step of the model after r.iterations M-steps and its objective; sets r.converged when
  // the objective has settled.
  auto evaluate = [&](FhmmEmResult& r) -> Result<ExpectedCounts> {
    const int iter = r.iterations;
    ExpectedCounts expected = ExpectedCounts::Zero(start.num_states(), start.num_symbols());
    if (lambda > 0) {
      expected = CorpusExpectedCounts(r.model, unlabeled, options.threads);
      if (!std::isfinite(expected.log_likelihood))
        return Status::Numerical("FHMM EM: an unlabeled sentence has probability 0 at iteration " +
                                 std::to_string(iter));
    }
    const double objective = (lambda < 1 ? (1 - lambda) * LabeledObjective(em0, r.model) : 0.0) +
                             (lambda > 0 ? lambda * expected.log_likelihood / n_unlabeled : 0.0);
    if (!std::isfinite(objective))
      return Status::Numerical("FHMM EM: non-finite objective at iteration " + std::to_string(iter));
    r.objective.push_back(objective);
    if (observe) SEQFLOW_RETURN_IF_ERROR(observe(iter, r.model));
    r.converged = iter > 0 && std::abs(objective - r.objective[static_cast<size_t>(iter) - 1]) <
                                  options.tol * (1 + std::abs(objective));
    return expected;
  };
  auto step = [&](FhmmEmResult& r) -> Result<Step> {
    SEQFLOW_ASSIGN_OR_RETURN(const ExpectedCounts expected, evaluate(r));
    if (r.converged) return Step::kDone;
    ExpectedCounts mixed = ExpectedCounts::Zero(start.num_states(), start.num_symbols());
    mixed.Add(em0, 1 - lambda);
    if (lambda > 0) mixed.Add(expected, lambda / n_unlabeled);
    SEQFLOW_ASSIGN_OR_RETURN(r.model, FhmmMStep(mixed, phi, options, cancel, r.theta));
    r.iterations += 1;
    return Step::kContinue;
  };
  const StateTable<FhmmEmResult> table = StateOf();
  const IterativeKernel<FhmmEmResult> kernel{"FHMM EM", &table, options.max_iter,
                                             [](const FhmmEmResult& r) { return int64_t{r.iterations}; }, step};
  SEQFLOW_ASSIGN_OR_RETURN(const Stopped stopped, Iterate(kernel, result, cancel, checkpoints));
  // Out of M-steps: the last model's objective still counts.
  if (stopped == Stopped::kBudget) SEQFLOW_RETURN_IF_ERROR(evaluate(result).status());
  return result;
}

}  // namespace seqflow
