// Fitting the hybrid model (hysol_train.h) and the crf.lop / crf.hysol nodes: Γ by Eq. 3 checked
// against the KKT conditions of the box-constrained problem, and the Figure 1 loop of Suzuki,
// Fujino & Isozaki (2007) on data generated from a known HMM, checked for what the procedure
// guarantees (EM never lowers G(Θ|Γ), the Γ fit never lowers Eq. 3, the stopping rule, the pair
// of highest G kept without convergence (§5.2), thread invariance, cancellation and numerical
// errors).
#include "nodes/crf/hysol_train.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "nodes/crf/crf_likelihood.h"
#include "nodes/crf/crf_train.h"
#include "nodes/crf/hybrid_model.h"
#include "nodes/crf/hybrid_nodes.h"
#include "tests/nodes/crf/hybrid_blocks.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/state_fingerprint.h"

namespace seqflow {
namespace hysol_train_test {

using ::testing::HasSubstr;

// The CRF options these tests were written against: L-BFGS with 6 correction pairs in double
// precision (the defaults before LbfgsOptions took crf.train's 4 in single precision).
CrfTrainOptions ClassicCrfOptions() {
  CrfTrainOptions o;
  o.lbfgs.memory = 6;
  o.lbfgs.float_history = false;
  return o;
}

constexpr int kK = 3, kJ = 2, kV = 6;  // labels, feature types, symbols per type (0 = unseen, never drawn)

// The generating HMM: sticky labels; each feature type emits symbols 1..5, label k favouring two
// of them, so one type alone is ambiguous and the two together (and the context) tell more.
struct TrueHmm {
  Eigen::VectorXd initial = Eigen::VectorXd::Constant(kK, 1.0 / kK);
  RowMatrixXd transition = RowMatrixXd::Constant(kK, kK, 0.1);
  std::vector<RowMatrixXd> emission;  // [J] K x V, rows sum to 1, column 0 zero
  TrueHmm() {
    transition.diagonal().setConstant(0.8);
    for (int j = 0; j < kJ; ++j) {
      RowMatrixXd e = RowMatrixXd::Zero(kK, kV);
      for (int k = 0; k < kK; ++k) {
        e.row(k).tail(kV - 1).setConstant(0.05);
        e(k, 1 + (k + j) % (kV - 1)) += 0.4;
        e(k, 1 + (k + j + 1) % (kV - 1)) += 0.4;
        e.row(k) /= e.row(k).sum();
      }
      emission.push_back(e);
    }
  }
};

struct Sample {
  std::vector<int64_t> offsets{0};
  RowMatrixXi symbols;          // tokens x J
  std::vector<int32_t> labels;  // tokens
  size_t size() const { return offsets.size() - 1; }
};

int Draw(const Eigen::Ref<const Eigen::RowVectorXd>& p, std::mt19937& rng) {
  std::discrete_distribution<int> d(p.data(), p.data() + p.size());
  return d(rng);
}

Sample Generate(const TrueHmm& hmm, int sentences, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> length(3, 9);
  Sample s;
  std::vector<std::array<int32_t, kJ>> symbols;
  for (int n = 0; n < sentences; ++n) {
    const int len = length(rng);
    int y = Draw(hmm.initial.transpose(), rng);
    for (int t = 0; t < len; ++t) {
      if (t > 0) y = Draw(hmm.transition.row(y), rng);
      s.labels.push_back(y);
      std::array<int32_t, kJ> x{};
      for (int j = 0; j < kJ; ++j) x[j] = Draw(hmm.emission[j].row(y), rng);
      symbols.push_back(x);
    }
    s.offsets.push_back(s.offsets.back() + len);
  }
  s.symbols.resize(static_cast<Eigen::Index>(symbols.size()), kJ);
  for (size_t t = 0; t < symbols.size(); ++t)
    for (int j = 0; j < kJ; ++j) s.symbols(static_cast<Eigen::Index>(t), j) = symbols[t][j];
  return s;
}

// Expert i's input: one attribute per token, the symbol of feature type i.
std::vector<SentenceFeatures> ExpertFeatures(const Sample& s, int type) {
  std::vector<SentenceFeatures> out(s.size());
  for (size_t n = 0; n < s.size(); ++n) {
    out[n].offsets.push_back(0);
    for (int64_t t = s.offsets[n]; t < s.offsets[n + 1]; ++t) {
      out[n].ids.push_back(s.symbols(t, type));
      out[n].offsets.push_back(static_cast<int32_t>(out[n].ids.size()));
    }
  }
  return out;
}

std::vector<std::vector<int32_t>> SentenceLabels(const Sample& s) {
  std::vector<std::vector<int32_t>> out(s.size());
  for (size_t n = 0; n < s.size(); ++n)
    out[n].assign(s.labels.begin() + s.offsets[n], s.labels.begin() + s.offsets[n + 1]);
  return out;
}

struct Problem {
  HybridCorpus labeled, heldout, unlabeled;
  ExpertTransitions experts;
  std::vector<Eigen::VectorXd> weights;  // [I] CrfLayout{kV, kK}
  std::vector<int64_t> vocabulary = std::vector<int64_t>(kJ, kV);
};

HybridCorpus ToHybrid(const Sample& s, const std::vector<Eigen::VectorXd>& weights, bool labeled) {
  const CrfLayout layout{kV, kK};
  HybridCorpus c;
  c.num_labels = kK;
  c.offsets = s.offsets;
  c.symbols = s.symbols;
  if (labeled) c.labels = s.labels;
  for (size_t i = 0; i < weights.size(); ++i) {
    RowMatrixXf scores(c.num_tokens(), kK);
    const std::vector<SentenceFeatures> features = ExpertFeatures(s, static_cast<int>(i));
    RowMatrixXd sentence;
    for (size_t n = 0; n < s.size(); ++n) {
      CrfScores(weights[i], layout, features[n], sentence);
      scores.middleRows(s.offsets[n], sentence.rows()) = sentence.cast<float>();
    }
    c.expert_scores.push_back(scores);
  }
  return c;
}

// Two weak CRF experts (one feature type each, 12 labeled sentences, a strong prior), a held-out
// set and unlabeled text, all drawn from TrueHmm.
Problem MakeProblem(int heldout_sentences = 80, int unlabeled_sentences = 200) {
  const TrueHmm hmm;
  const Sample labeled = Generate(hmm, 12, 1), heldout = Generate(hmm, heldout_sentences, 2),
               unlabeled = Generate(hmm, unlabeled_sentences, 3);
  Problem p;
  CrfTrainOptions options = ClassicCrfOptions();
  options.sigma2 = 0.5;
  for (int i = 0; i < kJ; ++i) {
    const CrfTrainResult r =
        ValueOrThrow(TrainCrf(ExpertFeatures(labeled, i), SentenceLabels(labeled), kV, kK, options));
    p.weights.push_back(r.weights);
    p.experts.push_back(CrfTransition(r.weights, CrfLayout{kV, kK}));
  }
  p.labeled = ToHybrid(labeled, p.weights, true);
  p.heldout = ToHybrid(heldout, p.weights, true);
  p.unlabeled = ToHybrid(unlabeled, p.weights, false);
  return p;
}

// ---------------------------------------------------------------------------------------------
// FitCombinationWeights

// L(γ) = Σ log R + ξ' Σ log γ and its gradient.
double Objective(const Problem& p, const GenerativeParams& theta, const Eigen::VectorXd& gamma, double xi_prime,
                 Eigen::VectorXd* gradient) {
  double value = HybridConditionalLogLikelihood(p.heldout, p.experts, theta, gamma, 1, gradient);
  if (xi_prime > 0) {
    value += xi_prime * gamma.array().log().sum();
    if (gradient) gradient->array() += xi_prime / gamma.array();
  }
  return value;
}

// A third expert that is pure noise, and the first one shrunk to a fifth of its strength, so the
// optimum has γ on both faces of the box as well as inside it.
Problem KktProblem() {
  Problem p = MakeProblem(60, 0);
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0, 1);
  for (HybridCorpus* c : {&p.heldout, &p.labeled}) {
    c->expert_scores[0] *= 0.2f;
    RowMatrixXf noise(c->num_tokens(), kK);
    for (Eigen::Index e = 0; e < noise.size(); ++e) noise.data()[e] = static_cast<float>(normal(rng));
    c->expert_scores.push_back(noise);
  }
  p.experts[0] *= 0.2;
  RowMatrixXd noise(kK, kK);
  for (Eigen::Index e = 0; e < noise.size(); ++e) noise.data()[e] = normal(rng);
  p.experts.push_back(noise);
  return p;
}

TEST(FitCombinationWeights, SatisfiesTheKktConditionsOfTheBoxProblem) {
  const Problem p = KktProblem();
  const GenerativeParams theta =
      MaximizeGenerative(ObservedCounts(p.labeled, p.vocabulary), Eigen::VectorXd::Ones(kJ), 1e-2);
  const Eigen::Index models = 3 + kJ;
  for (const double xi_prime : {0.0, 1.0}) {
    SCOPED_TRACE("xi' = " + std::to_string(xi_prime));
    const CombinationFit fit = ValueOrThrow(
        FitCombinationWeights(p.heldout, p.experts, theta, Eigen::VectorXd::Constant(models, 0.2), xi_prime, 2));
    Eigen::VectorXd gradient;
    const double value = Objective(p, theta, fit.gamma, xi_prime, &gradient);
    EXPECT_NEAR(fit.objective, value, 1e-9 * std::abs(value));
    int on_bounds = 0;
    for (Eigen::Index m = 0; m < models; ++m) {
      const double g = fit.gamma(m), d = gradient(m);
      ASSERT_GE(g, 0.0);
      ASSERT_LE(g, 1.0);
      if (g <= 1e-9) {
        EXPECT_LE(d, 1e-4) << "at γ_" << m << " = 0 the objective must not rise inward";
        ++on_bounds;
      } else if (g >= 1 - 1e-9) {
        EXPECT_GE(d, -1e-4) << "at γ_" << m << " = 1 the objective must not rise inward";
        ++on_bounds;
      } else {
        EXPECT_NEAR(d, 0.0, 1e-3) << "γ_" << m << " = " << g << " is inside the box";
      }
      // No feasible step along one coordinate improves on the fit by more than round-off.
      for (const double step : {-1e-3, 1e-3}) {
        Eigen::VectorXd moved = fit.gamma;
        moved(m) = std::clamp(moved(m) + step, 0.0, 1.0);
        if (moved(m) == fit.gamma(m) || (xi_prime > 0 && moved(m) == 0)) continue;
        EXPECT_LE(Objective(p, theta, moved, xi_prime, nullptr), value + 1e-7 * std::abs(value)) << m << " " << step;
      }
    }
    if (xi_prime == 0) {
      EXPECT_GE(on_bounds, 1) << "the problem is meant to exercise the bound conditions: " << fit.gamma.transpose();
    } else {
      EXPECT_GT(fit.gamma.minCoeff(), 0.0) << "the prior ξ' Σ log γ keeps every weight off 0";
    }
  }
}

TEST(FitCombinationWeights, NonFiniteObjectiveIsNumerical) {
  Problem p = MakeProblem(20, 0);
  p.heldout.expert_scores[1](4, 2) = std::numeric_limits<float>::quiet_NaN();
  const GenerativeParams theta =
      MaximizeGenerative(ObservedCounts(p.labeled, p.vocabulary), Eigen::VectorXd::Ones(kJ), 1e-2);
  const Result<CombinationFit> fit =
      FitCombinationWeights(p.heldout, p.experts, theta, Eigen::VectorXd::Constant(4, 0.25), 1.0, 1);
  EXPECT_EQ(fit.status().code(), StatusCode::kNumerical);
}

// ---------------------------------------------------------------------------------------------
// TrainHysol

HysolOptions TestOptions() {
  HysolOptions o;
  o.xi_prime = 1.0;
  o.eta_prime = 1e-2;
  o.max_iterations = 6;
  o.tolerance = 1e-3;
  o.em_iterations = 8;
  o.em_tolerance = 1e-7;
  o.threads = 1;
  return o;
}

Result<HysolResult> TryTrain(const Problem& p, const HysolOptions& o, const HysolProgress& progress = nullptr,
                             const CancelToken& cancel = {}) {
  return TrainHysol(p.labeled, p.heldout, p.unlabeled, p.experts, p.vocabulary, o, progress, cancel);
}

HysolResult Train(const Problem& p, const HysolOptions& o, const HysolProgress& progress = nullptr) {
  return ValueOrThrow(TryTrain(p, o, progress));
}

// The G(Θ(t)|Γ(t)) the trace holds for t = 1..T-1: the first E-step of iteration t + 1 starts there.
std::map<int, double> PairObjectives(const HysolResult& r) {
  std::map<int, double> out;
  for (const HysolStep& step : r.trace)
    if (step.step == "em" && step.em_iteration == 1 && step.iteration > 1) out[step.iteration - 1] = step.generative;
  return out;
}

// The trace's shape, the monotonicity Figure 1 guarantees, and the pair returned: the last one
// when Θ settled, else the one of highest G(Θ|Γ) (§5.2).
void CheckTrace(const HysolResult& r, const HysolOptions& o) {
  ASSERT_FALSE(r.trace.empty());
  EXPECT_EQ(r.trace[0].iteration, 0);
  EXPECT_EQ(r.trace[0].step, "gamma");
  const bool selected = r.trace.back().step == "select";
  EXPECT_EQ(selected, !r.converged);
  const size_t fits_end = r.trace.size() - (selected ? 1 : 0);
  int t = 0;
  double last_em = 0;
  int em_rows = 0;
  std::map<int, Eigen::VectorXd> fitted_gamma;
  for (size_t s = 1; s < fits_end; ++s) {
    const HysolStep& step = r.trace[s];
    if (step.step == "em") {
      if (em_rows == 0) ++t;
      EXPECT_EQ(step.iteration, t) << "row " << s;
      EXPECT_EQ(step.em_iteration, em_rows + 1) << "row " << s;
      EXPECT_LE(step.em_iteration, o.em_iterations);
      ASSERT_TRUE(std::isfinite(step.generative));
      if (em_rows > 0) {
        EXPECT_GE(step.generative, last_em - 1e-9 * std::abs(step.generative))
            << "EM lowered G(Θ|Γ) in iteration " << t << " at EM iteration " << step.em_iteration;
      }
      last_em = step.generative;
      ++em_rows;
      continue;
    }
    ASSERT_EQ(step.step, "gamma") << "row " << s;
    EXPECT_EQ(step.iteration, t) << "row " << s;
    EXPECT_GE(em_rows, 1) << "a Γ step without a Θ step before it";
    em_rows = 0;
    EXPECT_GE(step.heldout, step.heldout_before - 1e-9 * std::abs(step.heldout))
        << "the Γ fit lowered Eq. 3 in iteration " << t;
    if (s + 1 < fits_end) {
      EXPECT_GE(step.theta_change, o.tolerance) << "did not stop although Θ changed little, iteration " << t;
    }
    EXPECT_GE(step.gamma.minCoeff(), 0.0);
    EXPECT_LE(step.gamma.maxCoeff(), 1.0);
    fitted_gamma[t] = step.gamma;
  }
  const HysolStep& end = r.trace[fits_end - 1];
  ASSERT_EQ(end.step, "gamma");
  EXPECT_EQ(r.iterations, end.iteration);
  if (r.converged) {
    EXPECT_LT(end.theta_change, o.tolerance);
    EXPECT_EQ(r.selected_iteration, r.iterations);
    EXPECT_EQ(r.gamma, end.gamma);
    return;
  }
  EXPECT_EQ(r.iterations, o.max_iterations);
  EXPECT_GE(end.theta_change, o.tolerance);
  const HysolStep& select = r.trace.back();
  EXPECT_EQ(select.iteration, r.selected_iteration);
  ASSERT_GE(r.selected_iteration, 1);
  ASSERT_LE(r.selected_iteration, r.iterations);
  EXPECT_EQ(r.gamma, fitted_gamma.at(r.selected_iteration)) << "Γ is not the one fitted in the selected iteration";
  for (const auto& [pair, generative] : PairObjectives(r)) {
    EXPECT_LE(generative, select.generative) << "pair " << pair << " has a higher G than the selected one";
    if (pair == r.selected_iteration) {
      EXPECT_EQ(generative, select.generative);
    }
  }
}

TEST(TrainHysol, TraceIsMonotoneAndStopsByTheRule) {
  const Problem p = MakeProblem();
  const HysolOptions o = TestOptions();
  const HysolResult r = Train(p, o);
  CheckTrace(r, o);
  EXPECT_EQ(r.gamma.size(), 2 + kJ);
  EXPECT_EQ(r.theta.num_models(), kJ);
  for (int j = 0; j < kJ; ++j) {  // Θ stays a set of distributions
    EXPECT_NEAR(r.theta.log_initial[j].array().exp().sum(), 1.0, 1e-12);
    EXPECT_LT((r.theta.log_transition[j].array().exp().rowwise().sum() - 1).abs().maxCoeff(), 1e-12);
    EXPECT_LT((r.theta.log_emission[j].array().exp().colwise().sum() - 1).abs().maxCoeff(), 1e-12);
  }
}

TEST(TrainHysol, StopsWhenThetaSettlesOrAtMaxIterations) {
  const Problem p = MakeProblem();
  HysolOptions loose = TestOptions();
  loose.tolerance = 10;  // any change is below it: stop after the first alternation
  const HysolResult first = Train(p, loose);
  CheckTrace(first, loose);
  EXPECT_TRUE(first.converged);
  EXPECT_EQ(first.iterations, 1);

  HysolOptions never = TestOptions();
  never.tolerance = 0;  // nothing is below 0
  never.max_iterations = 3;
  const HysolResult capped = Train(p, never);
  CheckTrace(capped, never);
  EXPECT_FALSE(capped.converged);
  EXPECT_EQ(capped.iterations, 3);

  HysolOptions no_prior = TestOptions();  // ξ' = 0 allows γ on the face 0
  no_prior.xi_prime = 0;
  CheckTrace(Train(p, no_prior), no_prior);
}

// G(Θ|Γ) recomputed from the kernels at the pair a run returned.
double GenerativeObjective(const Problem& p, const HysolResult& r, double eta_prime) {
  GenerativeCounts counts;
  double value = HybridExpectedCounts(p.unlabeled, p.experts, r.theta, r.gamma, 1, counts);
  for (int i = 0; i < static_cast<int>(p.experts.size()); ++i)
    value -= r.gamma(i) * ExpertLogPartition(p.unlabeled, p.experts[i], i, 1);
  return value + GenerativeLogPrior(r.theta, eta_prime);
}

TEST(TrainHysol, WithoutConvergenceReturnsThePairOfHighestG) {
  // Few held-out sentences: Γ moves the weights about, and G(Θ(t)|Γ(t)) is highest early on.
  const Problem p = MakeProblem(5, 30);
  HysolOptions o = TestOptions();
  o.xi_prime = 0.1;
  o.tolerance = 0;  // never settles
  o.max_iterations = 5;
  o.em_iterations = 3;
  const HysolResult r = Train(p, o);
  CheckTrace(r, o);
  ASSERT_FALSE(r.converged);
  EXPECT_LT(r.selected_iteration, r.iterations) << "this problem's G peaks before the last alternation";
  EXPECT_NEAR(GenerativeObjective(p, r, o.eta_prime), r.trace.back().generative,
              1e-9 * std::abs(r.trace.back().generative))
      << "the returned (Θ, Γ) is not the selected pair";

  // Here G still rises at the last alternation, so the last pair is the one kept.
  const Problem rising = MakeProblem();
  o = TestOptions();
  o.tolerance = 0;
  o.max_iterations = 4;
  o.em_iterations = 1;
  const HysolResult last = Train(rising, o);
  CheckTrace(last, o);
  EXPECT_EQ(last.selected_iteration, last.iterations);
  EXPECT_GT(last.trace.back().generative, PairObjectives(last).rbegin()->second);
  EXPECT_NEAR(GenerativeObjective(rising, last, o.eta_prime), last.trace.back().generative,
              1e-9 * std::abs(last.trace.back().generative));
}

void ExpectSameBits(const HysolResult& a, const HysolResult& b) {
  EXPECT_EQ(a.gamma, b.gamma);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.converged, b.converged);
  ASSERT_EQ(a.theta.num_models(), b.theta.num_models());
  for (int j = 0; j < a.theta.num_models(); ++j) {
    EXPECT_EQ(a.theta.log_initial[j], b.theta.log_initial[j]);
    EXPECT_EQ(a.theta.log_transition[j], b.theta.log_transition[j]);
    EXPECT_EQ(a.theta.log_emission[j], b.theta.log_emission[j]);
  }
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (size_t s = 0; s < a.trace.size(); ++s) {
    EXPECT_EQ(a.trace[s].generative, b.trace[s].generative) << s;
    EXPECT_EQ(a.trace[s].heldout_before, b.trace[s].heldout_before) << s;
    EXPECT_EQ(a.trace[s].heldout, b.trace[s].heldout) << s;
    EXPECT_EQ(a.trace[s].theta_change, b.trace[s].theta_change) << s;
    EXPECT_EQ(a.trace[s].gamma, b.trace[s].gamma) << s;
    EXPECT_TRUE(a.trace[s].score == b.trace[s].score || (std::isnan(a.trace[s].score) && std::isnan(b.trace[s].score)))
        << s;
  }
}

