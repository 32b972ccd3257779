// EM with FHMM emissions: the M-step's objective is the expected complete-data log-likelihood of
// the log-linear family (checked cell by cell and by finite differences); with identity features
// only one iteration is hmm.em's (RunEmLambda's) iteration; L_λ never decreases; at λ = 0 the
// M-step is the supervised FHMM's fit.
#include "nodes/fhmm/fhmm_em.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "nodes/fhmm/feature_means.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "tests/testutil/state_fingerprint.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace fhmm_em_test {

using Sentences = std::vector<std::vector<int32_t>>;

HmmParams RandomHmm(int k, int v, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.2, 1.0);
  HmmParams p;
  p.initial = Eigen::VectorXd::NullaryExpr(k, [&] { return u(rng); });
  p.initial /= p.initial.sum();
  p.transition = Eigen::MatrixXd::NullaryExpr(k, k, [&] { return u(rng); });
  p.emission = Eigen::MatrixXd::NullaryExpr(k, v, [&] { return u(rng); });
  for (int i = 0; i < k; ++i) {
    p.transition.row(i) /= p.transition.row(i).sum();
    p.emission.row(i) /= p.emission.row(i).sum();
  }
  return p;
}

int Draw(const Eigen::VectorXd& p, std::mt19937_64& rng) {
  double r = std::uniform_real_distribution<double>(0, 1)(rng), c = 0;
  for (Eigen::Index i = 0; i < p.size(); ++i)
    if (r < (c += p[i])) return static_cast<int>(i);
  return static_cast<int>(p.size() - 1);
}

// n sentences of 2..6 tokens from `hmm`: symbols into words, states into labels.
void Sample(const HmmParams& hmm, int n, std::mt19937_64& rng, Sentences& words, Sentences& labels) {
  for (int s = 0; s < n; ++s) {
    const int length = 2 + static_cast<int>(rng() % 5);
    std::vector<int32_t> x, y;
    int state = Draw(hmm.initial, rng);
    for (int t = 0; t < length; ++t) {
      if (t > 0) state = Draw(hmm.transition.row(state).transpose(), rng);
      y.push_back(state);
      x.push_back(Draw(hmm.emission.row(state).transpose(), rng));
    }
    words.push_back(x);
    labels.push_back(y);
  }
}

Eigen::SparseMatrix<double> IdentityPhi(int v) {
  Eigen::SparseMatrix<double> phi(v, v);
  phi.setIdentity();
  return phi;
}

// Identity plus `extra` shared features (each word has one): a log-linear family that is not
// the full simplex's parameterisation.
Eigen::SparseMatrix<double> IdentityAndSharedPhi(int v, int extra) {
  std::vector<Eigen::Triplet<double>> t;
  for (int w = 0; w < v; ++w) {
    t.emplace_back(w, w, 1.0);
    t.emplace_back(w, v + w % extra, 1.0);
  }
  Eigen::SparseMatrix<double> phi(v, v + extra);
  phi.setFromTriplets(t.begin(), t.end());
  return phi;
}

FhmmEmOptions TightOptions(double regularization) {
  FhmmEmOptions options;
  options.loglinear.regularization = regularization;
  options.loglinear.lbfgs.max_iterations = 20000;
  options.loglinear.lbfgs.gradient_tolerance = 1e-12;
  options.loglinear.lbfgs.delta = 0;
  options.loglinear.lbfgs.float_history = false;
  options.tol = 0;
  return options;
}

TEST(FhmmMStep, ObjectiveIsTheExpectedCompleteDataLogLikelihood) {
  std::mt19937_64 rng(5);
  const int v = 9;
  const Eigen::SparseMatrix<double> phi = IdentityAndSharedPhi(v, 3);
  Eigen::MatrixXd counts = Eigen::MatrixXd::NullaryExpr(1, v, [&] { return 1.0 + static_cast<double>(rng() % 7); });
  const Eigen::VectorXd mu = ExpectedFeatureMeans(counts, phi).row(0).transpose();
  const double eps = 0.25;
  LogLinearObjective f(phi, mu, eps);
  Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(phi.cols(), -1, 1), g, tmp;
  const double value = f.Evaluate(theta, g);
  const Eigen::VectorXd p = f.Distribution(theta);
  double expected = 0;
  for (int w = 0; w < v; ++w) expected -= counts(0, w) * std::log(p[w]);
  EXPECT_NEAR(value, expected / counts.sum() + 0.5 * eps * theta.squaredNorm(), 1e-12);
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    Eigen::VectorXd up = theta, down = theta;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    EXPECT_NEAR(g[i], (f.Evaluate(up, tmp) - f.Evaluate(down, tmp)) / 2e-6, 1e-8) << i;
  }
}

