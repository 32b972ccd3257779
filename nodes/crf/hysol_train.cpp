// Γ by Eq. 3 and the alternation of Figure 1 (hysol_train.h).
#include "nodes/crf/hysol_train.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "engine/base/bytes.h"
#include "engine/base/status.h"
#include "nodes/common/iterate.h"
#include "nodes/common/portable_math.h"
#include "nodes/optim/box_lbfgs.h"
#include "nodes/optim/objective.h"

namespace seqflow {

double CombinationObjective::Evaluate(const Eigen::VectorXd& gamma, Eigen::VectorXd& gradient) {
  double value = HybridConditionalLogLikelihood(heldout_, experts_, theta_, gamma, threads_, &gradient, processes_, &gathered_);
  if (xi_prime_ > 0) {
    // log 0 = -inf makes the boundary infeasible; the line search backs off from it.
    value += xi_prime_ * gamma.array().unaryExpr(&Log).sum();
    gradient.array() += xi_prime_ / gamma.array();
  }
  gradient = -gradient;
  return -value;
}

namespace {

// Eq. 3 with its prior at Γ.
double HeldoutObjective(const HybridCorpus& heldout, const ExpertTransitions& experts, const GenerativeParams& theta,
                        const Eigen::VectorXd& gamma, const HysolOptions& options) {
  return HybridConditionalLogLikelihood(heldout, experts, theta, gamma, options.threads, nullptr, options.processes) +
         (options.xi_prime > 0 ? options.xi_prime * gamma.array().unaryExpr(&Log).sum() : 0.0);
}

}  // namespace

Result<CombinationFit> FitCombinationWeights(const HybridCorpus& heldout, const ExpertTransitions& experts,
                                             const GenerativeParams& theta, const Eigen::VectorXd& start,
                                             double xi_prime, int threads, const ProcessGroup* processes) {
  const Eigen::Index models = start.size();
  CombinationObjective objective(heldout, experts, theta, xi_prime, threads, processes);
  BoxLbfgsOptions options;
  options.gradient_tolerance = 1e-4;
  options.delta = 1e-10;
  CombinationFit fit;
  fit.gamma = start;
  const Result<BoxLbfgsResult> r =
      MinimizeInBox(objective, fit.gamma, Eigen::VectorXd::Zero(models), Eigen::VectorXd::Ones(models), options);
  if (!r.ok()) return r.status().Annotate("fitting the combination weights Γ");
  if (!std::isfinite(r->objective))
    return Status::Numerical("fitting the combination weights Γ: the objective is " + std::to_string(r->objective));
  fit.objective = -r->objective;
  fit.iterations = r->iterations;
  return fit;
}

namespace {

// ByteWriter::F64s' bytes (the count, then the values) with the values a view of where they are.
void AppendDoubles(StatePieces& state, const double* values, size_t n) {
  state.writer().U64(n);
  state.AppendView(std::string_view(reinterpret_cast<const char*>(values), n * sizeof(double)));
}

// Θ's bytes: the models' count, then per model its initial vector and its transition and emission
// tables (rows, columns, values). The tables are not copied (a checkpoint of Θ costs no memory).
void SaveTheta(StatePieces& state, const GenerativeParams& theta) {
  state.writer().U64(theta.log_emission.size());
  for (size_t j = 0; j < theta.log_emission.size(); ++j) {
    AppendDoubles(state, theta.log_initial[j].data(), static_cast<size_t>(theta.log_initial[j].size()));
    for (const RowMatrixXd* m : {&theta.log_transition[j], &theta.log_emission[j]}) {
      state.writer().I64(m->rows()), state.writer().I64(m->cols());
      AppendDoubles(state, m->data(), static_cast<size_t>(m->size()));
    }
  }
}

bool LoadTheta(StateIn& in, GenerativeParams& theta) {
  auto matrix = [&](RowMatrixXd& m) {
    const int64_t rows = in.I64(), cols = in.I64();
    const std::vector<double> values = in.F64s();
    if (rows < 0 || cols < 0 || values.size() != static_cast<size_t>(rows * cols)) return false;
    m = Eigen::Map<const RowMatrixXd>(values.data(), rows, cols);
    return true;
  };
  theta = GenerativeParams();
  for (uint64_t n = in.U64(), j = 0; j < n; ++j) {
    const std::vector<double> initial = in.F64s();
    theta.log_initial.emplace_back(Eigen::Map<const Eigen::VectorXd>(initial.data(), static_cast<Eigen::Index>(initial.size())));
    if (!matrix(theta.log_transition.emplace_back()) || !matrix(theta.log_emission.emplace_back())) return false;
  }
  return true;
}

StateTable<HysolStep> StepTable() {
  return StateTable<HysolStep>("HySOL")
      .I64(&HysolStep::iteration)
      .Str(&HysolStep::step)
      .I64(&HysolStep::em_iteration)
      .F64(&HysolStep::generative)
      .F64(&HysolStep::heldout_before)
      .F64(&HysolStep::heldout)
      .F64(&HysolStep::theta_change)
      .Doubles(&HysolStep::gamma)
      .F64(&HysolStep::score);
}

// True when `theta` has the shape of `like`.
bool SameShape(const GenerativeParams& theta, const GenerativeParams& like) {
  if (theta.num_models() != like.num_models()) return false;
  for (int j = 0; j < like.num_models(); ++j)
    if (theta.log_initial[j].size() != like.log_initial[j].size() ||
        theta.log_transition[j].rows() != like.log_transition[j].rows() ||
        theta.log_transition[j].cols() != like.log_transition[j].cols() ||
        theta.log_emission[j].rows() != like.log_emission[j].rows() ||
        theta.log_emission[j].cols() != like.log_emission[j].cols())
      return false;
  return true;
}

// Figure 1 with the state it carries between steps; Run() is TrainHysol.
class HysolProcedure {
 public:
  HysolProcedure(const HybridCorpus& labeled, const HybridCorpus& heldout, const UnlabeledHybrid& unlabeled,
                 const ExpertTransitions& experts, const std::vector<int64_t>& vocabulary_sizes,
                 const HysolOptions& options, const HysolProgress& progress, const CancelToken& cancel)
      : labeled_(labeled),
        heldout_(heldout),
        unlabeled_(unlabeled),
        experts_(experts),
        vocabulary_sizes_(vocabulary_sizes),
        options_(options),
        progress_(progress),
        cancel_(cancel),
        experts_n_(static_cast<Eigen::Index>(experts.size())),
        models_(experts_n_ + static_cast<Eigen::Index>(vocabulary_sizes.size())) {}