// A score of the pair (Θ, Γ) that changes with both.
double PairScore(const GenerativeParams& theta, const Eigen::VectorXd& gamma) {
  return theta.log_emission[0].sum() + gamma.sum();
}

TEST(TrainHysol, BitIdenticalForAnyThreadCount) {
  const Problem p = MakeProblem(150, 300);  // several 64-sentence shards in every pass
  HysolOptions o = TestOptions();
  o.max_iterations = 3;
  const HysolResult one = Train(p, o);
  for (int threads : {2, 4}) {
    o.threads = threads;
    SCOPED_TRACE(std::to_string(threads) + " threads");
    ExpectSameBits(Train(p, o), one);
  }
}

// The unlabeled text streamed in blocks (two of them here), as crf.hysol's stream_unlabeled runs it: the bits of
// the resident corpus, and a block that cannot be built ends the procedure with its Status.
TEST(TrainHysol, StreamedUnlabeledTextGivesTheResidentBits) {
  const Problem p = MakeProblem(80, static_cast<int>(kHybridBlockSentences) + 200);
  HysolOptions o = TestOptions();
  o.max_iterations = 2, o.em_iterations = 3, o.threads = 2;
  size_t builds = 0;
  const HysolResult streamed = ValueOrThrow(
      TrainHysol(p.labeled, p.heldout, testutil::Streamed(p.unlabeled, &builds), p.experts, p.vocabulary, o, nullptr));
  ExpectSameBits(streamed, Train(p, o));
  size_t passes = 1;  // the experts' log-partitions
  for (const HysolStep& step : streamed.trace) passes += step.step == "em" ? 1 : 0;
  if (!streamed.converged) ++passes;  // G of the last pair
  EXPECT_EQ(builds, 2 * passes);

  const UnlabeledHybrid broken(p.unlabeled.num_sentences(), [](size_t, size_t) -> Result<HybridCorpus> {
    return Status::Invalid("no column 'pos'");
  });
  const Result<HysolResult> failed = TrainHysol(p.labeled, p.heldout, broken, p.experts, p.vocabulary, o, nullptr);
  EXPECT_EQ(failed.status().code(), StatusCode::kInvalid);
}