TEST(FhmmMStep, LabelWithoutCountsKeepsUniformRow) {
  const int v = 4;
  ExpectedCounts counts = ExpectedCounts::Zero(2, v);
  counts.initial << 1, 0;
  counts.transition << 1, 1, 0, 0;
  counts.emission.row(0) << 1, 2, 3, 4;
  Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(2, v);
  HmmParams m = FhmmMStep(counts, IdentityPhi(v), TightOptions(1e-10), {}, theta).value();
  EXPECT_TRUE(m.emission.row(1).isApprox(Eigen::RowVectorXd::Constant(v, 0.25)));
  EXPECT_TRUE(m.transition.row(1).isApprox(Eigen::RowVectorXd::Constant(2, 0.5)));
  EXPECT_NEAR(m.emission(0, 3), 0.4, 1e-7);
  EXPECT_EQ(theta.row(1), Eigen::RowVectorXd::Zero(v));
}

TEST(FhmmMStep, ShapeMismatchIsInvalid) {
  ExpectedCounts counts = ExpectedCounts::Zero(2, 4);
  Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(2, 4);
  EXPECT_EQ(FhmmMStep(counts, IdentityPhi(5), FhmmEmOptions{}, {}, theta).status().code(), StatusCode::kInvalid);
}

struct TinyCorpus {
  HmmParams truth, start;
  Sentences words, labels, unlabeled, unused;
};

TinyCorpus MakeCorpus(int k, int v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  TinyCorpus c;
  c.truth = RandomHmm(k, v, rng);
  c.start = RandomHmm(k, v, rng);
  Sample(c.truth, 20, rng, c.words, c.labels);
  Sample(c.truth, 200, rng, c.unlabeled, c.unused);
  return c;
}

TEST(FhmmEm, IdentityFeaturesGiveHmmEmIteration) {
  const int k = 3, v = 6;
  TinyCorpus c = MakeCorpus(k, v, 11);
  const double lambda = 0.7;
  const HmmSmoothing smoothing{1.0, 0.5, 0.0};
  PomLayout layout(k, v, FreeBlocks{});
  EmLambdaOptions hmm_options;
  hmm_options.max_iter = 1;
  hmm_options.tol = 0;
  EmLambdaResult hmm =
      RunEmLambda(c.start, lambda, Em0(layout, c.words, c.labels, smoothing), c.unlabeled, layout, hmm_options).value();
  FhmmEmOptions options = TightOptions(1e-10);
  options.max_iter = 1;
  options.smoothing = smoothing;
  FhmmEmResult fhmm = RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, v), IdentityPhi(v),
                                LabeledSentenceCounts(k, v, c.words, c.labels), 20, c.unlabeled, lambda, options)
                          .value();
  ASSERT_EQ(fhmm.iterations, 1);
  EXPECT_LT((fhmm.model.emission - hmm.model.emission).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LT((fhmm.model.transition - hmm.model.transition).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((fhmm.model.initial - hmm.model.initial).cwiseAbs().maxCoeff(), 1e-12);
  // The same objective at the start (the emission pseudo-count is 0 in both).
  EXPECT_NEAR(fhmm.objective[0], hmm.objective[0], 1e-10);
  // A regularizer that is not tiny pulls the emissions off hmm.em's.
  options.loglinear.regularization = 0.1;
  FhmmEmResult smooth = RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, v), IdentityPhi(v),
                                  LabeledSentenceCounts(k, v, c.words, c.labels), 20, c.unlabeled, lambda, options)
                            .value();
  EXPECT_GT((smooth.model.emission - hmm.model.emission).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(FhmmEm, ObjectiveNeverDecreases) {
  const int k = 3, v = 10;
  TinyCorpus c = MakeCorpus(k, v, 17);
  const Eigen::SparseMatrix<double> phi = IdentityAndSharedPhi(v, 3);
  FhmmEmOptions options = TightOptions(1e-9);
  options.max_iter = 15;
  for (double lambda : {0.3, 0.9, 1.0}) {
    FhmmEmResult r = RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, phi.cols()), phi,
                               LabeledSentenceCounts(k, v, c.words, c.labels), 20, c.unlabeled, lambda, options)
                         .value();
    ASSERT_EQ(r.iterations, 15);
    for (size_t i = 1; i < r.objective.size(); ++i)
      EXPECT_GE(r.objective[i], r.objective[i - 1] - 1e-9) << "lambda " << lambda << ", iteration " << i;
    EXPECT_GT(r.objective.back(), r.objective.front() + 1e-3) << lambda;
  }
}