  Result<HysolResult> Run(const KernelCheckpoints& checkpoints) {
    if (checkpoints.resume_from == nullptr) SEQFLOW_RETURN_IF_ERROR(Start());
    const StateTable<HysolProcedure> table = StateOf();
    auto iteration = [](HysolProcedure& p) -> Result<Step> {
      SEQFLOW_ASSIGN_OR_RETURN(const bool converged, p.Iteration(p.result_.iterations + 1));
      p.result_.converged = converged;
      return converged ? Step::kDone : Step::kContinue;
    };
    const IterativeKernel<HysolProcedure> kernel{
        "HySOL training", &table, options_.max_iterations,
        [](const HysolProcedure& p) { return int64_t{p.result_.iterations}; }, iteration};
    SEQFLOW_RETURN_IF_ERROR(Iterate(kernel, *this, cancel_, checkpoints).status());
    result_.selected_iteration = result_.iterations;
    if (!result_.converged) {
      // §5.2: without convergence the paper keeps the pair (Θ(t), Γ(t)), t >= 1, of highest G(Θ|Γ).
      Result<double> last = GenerativeAtCurrent("choosing the pair of highest G after the last iteration");
      if (!last.ok()) return last.status();
      Consider(result_.iterations, *last);
      result_.selected_iteration = best_iteration_;
      if (best_iteration_ != result_.iterations) {
        result_.theta = std::move(best_theta_);
        result_.gamma = std::move(best_gamma_);
      }
      if (Status s = Report(HysolStep{best_iteration_, "select", 0, best_generative_, 0, 0, 0, result_.gamma}); !s.ok())
        return s;
    }
    return std::move(result_);
  }