// Checkpoints between outer alternations: resumed from the state after every iteration, with and
// without convergence (the best pair so far is part of the state), the same bits.
TEST(TrainHysol, ResumingAfterAnyIterationGivesTheUninterruptedBits) {
  const Problem p = MakeProblem(5, 30);
  HysolOptions converging = TestOptions(), selecting = TestOptions();
  selecting.xi_prime = 0.1, selecting.tolerance = 0, selecting.max_iterations = 5, selecting.em_iterations = 3;
  // The scores of the iterations before the state are part of it.
  converging.score = selecting.score = [](const GenerativeParams& theta, const Eigen::VectorXd& gamma) -> Result<double> {
    return PairScore(theta, gamma);
  };
  for (const HysolOptions& o : {converging, selecting}) {
    std::vector<std::string> states;
    KernelCheckpoints keep;
    keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
    const HysolResult whole =
        ValueOrThrow(TrainHysol(p.labeled, p.heldout, p.unlabeled, p.experts, p.vocabulary, o, nullptr, {}, keep));
    ASSERT_GE(states.size(), 2u);
    for (size_t t = 0; t < states.size(); ++t) {
      SCOPED_TRACE("resumed after iteration " + std::to_string(t + 1) + (o.tolerance == 0 ? ", selecting" : ""));
      KernelCheckpoints from;
      from.resume_from = &states[t];
      size_t steps = 0;
      const HysolResult resumed = ValueOrThrow(TrainHysol(p.labeled, p.heldout, p.unlabeled, p.experts, p.vocabulary,
                                                          o, [&](const HysolStep&) { ++steps; }, {}, from));
      ExpectSameBits(resumed, whole);
      EXPECT_EQ(resumed.selected_iteration, whole.selected_iteration);
      EXPECT_LT(steps, whole.trace.size()) << "only the steps after the state's are reported";
    }
    const std::string truncated = states.front().substr(0, states.front().size() / 2);
    KernelCheckpoints damaged;
    damaged.resume_from = &truncated;
    EXPECT_EQ(TrainHysol(p.labeled, p.heldout, p.unlabeled, p.experts, p.vocabulary, o, nullptr, {}, damaged)
                  .status()
                  .code(),
              StatusCode::kInvalid);
  }
}