TEST(FhmmEm, LambdaZeroIsTheSupervisedFit) {
  const int k = 3, v = 10;
  TinyCorpus c = MakeCorpus(k, v, 23);
  const Eigen::SparseMatrix<double> phi = IdentityAndSharedPhi(v, 3);
  FhmmEmOptions options = TightOptions(1e-4);
  options.max_iter = 1;
  const ExpectedCounts labeled = LabeledSentenceCounts(k, v, c.words, c.labels);
  FhmmEmResult r =
      RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, phi.cols()), phi, labeled, 20, c.unlabeled, 0.0, options).value();
  FeatureMeans supervised = LabeledFeatureMeans(labeled.emission.transpose(), phi);
  Eigen::MatrixXd expected = FitLogLinearEmissions(phi, supervised.mu, options.loglinear, {}).value();
  EXPECT_LT((r.model.emission - expected).cwiseAbs().maxCoeff(), 1e-8);
}

// hmm.self_train's FHMM refit: with identity features and a tiny ε it is count-and-normalise;
// with shared features it is fhmm.supervised's log-linear fit, which is not.
TEST(EstimateTaggedFhmm, IsTheLogLinearFitOfTheTaggedTokens) {
  const int k = 3, v = 10;
  TinyCorpus c = MakeCorpus(k, v, 37);
  Sentences words = c.words, labels = c.labels;
  words.insert(words.end(), c.unlabeled.begin(), c.unlabeled.begin() + 30);
  labels.insert(labels.end(), c.unused.begin(), c.unused.begin() + 30);
  const HmmSmoothing smoothing{1.0, 1.0, 0.0};
  FhmmEmOptions options = TightOptions(1e-10);
  options.smoothing = smoothing;
  const HmmParams counted = EstimateSupervisedHmm(words, labels, k, v, smoothing);
  const HmmParams identity = EstimateTaggedFhmm(words, labels, k, IdentityPhi(v), options).value();
  EXPECT_LT((identity.emission - counted.emission).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LT((identity.transition - counted.transition).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((identity.initial - counted.initial).cwiseAbs().maxCoeff(), 1e-12);

  const Eigen::SparseMatrix<double> phi = IdentityAndSharedPhi(v, 3);
  options.loglinear.regularization = 0.01;
  const HmmParams shared = EstimateTaggedFhmm(words, labels, k, phi, options).value();
  const ExpectedCounts counts = LabeledSentenceCounts(k, v, words, labels);
  const Eigen::MatrixXd supervised =
      FitLogLinearEmissions(phi, LabeledFeatureMeans(counts.emission.transpose(), phi).mu, options.loglinear, {})
          .value();
  EXPECT_LT((shared.emission - supervised).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_GT((shared.emission - counted.emission).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(FhmmEm, ObserverSeesEveryIterationAndCanStop) {
  const int k = 2, v = 5;
  TinyCorpus c = MakeCorpus(k, v, 29);
  FhmmEmOptions options;
  options.max_iter = 3;
  options.tol = 0;
  std::vector<int> seen;
  auto observe = [&](int iteration, const HmmParams& model) {
    seen.push_back(iteration);
    EXPECT_EQ(model.num_states(), k);
    return iteration == 2 ? Status::Cancelled("enough") : Status::Ok();
  };
  auto r = RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, v), IdentityPhi(v),
                     LabeledSentenceCounts(k, v, c.words, c.labels), 20, c.unlabeled, 0.5, options, {}, observe);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(FhmmEm, Errors) {
  const int k = 2, v = 5;
  TinyCorpus c = MakeCorpus(k, v, 31);
  const ExpectedCounts labeled = LabeledSentenceCounts(k, v, c.words, c.labels);
  EXPECT_EQ(RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, v), IdentityPhi(v), labeled, 20, {}, 0.5, {}).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(
      RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, v), IdentityPhi(v), labeled, 0, c.unlabeled, 0.5, {}).status().code(),
      StatusCode::kInvalid);
  const std::atomic<bool> flag{true};
  const CancelToken cancelled(&flag);
  EXPECT_EQ(
      RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, v), IdentityPhi(v), labeled, 20, c.unlabeled, 0.5, {}, cancelled)
          .status()
          .code(),
      StatusCode::kCancelled);
}