 private:
  // Θ(0), Γ(0), and Σ_m log Z_i(x_m) per expert: the Θ-independent part of G, so G is comparable
  // across Γ.
  Status Start() {
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(models_ - experts_n_);
    result_.theta = MaximizeGenerativeInPlace(ObservedCounts(labeled_, vocabulary_sizes_), ones, options_.eta_prime);
    const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(models_, 1.0 / static_cast<double>(models_));
    const double at_uniform = HeldoutObjective(heldout_, experts_, result_.theta, uniform, options_);
    Result<CombinationFit> fit = FitCombinationWeights(heldout_, experts_, result_.theta, uniform, options_.xi_prime,
                                                       options_.threads, options_.processes);
    if (!fit.ok()) return fit.status();
    result_.gamma = fit->gamma;
    if (Status s = Report(HysolStep{0, "gamma", 0, 0, at_uniform, fit->objective, 0, result_.gamma}); !s.ok()) return s;
    Result<Eigen::VectorXd> log_partitions = ExpertLogPartitions(unlabeled_, experts_, options_.threads);
    if (!log_partitions.ok()) return log_partitions.status().Annotate("HySOL: the experts' log-partitions");
    log_partitions_ = std::move(log_partitions).value();
    return Status();
  }

  // The state between outer iterations (KernelCheckpoints); counts_ is scratch of the next E-step.
  // Θ and the best Θ are views: valid until the caller of the offer returns, as the engine needs.
  StateTable<HysolProcedure> StateOf() const {
    using P = HysolProcedure;
    // The best Θ, when one was kept: a flag, then Θ.
    auto save_best = [](const P& p, StatePieces& out) {
      out.writer().U8(p.best_theta_.num_models() > 0 ? 1 : 0);
      if (p.best_theta_.num_models() > 0) SaveTheta(out, p.best_theta_);
    };
    auto load_best = [](P& p, StateIn& in) { return in.U8() == 0 || LoadTheta(in, p.best_theta_); };
    return StateTable<P>("HySOL")
        .I64(At(&P::result_, &HysolResult::iterations))
        .Custom([](const P& p, StatePieces& out) { SaveTheta(out, p.result_.theta); },
                [](P& p, StateIn& in) { return LoadTheta(in, p.result_.theta); })
        .Doubles(At(&P::result_, &HysolResult::gamma))
        .Doubles(&P::log_partitions_)
        .I64(&P::best_iteration_)
        .F64(&P::best_generative_)
        .Custom(save_best, load_best)
        .Doubles(&P::best_gamma_)
        .Records(At(&P::result_, &HysolResult::trace), StepTable())
        .Check([](const P& p) {
          // The shape Θ must have: the start's, without estimating it.
          const GenerativeParams like = MaximizeGenerativeInPlace(
              ObservedCounts(p.labeled_, p.vocabulary_sizes_), Eigen::VectorXd::Ones(p.models_ - p.experts_n_),
              p.options_.eta_prime);
          return p.result_.iterations >= 1 && SameShape(p.result_.theta, like) && p.result_.gamma.size() == p.models_ &&
                 p.log_partitions_.size() == p.experts_n_ &&
                 (p.best_theta_.num_models() == 0 || SameShape(p.best_theta_, like));
        });
  }