// The paper's Fig. 2 scores every Γ step's pair (Θ(t), Γ(t)): the selected iteration's is the
// returned pair's; EM steps get no score; a failing score ends the procedure with its error.
TEST(TrainHysol, ScoresEveryGammaStepAtItsPair) {
  const Problem p = MakeProblem(5, 30);
  HysolOptions o = TestOptions();
  int calls = 0;
  o.score = [&](const GenerativeParams& theta, const Eigen::VectorXd& gamma) -> Result<double> {
    ++calls;
    return PairScore(theta, gamma);
  };
  const HysolResult r = Train(p, o);
  int gamma_steps = 0;
  for (const HysolStep& step : r.trace) {
    gamma_steps += step.step == "gamma";
    EXPECT_EQ(std::isfinite(step.score), step.step == "gamma") << step.step << " " << step.iteration;
  }
  EXPECT_EQ(calls, gamma_steps);
  EXPECT_EQ(gamma_steps, r.iterations + 1) << "the start and every outer iteration";
  const auto selected = std::find_if(r.trace.begin(), r.trace.end(), [&](const HysolStep& step) {
    return step.step == "gamma" && step.iteration == r.selected_iteration;
  });
  ASSERT_NE(selected, r.trace.end());
  EXPECT_EQ(selected->score, PairScore(r.theta, r.gamma));
  o.score = [](const GenerativeParams&, const Eigen::VectorXd&) -> Result<double> {
    return Status::Invalid("no such label");
  };
  const Result<HysolResult> failed = TryTrain(p, o);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().ToString().find("scoring iteration 0"), std::string::npos) << failed.status().ToString();
}