// fhmm.em's checkpoints: resumed from the state after any M-step, EM ends with the same bits
// (model, θ, every objective, the count) as a run never interrupted, the observer seeing only
// the iterations it runs; a state of other shapes or past max_iter is refused.
TEST(FhmmEm, ResumesFromEveryMStepToTheSameBits) {
  const int k = 3, v = 10;
  TinyCorpus c = MakeCorpus(k, v, 17);
  const Eigen::SparseMatrix<double> phi = IdentityAndSharedPhi(v, 3);
  const ExpectedCounts labeled = LabeledSentenceCounts(k, v, c.words, c.labels);
  FhmmEmOptions options = TightOptions(1e-4);
  options.loglinear.lbfgs.max_iterations = 200;
  options.max_iter = 6;
  auto run = [&](const FhmmEmOptions& o, const std::string* from, std::vector<std::string>* states,
                 std::vector<int>* observed) {
    KernelCheckpoints checkpoints;
    checkpoints.resume_from = from;
    checkpoints.offer = [&](const std::function<StatePieces()>& encode) {
      if (states) states->push_back(encode().Join());
    };
    auto observe = [&](int iteration, const HmmParams&) {
      if (observed) observed->push_back(iteration);
      return Status::Ok();
    };
    return RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, phi.cols()), phi, labeled, 20, c.unlabeled, 0.7, o, {},
                     observe, checkpoints);
  };
  std::vector<std::string> states;
  const FhmmEmResult whole = run(options, nullptr, &states, nullptr).value();
  ASSERT_EQ(whole.iterations, 6);
  ASSERT_EQ(states.size(), 6u);
  for (size_t i = 0; i < states.size(); ++i) {
    SCOPED_TRACE("resumed after M-step " + std::to_string(i + 1));
    std::vector<int> observed;
    const FhmmEmResult resumed = run(options, &states[i], nullptr, &observed).value();
    EXPECT_EQ(resumed.iterations, whole.iterations);
    EXPECT_EQ(resumed.objective, whole.objective);
    EXPECT_EQ(resumed.model.initial, whole.model.initial);
    EXPECT_EQ(resumed.model.transition, whole.model.transition);
    EXPECT_EQ(resumed.model.emission, whole.model.emission);
    EXPECT_EQ(resumed.theta, whole.theta);
    ASSERT_FALSE(observed.empty());
    EXPECT_EQ(observed.front(), static_cast<int>(i + 1));
    EXPECT_EQ(observed.back(), 6);
  }
  FhmmEmOptions fewer = options;
  fewer.max_iter = 3;
  EXPECT_EQ(run(fewer, &states[4], nullptr, nullptr).status().code(), StatusCode::kInvalid);
  std::string truncated = states[2];
  truncated.resize(truncated.size() - 8);
  EXPECT_EQ(run(options, &truncated, nullptr, nullptr).status().code(), StatusCode::kInvalid);
  const Eigen::SparseMatrix<double> other_phi = IdentityAndSharedPhi(v, 4);
  KernelCheckpoints from;
  from.resume_from = &states[2];
  EXPECT_EQ(RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, other_phi.cols()), other_phi, labeled, 20, c.unlabeled, 0.7,
                      options, {}, {}, from)
                .status()
                .code(),
            StatusCode::kInvalid);
}

// The bytes of the first and the last state EM offers (after M-steps 1 and 6), pinned: a state
// saved by an earlier build must still resume (tests/testutil/state_fingerprint.h).
TEST(FhmmEm, StateBytesAreThoseOfEarlierBuilds) {
  const int k = 3, v = 10;
  TinyCorpus c = MakeCorpus(k, v, 17);
  const Eigen::SparseMatrix<double> phi = IdentityAndSharedPhi(v, 3);
  FhmmEmOptions options = TightOptions(1e-4);
  options.loglinear.lbfgs.max_iterations = 200;
  options.max_iter = 6;
  std::vector<std::string> states;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
  ASSERT_TRUE(RunFhmmEm(c.start, Eigen::MatrixXd::Zero(k, phi.cols()), phi,
                        LabeledSentenceCounts(k, v, c.words, c.labels), 20, c.unlabeled, 0.7, options, {}, {}, keep)
                  .ok());
  ASSERT_EQ(states.size(), 6u);
  const uint64_t first = testutil::StateFingerprint(states.front()), last = testutil::StateFingerprint(states.back());
  EXPECT_EQ(first, 0xf681470af9be25dcULL) << std::hex << "0x" << first;
  EXPECT_EQ(last, 0xa7072ebfa799d845ULL) << std::hex << "0x" << last;
}

}  // namespace fhmm_em_test
}  // namespace seqflow