  // Steps 4.1 and 4.2 of outer iteration t; true when Θ has settled.
  // The first E-step of iteration t + 1 evaluates G at the pair iteration t ended with; Θ(t) is
  // then also iteration t + 1's `previous`, which is moved (not copied) into best_theta_ once the
  // stopping rule has used it. The old best is released as soon as it is beaten.
  // At most three Θ-sized tables are alive in an E-step (Θ, the counts, and `previous` or the
  // best): each M-step turns the counts into the next Θ in place, and the Θ it replaces becomes
  // the next E-step's counts (or `previous`, after the first).
  Result<bool> Iteration(int t) {
    GenerativeParams previous;
    const Eigen::VectorXd generative_gamma = result_.gamma.tail(models_ - experts_n_);
    double last = -std::numeric_limits<double>::infinity();
    bool previous_is_best = false;
    for (int e = 1; e <= options_.em_iterations; ++e) {
      Result<double> generative = GenerativeAtCurrent(fmt::format("step 4.1 (iteration {}, EM iteration {})", t, e));
      if (!generative.ok()) return generative.status();
      if (e == 1) previous_is_best = Consider(t - 1, *generative);
      if (Status s = Report(HysolStep{t, "em", e, *generative, 0, 0, 0, result_.gamma}); !s.ok()) return s;
      if (e > 1 && *generative - last <= options_.em_tolerance * std::abs(*generative)) break;
      last = *generative;
      GenerativeParams next = MaximizeGenerativeInPlace(std::move(counts_), generative_gamma, options_.eta_prime);
      if (e == 1) {
        previous = std::move(result_.theta);
      } else {
        counts_.emission = std::move(result_.theta.log_emission);
      }
      result_.theta = std::move(next);
    }
    const double change = RelativeParamChange(result_.theta, previous);
    if (previous_is_best) best_theta_ = std::move(previous);
    previous = GenerativeParams();
    const double before = HeldoutObjective(heldout_, experts_, result_.theta, result_.gamma, options_);
    Result<CombinationFit> fit = FitCombinationWeights(heldout_, experts_, result_.theta, result_.gamma,
                                                       options_.xi_prime, options_.threads, options_.processes);
    if (!fit.ok()) return fit.status();
    result_.gamma = fit->gamma;
    result_.iterations = t;
    if (Status s = Report(HysolStep{t, "gamma", 0, 0, before, fit->objective, change, result_.gamma}); !s.ok())
      return s;
    return change < options_.tolerance;
  }

  // G(Θ|Γ) of Eq. 4 at the current pair; leaves the E-step's expected counts in counts_.
  Result<double> GenerativeAtCurrent(const std::string& where) {
    const double chain = HybridExpectedCounts(unlabeled_, experts_, result_.theta, result_.gamma, options_.threads,
                                              counts_, options_.processes);
    const double generative = chain - result_.gamma.head(experts_n_).dot(log_partitions_) +
                              GenerativeLogPrior(result_.theta, options_.eta_prime);
    if (!std::isfinite(generative)) return Status::Numerical(fmt::format("HySOL {}: G(Θ|Γ) is {}", where, generative));
    return generative;
  }

  bool Consider(int t, double generative) {
    if (t < 1 || generative <= best_generative_) return false;
    best_iteration_ = t;
    best_generative_ = generative;
    best_theta_ = GenerativeParams();
    best_gamma_ = result_.gamma;
    return true;
  }

  Status Report(HysolStep step) {
    if (step.step == "gamma" && options_.score) {
      Result<double> score = options_.score(result_.theta, result_.gamma);
      if (!score.ok()) return score.status().Annotate(fmt::format("HySOL: scoring iteration {}", step.iteration));
      step.score = *score;
    }
    result_.trace.push_back(std::move(step));
    if (progress_) progress_(result_.trace.back());
    return cancel_.Check("HySOL training");
  }

  const HybridCorpus& labeled_;
  const HybridCorpus& heldout_;
  const UnlabeledHybrid& unlabeled_;
  const ExpertTransitions& experts_;
  const std::vector<int64_t>& vocabulary_sizes_;
  const HysolOptions& options_;
  const HysolProgress& progress_;
  const CancelToken& cancel_;
  const Eigen::Index experts_n_;
  const Eigen::Index models_;

  HysolResult result_;
  Eigen::VectorXd log_partitions_;
  GenerativeCounts counts_;
  int best_iteration_ = 0;
  double best_generative_ = -std::numeric_limits<double>::infinity();
  GenerativeParams best_theta_;
  Eigen::VectorXd best_gamma_;
};

}  // namespace

Result<HysolResult> TrainHysol(const HybridCorpus& labeled, const HybridCorpus& heldout,
                               const UnlabeledHybrid& unlabeled, const ExpertTransitions& experts,
                               const std::vector<int64_t>& vocabulary_sizes, const HysolOptions& options,
                               const HysolProgress& progress, const CancelToken& cancel,
                               const KernelCheckpoints& checkpoints) {
  return HysolProcedure(labeled, heldout, unlabeled, experts, vocabulary_sizes, options, progress, cancel)
      .Run(checkpoints);
}

}  // namespace seqflow