// crf.hysol offers its state in pieces, Θ and the best Θ as views of the tables, so a save copies
// none of them (the resume test above resumes from these pieces joined).
TEST(TrainHysol, OffersItsStateWithEachThetaTableAPieceOfItsOwn) {
  const Problem p = MakeProblem(5, 30);
  HysolOptions o = TestOptions();
  o.xi_prime = 0.1, o.tolerance = 0, o.max_iterations = 4, o.em_iterations = 3;
  int offers = 0;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) {
    StatePieces state = encode();
    // Each of Θ's 3 J tables, for Θ and the best Θ, is a piece of its own, between owned bytes.
    EXPECT_GT(state.Pieces().size(), static_cast<size_t>(2 * 3 * kJ));
    ++offers;
  };
  ValueOrThrow(TrainHysol(p.labeled, p.heldout, p.unlabeled, p.experts, p.vocabulary, o, nullptr, {}, keep));
  EXPECT_GE(offers, 2);
}

TEST(TrainHysol, ProgressSeesEveryStepAndCancellationStopsAfterTheStep) {
  const Problem p = MakeProblem();
  const HysolOptions o = TestOptions();
  size_t calls = 0;
  const HysolResult r = Train(p, o, [&](const HysolStep&) { ++calls; });
  EXPECT_EQ(calls, r.trace.size());

  for (const size_t stop_at : {size_t{1}, size_t{3}}) {
    size_t seen = 0;
    std::atomic<bool> stop{false};
    const Result<HysolResult> cancelled = TryTrain(
        p, o, [&](const HysolStep&) { stop = ++seen == stop_at; }, CancelToken(&stop));
    EXPECT_EQ(cancelled.status().code(), StatusCode::kCancelled);
    EXPECT_EQ(seen, stop_at) << "no step may be reported after the cancel";
  }
}

