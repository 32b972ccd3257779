#include "nodes/hmm/classifier_training.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "nodes/common/iterate.h"
#include "nodes/common/portable_math.h"
#include "nodes/common/random.h"
#include "nodes/hmm/forward_backward.h"

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

constexpr uint64_t kStateMagic = 0x3152545353434d48;  // "HMCSSTR1"

// Training between two restarts: the restarts done, class by class in order, and the best fit so
// far of the class under way. Each restart starts from its own seeded draw, so nothing else
// carries over.
struct Progress {
  int done = 0;                  // restarts finished, over all classes (class-major)
  ClassifierTrainResult result;  // the finished classes' models, the begun classes' objectives
  ClassFit current_best;         // of class done / restarts, when it has finished restarts
};

HmmParams Shape(int K, int V) {
  HmmParams h;
  h.initial = Eigen::VectorXd::Zero(K);
  h.transition = Eigen::MatrixXd::Zero(K, K);
  h.emission = Eigen::MatrixXd::Zero(K, V);
  return h;
}

StateTable<HmmParams> ParamsTable() {
  return StateTable<HmmParams>("hmm classifier")
      .DoublesInPlace(&HmmParams::initial)
      .DoublesInPlace(&HmmParams::transition)
      .DoublesInPlace(&HmmParams::emission);
}

// REQUIRES on reading: current_best.model has the run's shapes.
StateTable<Progress> ProgressTable(int num_classes, int num_symbols, const ClassifierTrainOptions& o) {
  const int R = o.restarts;
  // The objectives and best restart of each class begun, interleaved.
  auto save_begun = [](const Progress& p, StatePieces& out) {
    for (size_t y = 0; y < p.result.restart_objectives.size(); ++y) {
      const std::vector<double>& objectives = p.result.restart_objectives[y];
      out.writer().F64s(objectives.data(), objectives.size());
      out.writer().I64(p.result.best_restart[y]);
    }
  };
  auto load_begun = [R](Progress& p, StateIn& in) {
    const int begun = (p.done + R - 1) / R, finished = p.done / R;
    for (int y = 0; y < begun; ++y) {
      p.result.restart_objectives.push_back(in.F64s());
      p.result.best_restart.push_back(static_cast<int>(in.I64()));
      const int expected = y < finished ? R : p.done % R;
      if (p.result.restart_objectives.back().size() != static_cast<size_t>(expected)) return false;
    }
    return true;
  };
  return StateTable<Progress>("hmm classifier")
      .Tag(kStateMagic)
      .Fits(num_classes)
      .Fits(num_symbols)
      .Fits(o.num_states)
      .Fits(R)
      .I64(&Progress::done)
      .Check([=](const Progress& p) { return p.done >= 1 && p.done <= num_classes * R; })
      .I64(At(&Progress::result, &ClassifierTrainResult::iterations))
      .Custom(save_begun, load_begun)
      .RecordsCounted(At(&Progress::result, &ClassifierTrainResult::model, &HmmClassifier::classes), ParamsTable(),
                      [R](const Progress& p) { return static_cast<size_t>(p.done / R); }, Shape(o.num_states, num_symbols))
      .When([R](const Progress& p) { return p.done % R != 0; },
            StateTable<Progress>("hmm classifier")
                .Struct(At(&Progress::current_best, &ClassFit::model), ParamsTable())
                .F64(At(&Progress::current_best, &ClassFit::objective))
                .I64(At(&Progress::current_best, &ClassFit::iterations)));
}

}  // namespace

Result<ClassifierTrainResult> TrainHmmClassifier(const SymbolSequences& sequences, const std::vector<int32_t>& labels,
                                                 int num_classes, int num_symbols, const ClassifierTrainOptions& options,
                                                 const CancelToken& cancel, const KernelCheckpoints& checkpoints) {
  const int K = options.num_states, R = options.restarts;
  std::vector<SymbolSequences> by_class(num_classes);
  for (size_t i = 0; i < sequences.size(); ++i) by_class[labels[i]].push_back(sequences[i]);
  Progress progress;
  progress.current_best.model = Shape(K, num_symbols);
  Eigen::VectorXd& prior = progress.result.model.prior;
  prior.resize(num_classes);
  const double L = static_cast<double>(sequences.size());
  for (int y = 0; y < num_classes; ++y) {
    if (by_class[y].empty())
      return Status::Invalid("hmm classifier: class " + std::to_string(y) + " has no labeled sequence");
    prior[y] = (static_cast<double>(by_class[y].size()) + options.smoothing) / (L + num_classes * options.smoothing);
  }
  auto restart = [&](Progress& p) -> Result<Step> {
    const int y = p.done / R, r = p.done % R;
    ClassifierTrainResult& result = p.result;
    if (r == 0) {
      result.restart_objectives.emplace_back();
      result.best_restart.push_back(0);
      p.current_best = ClassFit{};
    }
    Rng rng = ShardRng(options.seed, static_cast<uint64_t>(y) * R + r);
    HmmParams start;
    start.initial = RandomStochasticRows(1, K, rng, options.start_floor).row(0).transpose();
    start.transition = RandomStochasticRows(K, K, rng, options.start_floor);
    start.emission = RandomStochasticRows(K, num_symbols, rng, options.start_floor);
    SEQFLOW_ASSIGN_OR_RETURN(ClassFit fit, FitOneStart(std::move(start), by_class[y], options, cancel));
    result.iterations += fit.iterations;
    result.restart_objectives.back().push_back(fit.objective);
    if (fit.objective > p.current_best.objective) {
      p.current_best = std::move(fit);
      result.best_restart.back() = r;
    }
    ++p.done;
    if (p.done % R == 0) result.model.classes.push_back(std::move(p.current_best.model));
    return p.done == num_classes * R ? Step::kDone : Step::kContinue;
  };
  const StateTable<Progress> table = ProgressTable(num_classes, num_symbols, options);
  const IterativeKernel<Progress> kernel{"hmm classifier", &table, int64_t{num_classes} * R,
                                         [](const Progress& p) { return int64_t{p.done}; }, restart};
  SEQFLOW_RETURN_IF_ERROR(Iterate(kernel, progress, cancel, checkpoints).status());
  return std::move(progress.result);
}

}  // namespace seqflow
