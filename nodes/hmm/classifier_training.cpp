#include "nodes/hmm/classifier_training.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/base/bytes.h"
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

// Training between two restarts (KernelCheckpoints): the restarts done, class by class in order,
// and the best fit so far of the class under way. Each restart starts from its own seeded draw,
// so nothing else carries over.
struct Progress {
  int done = 0;  // restarts finished, over all classes (class-major)
  ClassFit current_best;  // of class done / restarts, when it has finished restarts
};

void SaveParams(ByteWriter& w, const HmmParams& h) {
  w.F64s(h.initial.data(), static_cast<size_t>(h.initial.size()));
  w.F64s(h.transition.data(), static_cast<size_t>(h.transition.size()));
  w.F64s(h.emission.data(), static_cast<size_t>(h.emission.size()));
}

bool LoadParams(ByteReader& r, int K, int V, HmmParams& h) {
  auto take = [&](auto& m, Eigen::Index rows, Eigen::Index cols) {
    const std::vector<double> values = r.F64s();
    if (values.size() != static_cast<size_t>(rows * cols)) return false;
    m.resize(rows, cols);
    std::copy(values.begin(), values.end(), m.data());
    return true;
  };
  return take(h.initial, K, 1) && take(h.transition, K, K) && take(h.emission, K, V);
}

std::string EncodeProgress(const ClassifierTrainResult& result, const Progress& progress, int num_classes,
                           int num_symbols, const ClassifierTrainOptions& o) {
  ByteWriter w;
  w.U64(kStateMagic);
  w.I64(num_classes), w.I64(num_symbols), w.I64(o.num_states), w.I64(o.restarts);
  w.I64(progress.done), w.I64(result.iterations);
  for (int y = 0; y * o.restarts < progress.done; ++y) {
    w.F64s(result.restart_objectives[y].data(), result.restart_objectives[y].size());
    w.I64(result.best_restart[y]);
  }
  for (const HmmParams& h : result.model.classes) SaveParams(w, h);
  if (progress.done % o.restarts != 0) {
    SaveParams(w, progress.current_best.model);
    w.F64(progress.current_best.objective), w.I64(progress.current_best.iterations);
  }
  return w.Take();
}

Status DecodeProgress(const std::string& bytes, int num_classes, int num_symbols, const ClassifierTrainOptions& o,
                      ClassifierTrainResult& result, Progress& progress) {
  const Status unfit = Status::Invalid("hmm classifier: the state to resume from does not fit these data and options");
  try {
    ByteReader r(bytes);
    if (r.U64() != kStateMagic || r.I64() != num_classes || r.I64() != num_symbols || r.I64() != o.num_states ||
        r.I64() != o.restarts)
      return unfit;
    const int64_t done = r.I64();
    if (done < 1 || done > static_cast<int64_t>(num_classes) * o.restarts) return unfit;
    progress.done = static_cast<int>(done);
    result.iterations = static_cast<int>(r.I64());
    const int begun = (progress.done + o.restarts - 1) / o.restarts, finished = progress.done / o.restarts;
    for (int y = 0; y < begun; ++y) {
      result.restart_objectives.push_back(r.F64s());
      result.best_restart.push_back(static_cast<int>(r.I64()));
      const size_t expected = y < finished ? static_cast<size_t>(o.restarts) : static_cast<size_t>(progress.done % o.restarts);
      if (result.restart_objectives.back().size() != expected) return unfit;
    }
    result.model.classes.resize(static_cast<size_t>(finished));
    for (HmmParams& h : result.model.classes)
      if (!LoadParams(r, o.num_states, num_symbols, h)) return unfit;
    if (progress.done % o.restarts != 0) {
      if (!LoadParams(r, o.num_states, num_symbols, progress.current_best.model)) return unfit;
      progress.current_best.objective = r.F64(), progress.current_best.iterations = static_cast<int>(r.I64());
    }
    r.ExpectEnd();
    return Status::Ok();
  } catch (const StatusError&) {
    return unfit;
  }
}

}  // namespace

Result<ClassifierTrainResult> TrainHmmClassifier(const SymbolSequences& sequences, const std::vector<int32_t>& labels,
                                                 int num_classes, int num_symbols, const ClassifierTrainOptions& options,
                                                 const CancelToken& cancel, const KernelCheckpoints& checkpoints) {
  const int K = options.num_states;
  std::vector<SymbolSequences> by_class(num_classes);
  for (size_t i = 0; i < sequences.size(); ++i) by_class[labels[i]].push_back(sequences[i]);
  ClassifierTrainResult result;
  Progress progress;
  if (checkpoints.resume_from != nullptr)
    SEQFLOW_RETURN_IF_ERROR(DecodeProgress(*checkpoints.resume_from, num_classes, num_symbols, options, result, progress));
  const int resumed_done = progress.done;
  result.model.prior.resize(num_classes);
  const double L = static_cast<double>(sequences.size());
  for (int y = 0; y < num_classes; ++y) {
    if (by_class[y].empty())
      return Status::Invalid("hmm classifier: class " + std::to_string(y) + " has no labeled sequence");
    result.model.prior[y] = (static_cast<double>(by_class[y].size()) + options.smoothing) /
                            (L + num_classes * options.smoothing);
    if ((y + 1) * options.restarts <= resumed_done) continue;  // finished before the state was saved
    const int first = std::max(0, resumed_done - y * options.restarts);
    ClassFit best = first > 0 ? std::move(progress.current_best) : ClassFit{};
    if (first == 0) {
      result.restart_objectives.emplace_back();
      result.best_restart.push_back(0);
    }
    for (int r = first; r < options.restarts; ++r) {
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
      if (checkpoints.offer && r + 1 < options.restarts) {
        progress.done = y * options.restarts + r + 1;
        checkpoints.offer([&] {
          progress.current_best = best;
          return EncodeProgress(result, progress, num_classes, num_symbols, options);
        });
      }
    }
    result.model.classes.push_back(std::move(best.model));
    if (checkpoints.offer && y + 1 < num_classes) {
      progress.done = (y + 1) * options.restarts;
      checkpoints.offer([&] { return EncodeProgress(result, progress, num_classes, num_symbols, options); });
    }
  }
  return result;
}

}  // namespace seqflow