StatusCode TrainCode(const Problem& p) { return TryTrain(p, TestOptions()).status().code(); }

TEST(TrainHysol, NanExpertScoreIsNumericalNotAResult) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  {
    Problem p = MakeProblem(40, 60);
    p.heldout.expert_scores[0](7, 1) = nan;
    EXPECT_EQ(TrainCode(p), StatusCode::kNumerical) << "NaN in the held-out data";
  }
  {
    Problem p = MakeProblem(40, 60);
    p.unlabeled.expert_scores[1](11, 0) = nan;
    EXPECT_EQ(TrainCode(p), StatusCode::kNumerical) << "NaN in the unlabeled data";
  }
  {
    Problem p = MakeProblem(40, 60);
    p.experts[1](2, 2) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(TrainCode(p), StatusCode::kNumerical) << "NaN in an expert's transitions";
  }
}

// ---------------------------------------------------------------------------------------------
// crf.lop and crf.hysol

const std::vector<std::string> kLabelNames = {"B", "I", "O"};

std::shared_ptr<Corpus> ToCorpus(const Sample& s, bool labeled, std::string source) {
  auto c = std::make_shared<Corpus>();
  c->columns = {"word", "pos"};
  c->source = std::move(source);
  if (labeled) c->label_names = kLabelNames;
  for (size_t n = 0; n < s.size(); ++n) {
    Sentence sentence;
    sentence.cols.resize(2);
    for (int64_t t = s.offsets[n]; t < s.offsets[n + 1]; ++t) {
      sentence.cols[0].push_back("w" + std::to_string(s.symbols(t, 0)));
      sentence.cols[1].push_back("p" + std::to_string(s.symbols(t, 1)));
      if (labeled) sentence.labels.push_back(s.labels[t]);
    }
    c->sentences.push_back(std::move(sentence));
  }
  return c;
}

