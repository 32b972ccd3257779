#include "nodes/classifier/classifier_training.h"

#include <cmath>
#include <limits>
#include <string>

#include "nodes/common/random.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {

double LogPrior(const HmmParams& h, double eps) {
  return eps * (h.initial.array().unaryExpr(&Log).sum() + h.transition.array().unaryExpr(&Log).sum() +
                h.emission.array().unaryExpr(&Log).sum());
}

HmmParams NormalizedCounts(ExpectedCounts counts, double eps) {
  HmmParams h;
  h.initial = (counts.initial.array() + eps).matrix();
  h.initial /= h.initial.sum();
  h.transition = (counts.transition.array() + eps).matrix();
  h.emission = (counts.emission.array() + eps).matrix();
  for (Eigen::Index i = 0; i < h.transition.rows(); ++i) {
    h.transition.row(i) /= h.transition.row(i).sum();
    h.emission.row(i) /= h.emission.row(i).sum();
  }
  return h;
}

struct ClassFit {
  HmmParams model;
  double objective = -std::numeric_limits<double>::infinity();
  int iterations = 0;
};

Result<ClassFit> FitOneStart(HmmParams start, const SymbolSequences& sequences, const ClassifierTrainOptions& o,
                             const CancelToken& cancel) {
  ClassFit fit;
  fit.model = std::move(start);
  double previous = -std::numeric_limits<double>::infinity();
  for (int it = 0; it <= o.max_iterations; ++it) {
    SEQFLOW_RETURN_IF_ERROR(cancel.Check("hmm classifier Baum-Welch"));
    const ExpectedCounts counts = CorpusExpectedCounts(fit.model, sequences, o.threads);
    fit.objective = counts.log_likelihood + LogPrior(fit.model, o.smoothing);
    if (!std::isfinite(fit.objective))
      return Status::Numerical("hmm classifier: Baum-Welch objective is not finite (a sequence has probability 0)");
    if (it > 0 && std::abs(fit.objective - previous) < o.tol * (1 + std::abs(fit.objective))) break;
    if (it == o.max_iterations) break;
    previous = fit.objective;
    fit.model = NormalizedCounts(counts, o.smoothing);
    fit.iterations = it + 1;
  }
  return fit;
}

}  // namespace

Result<ClassifierTrainResult> TrainHmmClassifier(const SymbolSequences& sequences, const std::vector<int32_t>& labels,
                                                 int num_classes, int num_symbols, const ClassifierTrainOptions& options,
                                                 const CancelToken& cancel) {
  const int K = options.num_states;
  std::vector<SymbolSequences> by_class(num_classes);
  for (size_t i = 0; i < sequences.size(); ++i) by_class[labels[i]].push_back(sequences[i]);
  ClassifierTrainResult result;
  result.model.prior.resize(num_classes);
  const double L = static_cast<double>(sequences.size());
  for (int y = 0; y < num_classes; ++y) {
    if (by_class[y].empty())
      return Status::Invalid("hmm classifier: class " + std::to_string(y) + " has no labeled sequence");
    result.model.prior[y] = (static_cast<double>(by_class[y].size()) + options.smoothing) /
                            (L + num_classes * options.smoothing);
    ClassFit best;
    result.restart_objectives.emplace_back();
    result.best_restart.push_back(0);
    for (int r = 0; r < options.restarts; ++r) {
      Rng rng = ShardRng(options.seed, static_cast<uint64_t>(y) * options.restarts + r);
      HmmParams start;
      start.initial = RandomStochasticRows(1, K, rng, options.start_floor).row(0).transpose();
      start.transition = RandomStochasticRows(K, K, rng, options.start_floor);
      start.emission = RandomStochasticRows(K, num_symbols, rng, options.start_floor);
      SEQFLOW_ASSIGN_OR_RETURN(ClassFit fit, FitOneStart(std::move(start), by_class[y], options, cancel));
      result.iterations += fit.iterations;
      result.restart_objectives.back().push_back(fit.objective);
      if (fit.objective > best.objective) {
        best = std::move(fit);
        result.best_restart.back() = r;
      }
    }
    result.model.classes.push_back(std::move(best.model));
  }
  return result;
}

}  // namespace seqflow