// A CRF over `templates` trained on `train`, labelled with `labels`.
std::shared_ptr<CrfModel> TrainExpert(const Corpus& train, std::vector<FeatureTemplate> templates,
                                      std::vector<std::string> labels = kLabelNames) {
  auto dictionary = std::make_shared<FeatureDictionary>(ValueOrThrow(FeatureDictionary::Compile(std::move(templates), train.columns)));
  ThrowIfError(dictionary->Fit(train, 1));
  std::vector<std::vector<int32_t>> gold;
  for (const Sentence& s : train.sentences) gold.push_back(s.labels);
  auto m = std::make_shared<CrfModel>();
  m->label_names = std::move(labels);
  m->encoding = TagEncoding::kIob2;
  m->dictionary = dictionary;
  m->weights = ValueOrThrow(TrainCrf(ValueOrThrow(dictionary->ExtractCorpus(train, 1)), gold, dictionary->num_attributes(),
                                     static_cast<int32_t>(m->label_names.size()), ClassicCrfOptions()))
                   .weights;
  return m;
}

struct NodeData {
  std::shared_ptr<Corpus> train, heldout, unlabeled;
  std::shared_ptr<CrfModel> words, tags;
};

NodeData MakeNodeData() {
  const TrueHmm hmm;
  NodeData d;
  d.train = ToCorpus(Generate(hmm, 15, 11), true, "mem://train");
  d.heldout = ToCorpus(Generate(hmm, 30, 12), true, "mem://heldout");
  d.unlabeled = ToCorpus(Generate(hmm, 80, 13), false, "mem://unlabeled");
  d.words = TrainExpert(*d.train, {{"w", "word[0]", "w"}});
  d.tags = TrainExpert(*d.train, {{"p", "pos[0]", "p"}, {"pp", "pos[-1]|pos[0]", "pp"}});
  return d;
}

const KindSpec& HybridKind(const std::string& name) {
  static const Registry* registry = [] {
    auto* r = new Registry;  // lives for the test binary
    RegisterHybridNodes(*r);
    return r;
  }();
  const KindSpec* kind = registry->FindKind(name);
  if (kind == nullptr) throw StatusError(Status::NotFound(name));
  return *kind;
}

std::map<std::string, ParamValue> SmallHysolParams() {
  return {{"set", std::string("none")},
          {"templates", std::vector<std::string>{"word[0]", "pos[0]"}},
          {"max_iterations", int64_t{3}},
          {"em_iterations", int64_t{5}}};
}

TEST(HybridNodes, LopReportsGammaPerExpert) {
  const NodeData d = MakeNodeData();
  testutil::FakeNodeContext ctx(HybridKind("crf.lop"), {}, 2);
  ctx.AddInput("experts", d.words);
  ctx.AddInput("experts", d.tags);
  ctx.SetInput("heldout", d.heldout);
  auto model = std::dynamic_pointer_cast<const HybridModel>(HybridKind("crf.lop").run(ctx));
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(model->gamma.size(), 2);
  EXPECT_EQ(model->theta.num_models(), 0);
  EXPECT_EQ(model->label_names, kLabelNames);
  EXPECT_EQ(ctx.metrics().at("gamma.crf1"), model->gamma(0));
  EXPECT_EQ(ctx.metrics().at("gamma.crf2"), model->gamma(1));
  EXPECT_EQ(ctx.metrics().count("gamma.hmm1"), 0u);
  EXPECT_TRUE(ctx.metrics().count("heldout_objective"));
  EXPECT_THAT(ctx.attachments().at("gamma.csv"), HasSubstr("model,kind,name,gamma\n1,crf,expert 1,"));

  // The node is the kernel: the same Γ from the same start and prior (ξ' = 0.1 by default).
  const HybridCorpus heldout = ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, kLabelNames, *d.heldout, true, 1));
  const CombinationFit fit = ValueOrThrow(FitCombinationWeights(heldout, model->expert_transitions(), model->theta,
                                                                Eigen::VectorXd::Constant(2, 0.5), 0.1, 1));
  EXPECT_EQ(model->gamma, fit.gamma);
}

TEST(HybridNodes, HysolReportsGammaPerExpertAndHmm) {
  const NodeData d = MakeNodeData();
  testutil::FakeNodeContext ctx(HybridKind("crf.hysol"), SmallHysolParams(), 2);
  ctx.AddInput("experts", d.words);
  ctx.AddInput("experts", d.tags);
  ctx.SetInput("train", d.train);
  ctx.SetInput("heldout", d.heldout);
  ctx.SetInput("unlabeled", d.unlabeled);
  auto model = std::dynamic_pointer_cast<const HybridModel>(HybridKind("crf.hysol").run(ctx));
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(model->theta.num_models(), 2);
  ASSERT_EQ(model->gamma.size(), 4);
  const auto& metrics = ctx.metrics();
  EXPECT_EQ(metrics.at("gamma.crf1"), model->gamma(0));
  EXPECT_EQ(metrics.at("gamma.crf2"), model->gamma(1));
  EXPECT_EQ(metrics.at("gamma.hmm1"), model->gamma(2));
  EXPECT_EQ(metrics.at("gamma.hmm2"), model->gamma(3));
  EXPECT_GE(metrics.at("iterations"), 1);
  EXPECT_LE(metrics.at("iterations"), 3);
  EXPECT_GE(metrics.at("selected_iteration"), 1);
  EXPECT_LE(metrics.at("selected_iteration"), metrics.at("iterations"));
  EXPECT_EQ(metrics.at("unlabeled_tokens"), static_cast<double>(d.unlabeled->num_tokens()));
  EXPECT_THAT(ctx.attachments().at("objective.csv"),
              HasSubstr("iteration,step,em_iteration,generative_objective,heldout_before,heldout_objective,"
                        "theta_change,gamma1,gamma2,gamma3,gamma4\n0,gamma,"));
  EXPECT_THAT(ctx.attachments().at("gamma.csv"), HasSubstr("3,hmm,\"word[0]\","));
}

std::string NodeError(const std::string& kind, const NodeData& d, std::shared_ptr<const CrfModel> odd) {
  testutil::FakeNodeContext ctx(HybridKind(kind),
                                kind == "crf.hysol" ? SmallHysolParams() : decltype(SmallHysolParams()){});
  ctx.AddInput("experts", d.words);
  ctx.AddInput("experts", std::move(odd));
  ctx.SetInput("train", d.train);
  ctx.SetInput("heldout", d.heldout);
  ctx.SetInput("unlabeled", d.unlabeled);
  try {
    HybridKind(kind).run(ctx);
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    return e.status().message();
  }
  ADD_FAILURE() << kind << " combined experts with different label sets";
  return "";
}

TEST(HybridNodes, ExpertsWithDifferentLabelSetsAreRejected) {
  const NodeData d = MakeNodeData();
  auto odd = TrainExpert(*d.train, {{"p", "pos[0]", "p"}}, {"B", "I", "O", "X"});
  for (const std::string kind : {"crf.lop", "crf.hysol"}) {
    const std::string message = NodeError(kind, d, odd);
    EXPECT_THAT(message, HasSubstr("CRF experts 1 and 2 have different label sets")) << kind;
    EXPECT_THAT(message, HasSubstr("3 vs 4 labels")) << kind;
  }
}

// The bytes of the first and the last state the procedure offers, pinned, converging and selecting
// (the latter with the best pair so far), each scoring its Γ steps: a state saved by an earlier
// build must still resume (tests/testutil/state_fingerprint.h).
TEST(TrainHysol, StateBytesAreThoseOfEarlierBuilds) {
  const Problem p = MakeProblem(5, 30);
  HysolOptions converging = TestOptions(), selecting = TestOptions();
  selecting.xi_prime = 0.1, selecting.tolerance = 0, selecting.max_iterations = 5, selecting.em_iterations = 3;
  const auto score = [](const GenerativeParams& theta, const Eigen::VectorXd& gamma) -> Result<double> {
    return PairScore(theta, gamma);
  };
  converging.score = selecting.score = score;
  struct Pinned {
    const HysolOptions* options;
    uint64_t first, last;
  };
  for (const Pinned& pinned : {Pinned{&converging, 0x3fa4fa86900452f4ULL, 0xab16cb6d02b594eULL},
                               Pinned{&selecting, 0xe647ee679e264aa2ULL, 0x7d33f8274a30f182ULL}}) {
    SCOPED_TRACE(pinned.options == &selecting ? "selecting" : "converging");
    std::vector<std::string> states;
    KernelCheckpoints keep;
    keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
    ValueOrThrow(
        TrainHysol(p.labeled, p.heldout, p.unlabeled, p.experts, p.vocabulary, *pinned.options, nullptr, {}, keep));
    ASSERT_GE(states.size(), 2u);
    const uint64_t first = testutil::StateFingerprint(states.front()), last = testutil::StateFingerprint(states.back());
    EXPECT_EQ(first, pinned.first) << std::hex << "0x" << first;
    EXPECT_EQ(last, pinned.last) << std::hex << "0x" << last;
  }
}

}  // namespace hysol_train_test
}  // namespace seqflow
