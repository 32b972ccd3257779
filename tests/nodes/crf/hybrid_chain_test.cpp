// The HySOL hybrid chain (Suzuki, Fujino & Isozaki 2007, Eq. 2-7) against enumeration of all
// K^T labellings of tiny sentences (STYLE §6): the merged potentials, R's expected HMM counts and
// log-partition, the conditional log-likelihood and its γ-gradient (also against central finite
// differences), the M-step's closed form, EM monotonicity of G(Θ|Γ) (Eq. 4/5) and the stopping rule.
#include "nodes/crf/hybrid_chain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/nodes/crf/hybrid_blocks.h"
#include "tests/nodes/crf/random_theta.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace hybrid_chain_test {

using testutil::RandomTheta;

constexpr int kK = 3, kI = 2, kJ = 2;

struct Problem {
  HybridCorpus corpus;
  ExpertTransitions experts;  // [I] K x K
  GenerativeParams theta;
  Eigen::VectorXd gamma;  // I + J
  std::vector<int64_t> vocabulary{4, 5};
};

Problem MakeProblem(uint32_t seed, int num_sentences, bool labeled) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0, 1.5);
  std::uniform_int_distribution<int> length(1, 4), label(0, kK - 1);
  std::uniform_real_distribution<double> gamma(0.05, 1.0);
  Problem s;
  s.corpus.num_labels = kK;
  s.corpus.offsets = {0};
  for (int n = 0; n < num_sentences; ++n) s.corpus.offsets.push_back(s.corpus.offsets.back() + length(rng));
  const int64_t tokens = s.corpus.num_tokens();
  for (int i = 0; i < kI; ++i) {
    RowMatrixXf scores(tokens, kK);
    for (Eigen::Index c = 0; c < scores.size(); ++c) scores.data()[c] = static_cast<float>(normal(rng));
    s.corpus.expert_scores.push_back(scores);
    RowMatrixXd a(kK, kK);
    for (Eigen::Index c = 0; c < a.size(); ++c) a.data()[c] = normal(rng);
    s.experts.push_back(a);
  }
  s.corpus.symbols.resize(tokens, kJ);
  for (int64_t t = 0; t < tokens; ++t)
    for (int j = 0; j < kJ; ++j)
      s.corpus.symbols(t, j) = std::uniform_int_distribution<int>(0, static_cast<int>(s.vocabulary[j]) - 1)(rng);
  if (labeled)
    for (int64_t t = 0; t < tokens; ++t) s.corpus.labels.push_back(label(rng));
  s.theta = RandomTheta(s.vocabulary, kK, rng);
  s.gamma.resize(kI + kJ);
  for (int m = 0; m < kI + kJ; ++m) s.gamma[m] = gamma(rng);
  return s;
}

// φ_m(x_n, y): each model's log-potential of labelling y of sentence n, computed from the raw
// parameters (experts: Σ_t s_i + Σ A_i; HMMs: log π + Σ log θ(y→y') + Σ log θ(y→x)). g = γ·φ.
Eigen::VectorXd Phi(const Problem& s, const GenerativeParams& theta, size_t n, const std::vector<int32_t>& y) {
  const int64_t b = s.corpus.offsets[n];
  Eigen::VectorXd phi = Eigen::VectorXd::Zero(kI + kJ);
  for (size_t t = 0; t < y.size(); ++t) {
    for (int i = 0; i < kI; ++i) {
      phi[i] += static_cast<double>(s.corpus.expert_scores[i](b + t, y[t]));
      if (t > 0) phi[i] += s.experts[i](y[t - 1], y[t]);
    }
    for (int j = 0; j < kJ; ++j) {
      phi[kI + j] += theta.log_emission[j](s.corpus.symbols(b + t, j), y[t]);
      phi[kI + j] += t == 0 ? theta.log_initial[j][y[0]] : theta.log_transition[j](y[t - 1], y[t]);
    }
  }
  return phi;
}

std::vector<int32_t> GoldLabels(const Problem& s, size_t n) {
  return {s.corpus.labels.begin() + s.corpus.offsets[n], s.corpus.labels.begin() + s.corpus.offsets[n + 1]};
}

// Everything about R on one sentence, by enumeration.
struct Oracle {
  double log_z = 0;
  RowMatrixXd marginals;     // T x K: R(y_t = k)
  RowMatrixXd bigrams;       // K x K: Σ_{t>0} R(y_{t-1} = k, y_t = l)
  Eigen::VectorXd mean_phi;  // E_R[φ]
};

Oracle Enumerate(const Problem& s, const GenerativeParams& theta, const Eigen::VectorXd& gamma, size_t n) {
  const int T = static_cast<int>(s.corpus.offsets[n + 1] - s.corpus.offsets[n]);
  std::vector<std::vector<int32_t>> ys;
  std::vector<Eigen::VectorXd> phis;
  std::vector<double> g;
  std::vector<int32_t> y(T, 0);
  do {
    ys.push_back(y);
    phis.push_back(Phi(s, theta, n, y));
    g.push_back(gamma.dot(phis.back()));
  } while (testutil::NextLabelling(&y, kK));
  const double shift = *std::max_element(g.begin(), g.end());
  double z = 0;
  for (const double v : g) z += std::exp(v - shift);
  Oracle o;
  o.log_z = shift + std::log(z);
  o.marginals = RowMatrixXd::Zero(T, kK);
  o.bigrams = RowMatrixXd::Zero(kK, kK);
  o.mean_phi = Eigen::VectorXd::Zero(kI + kJ);
  for (size_t c = 0; c < ys.size(); ++c) {
    const double r = std::exp(g[c] - o.log_z);
    o.mean_phi += r * phis[c];
    for (int t = 0; t < T; ++t) {
      o.marginals(t, ys[c][t]) += r;
      if (t > 0) o.bigrams(ys[c][t - 1], ys[c][t]) += r;
    }
  }
  return o;
}

double MaxAbsDiff(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  return (a - b).cwiseAbs().maxCoeff();
}

void ExpectIdentical(const GenerativeCounts& a, const GenerativeCounts& b) {
  EXPECT_TRUE(a.initial == b.initial);
  EXPECT_TRUE(a.transition == b.transition);
  ASSERT_EQ(a.emission.size(), b.emission.size());
  for (size_t j = 0; j < a.emission.size(); ++j) EXPECT_TRUE(a.emission[j] == b.emission[j]) << "j=" << j;
}

TEST(HybridChain, MergedPotentialsReproduceEveryLabellingScore) {
  for (const uint32_t seed : {1u, 2u, 3u}) {
    const Problem s = MakeProblem(seed, 8, false);
    const RowMatrixXd a = HybridTransition(s.experts, s.theta, s.gamma);
    RowMatrixXd want_a = RowMatrixXd::Zero(kK, kK);
    for (int i = 0; i < kI; ++i) want_a += s.gamma[i] * s.experts[i];
    for (int j = 0; j < kJ; ++j) want_a += s.gamma[kI + j] * s.theta.log_transition[j];
    EXPECT_LT(MaxAbsDiff(a, want_a), 1e-13);
    for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
      RowMatrixXd scores;
      HybridScores(s.corpus, n, s.theta, s.gamma, scores);
      const int T = static_cast<int>(s.corpus.offsets[n + 1] - s.corpus.offsets[n]);
      ASSERT_EQ(scores.rows(), T);
      ASSERT_EQ(scores.cols(), kK);
      std::vector<int32_t> y(T, 0);
      do {
        const double want = s.gamma.dot(Phi(s, s.theta, n, y));
        ASSERT_NEAR(ChainScore(scores, a, y), want, 1e-11) << "seed=" << seed << " n=" << n;
      } while (testutil::NextLabelling(&y, kK));
    }
  }
}

// R's expected HMM event counts over the whole corpus and Σ_n log Σ_y exp(g(y)), by enumeration.
double EnumeratedCounts(const Problem& s, GenerativeCounts& want) {
  want = GenerativeCounts{Eigen::VectorXd::Zero(kK), RowMatrixXd::Zero(kK, kK), {}};
  for (int j = 0; j < kJ; ++j) want.emission.push_back(RowMatrixXd::Zero(s.vocabulary[j], kK));
  double value = 0;
  for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
    const Oracle o = Enumerate(s, s.theta, s.gamma, n);
    value += o.log_z;
    want.initial += o.marginals.row(0).transpose();
    want.transition += o.bigrams;
    for (int t = 0; t < o.marginals.rows(); ++t)
      for (int j = 0; j < kJ; ++j)
        want.emission[j].row(s.corpus.symbols(s.corpus.offsets[n] + t, j)) += o.marginals.row(t);
  }
  return value;
}

void ExpectCountsNear(const Problem& s, int threads, double tolerance) {
  GenerativeCounts want, counts;
  const double want_value = EnumeratedCounts(s, want);
  const double value = HybridExpectedCounts(s.corpus, s.experts, s.theta, s.gamma, threads, counts);
  EXPECT_NEAR(value, want_value, 1e-10 * std::abs(want_value));
  EXPECT_LT(MaxAbsDiff(counts.initial, want.initial), tolerance);
  EXPECT_LT(MaxAbsDiff(counts.transition, want.transition), tolerance);
  ASSERT_EQ(counts.emission.size(), static_cast<size_t>(kJ));
  for (int j = 0; j < kJ; ++j) EXPECT_LT(MaxAbsDiff(counts.emission[j], want.emission[j]), tolerance) << "j=" << j;
}

TEST(HybridChain, ExpectedCountsAndValueMatchEnumeration) {
  for (const uint32_t seed : {11u, 12u, 13u}) {
    SCOPED_TRACE(testing::Message() << "seed=" << seed);
    ExpectCountsNear(MakeProblem(seed, 12, false), 1, 1e-12);
  }
}

// More sentences than the E-step holds marginals for at once (8192 in hybrid_chain.cpp), so the
// sums carry across its blocks; counts reach ~1e4, hence the looser absolute tolerance.
TEST(HybridChain, ExpectedCountsMatchEnumerationAcrossMarginalBlocks) {
  ExpectCountsNear(MakeProblem(14, 8192 + 300, false), 2, 1e-8);
}

TEST(HybridChain, CorpusKernelsAreBitIdenticalAcrossThreadCounts) {
  const Problem s = MakeProblem(21, 300, true);
  GenerativeCounts one;
  const double value_one = HybridExpectedCounts(s.corpus, s.experts, s.theta, s.gamma, 1, one);
  Eigen::VectorXd gradient_one;
  const double cll_one = HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, 1, &gradient_one);
  const double z_one = ExpertLogPartition(s.corpus, s.experts[1], 1, 1);
  for (const int threads : {2, 4}) {
    SCOPED_TRACE(testing::Message() << "threads=" << threads);
    GenerativeCounts many;
    EXPECT_EQ(HybridExpectedCounts(s.corpus, s.experts, s.theta, s.gamma, threads, many), value_one);
    ExpectIdentical(many, one);
    Eigen::VectorXd gradient;
    EXPECT_EQ(HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, threads, &gradient), cll_one);
    EXPECT_TRUE(gradient == gradient_one);
    EXPECT_EQ(ExpertLogPartition(s.corpus, s.experts[1], 1, threads), z_one);
  }
}

// The Γ fit's emissions gathered once (GatherEmissions) give the bits of the tables read per token.
TEST(HybridChain, GatheredEmissionsGiveTheSameLikelihoodAndGradient) {
  const Problem s = MakeProblem(22, 300, true);
  const RowMatrixXd gathered = GatherEmissions(s.corpus, s.theta);
  ASSERT_EQ(gathered.rows(), s.corpus.num_tokens());
  ASSERT_EQ(gathered.cols(), s.theta.num_models() * s.corpus.num_labels);
  for (const int threads : {1, 2}) {
    Eigen::VectorXd per_token, from_gathered;
    const double value = HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, threads, &per_token);
    EXPECT_EQ(HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, threads, &from_gathered, nullptr,
                                             &gathered),
              value);
    EXPECT_TRUE(from_gathered == per_token) << from_gathered.transpose() << "\n" << per_token.transpose();
  }
}

// The unlabeled text streamed block by block (UnlabeledHybrid) gives the resident corpus' bits: the
// E-step (counts and value) and every expert's log-partition, for 1 and 2 threads, over three blocks.
TEST(HybridChain, StreamedBlocksGiveTheResidentBits) {
  const Problem s = MakeProblem(41, 2 * kHybridBlockSentences + 100, false);
  size_t builds = 0;
  const UnlabeledHybrid streamed = testutil::Streamed(s.corpus, &builds);
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(testing::Message() << "threads=" << threads);
    GenerativeCounts resident, blocks;
    const double value = HybridExpectedCounts(s.corpus, s.experts, s.theta, s.gamma, threads, resident);
    EXPECT_EQ(HybridExpectedCounts(streamed, s.experts, s.theta, s.gamma, threads, blocks), value);
    ExpectIdentical(blocks, resident);
    const Eigen::VectorXd log_z = ValueOrThrow(ExpertLogPartitions(streamed, s.experts, threads));
    ASSERT_EQ(log_z.size(), kI);
    for (int i = 0; i < kI; ++i) EXPECT_EQ(log_z(i), ExpertLogPartition(s.corpus, s.experts[i], i, 1)) << "i=" << i;
  }
  EXPECT_EQ(builds, 2u * 2u * 3u) << "each pass builds each of the 3 blocks once";
}

TEST(HybridChain, StreamedBlockThatCannotBeBuiltEndsThePass) {
  const Problem s = MakeProblem(42, kHybridBlockSentences + 10, false);
  const UnlabeledHybrid failing(s.corpus.num_sentences(), [](size_t begin, size_t) -> Result<HybridCorpus> {
    if (begin == 0) return HybridCorpus{};
    return Status::Invalid("reuters.txt: no column 'pos'");
  });
  const Result<Eigen::VectorXd> log_z = ExpertLogPartitions(failing, s.experts, 1);
  EXPECT_EQ(log_z.status().code(), StatusCode::kInternal) << "block 0 was built with 0 sentences instead of 8192";
  const UnlabeledHybrid second_fails(s.corpus.num_sentences(), [&s](size_t begin, size_t end) -> Result<HybridCorpus> {
    if (begin > 0) return Status::Invalid("reuters.txt: no column 'pos'");
    return testutil::SliceSentences(s.corpus, begin, end);
  });
  const Result<Eigen::VectorXd> second = ExpertLogPartitions(second_fails, s.experts, 1);
  EXPECT_EQ(second.status().code(), StatusCode::kInvalid);
  EXPECT_NE(second.status().message().find("no column 'pos'"), std::string::npos) << second.status().message();
  GenerativeCounts counts;
  EXPECT_TRUE(std::isnan(HybridExpectedCounts(second_fails, s.experts, s.theta, s.gamma, 1, counts)));
}

TEST(HybridChain, ConditionalLogLikelihoodAndGammaGradient) {
  for (const uint32_t seed : {31u, 32u, 33u}) {
    const Problem s = MakeProblem(seed, 10, true);
    double want_value = 0;
    Eigen::VectorXd want_gradient = Eigen::VectorXd::Zero(kI + kJ);
    for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
      const Oracle o = Enumerate(s, s.theta, s.gamma, n);
      const Eigen::VectorXd phi = Phi(s, s.theta, n, GoldLabels(s, n));
      want_value += s.gamma.dot(phi) - o.log_z;
      want_gradient += phi - o.mean_phi;
    }
    Eigen::VectorXd gradient;
    const double value = HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, 1, &gradient);
    SCOPED_TRACE(testing::Message() << "seed=" << seed);
    EXPECT_NEAR(value, want_value, 1e-10 * std::abs(want_value));
    EXPECT_EQ(HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, 1, nullptr), value);
    ASSERT_EQ(gradient.size(), kI + kJ);
    EXPECT_LT(MaxAbsDiff(gradient, want_gradient), 1e-10);
    const double h = 1e-5;
    for (int m = 0; m < kI + kJ; ++m) {
      Eigen::VectorXd plus = s.gamma, minus = s.gamma;
      plus[m] += h;
      minus[m] -= h;
      const double fd = (HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, plus, 1, nullptr) -
                         HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, minus, 1, nullptr)) /
                        (2 * h);
      EXPECT_LT(std::abs(fd - gradient[m]) / std::max(std::abs(gradient[m]), 1e-2), 1e-6)
          << "m=" << m << " fd=" << fd << " analytic=" << gradient[m];
    }
  }
}

TEST(HybridChain, ExpertLogPartitionMatchesEnumeration) {
  for (const uint32_t seed : {41u, 42u}) {
    const Problem s = MakeProblem(seed, 9, false);
    for (int i = 0; i < kI; ++i) {
      Eigen::VectorXd unit = Eigen::VectorXd::Zero(kI + kJ);
      unit[i] = 1;  // γ = e_i: the chain of expert i alone
      double want = 0;
      for (size_t n = 0; n < s.corpus.num_sentences(); ++n) want += Enumerate(s, s.theta, unit, n).log_z;
      EXPECT_NEAR(ExpertLogPartition(s.corpus, s.experts[i], i, 1), want, 1e-10 * std::abs(want))
          << "seed=" << seed << " i=" << i;
    }
  }
}

TEST(HybridChain, ObservedCountsCountTheGoldEvents) {
  const Problem s = MakeProblem(51, 40, true);
  const GenerativeCounts counts = ObservedCounts(s.corpus, s.vocabulary);
  GenerativeCounts want{Eigen::VectorXd::Zero(kK), RowMatrixXd::Zero(kK, kK), {}};
  for (int j = 0; j < kJ; ++j) want.emission.push_back(RowMatrixXd::Zero(s.vocabulary[j], kK));
  for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
    const std::vector<int32_t> y = GoldLabels(s, n);
    want.initial[y[0]] += 1;
    for (size_t t = 0; t < y.size(); ++t) {
      if (t > 0) want.transition(y[t - 1], y[t]) += 1;
      for (int j = 0; j < kJ; ++j) want.emission[j](s.corpus.symbols(s.corpus.offsets[n] + t, j), y[t]) += 1;
    }
  }
  ExpectIdentical(counts, want);
}

// log((γ c_e + η') / Σ_e' (γ c_e' + η')) for every outcome e of one multinomial.
Eigen::VectorXd ClosedForm(const Eigen::VectorXd& c, double gamma, double eta_prime) {
  const Eigen::VectorXd mass = (gamma * c.array() + eta_prime).matrix();
  return (mass / mass.sum()).array().log();
}

GenerativeCounts RandomCounts(const std::vector<int64_t>& vocabulary, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 5.0);
  auto fill = [&](auto& m) {
    for (Eigen::Index c = 0; c < m.size(); ++c) m.data()[c] = u(rng);
  };
  GenerativeCounts counts{Eigen::VectorXd(kK), RowMatrixXd(kK, kK), {}};
  fill(counts.initial);
  fill(counts.transition);
  for (const int64_t V : vocabulary) {
    counts.emission.emplace_back(V, kK);
    fill(counts.emission.back());
  }
  return counts;
}

void ExpectClosedForm(const GenerativeParams& theta, const GenerativeCounts& counts, const Eigen::VectorXd& gamma,
                      double eta_prime) {
  ASSERT_EQ(theta.num_models(), gamma.size());
  for (int j = 0; j < theta.num_models(); ++j) {
    SCOPED_TRACE(testing::Message() << "j=" << j);
    EXPECT_LT(MaxAbsDiff(theta.log_initial[j], ClosedForm(counts.initial, gamma[j], eta_prime)), 1e-13);
    EXPECT_NEAR(theta.log_initial[j].array().exp().sum(), 1.0, 1e-14);
    for (int k = 0; k < kK; ++k) {
      const Eigen::VectorXd row = counts.transition.row(k).transpose(), col = counts.emission[j].col(k);
      EXPECT_LT(MaxAbsDiff(theta.log_transition[j].row(k).transpose(), ClosedForm(row, gamma[j], eta_prime)), 1e-13);
      EXPECT_LT(MaxAbsDiff(theta.log_emission[j].col(k), ClosedForm(col, gamma[j], eta_prime)), 1e-13);
      EXPECT_NEAR(theta.log_transition[j].row(k).array().exp().sum(), 1.0, 1e-14);
      EXPECT_NEAR(theta.log_emission[j].col(k).array().exp().sum(), 1.0, 1e-14);
    }
  }
}

TEST(HybridChain, MaximizeGenerativeIsTheDirichletClosedForm) {
  std::mt19937 rng(61);
  const std::vector<int64_t> vocabulary{4, 5};
  const GenerativeCounts counts = RandomCounts(vocabulary, rng);
  for (const double eta_prime : {0.0, 0.5}) {
    const Eigen::Vector2d gamma(0.7, 0.25);
    SCOPED_TRACE(testing::Message() << "eta'=" << eta_prime);
    ExpectClosedForm(MaximizeGenerative(counts, gamma, eta_prime), counts, gamma, eta_prime);
  }
  // A spot check written out by hand: θ_1(k=1 → v=2) = (0.25·c + 0.5) / Σ_v (0.25·c_v + 0.5).
  const GenerativeParams theta = MaximizeGenerative(counts, Eigen::Vector2d(0.7, 0.25), 0.5);
  const double mass = 0.25 * counts.emission[1].col(1).sum() + 5 * 0.5;
  EXPECT_NEAR(theta.log_emission[1](2, 1), std::log((0.25 * counts.emission[1](2, 1) + 0.5) / mass), 1e-14);
}

TEST(HybridChain, MaximizeGenerativeWithoutPriorFloorsZerosAndUniformsEmptyMultinomials) {
  std::mt19937 rng(62);
  const std::vector<int64_t> vocabulary{4, 5};
  GenerativeCounts counts = RandomCounts(vocabulary, rng);
  counts.initial[2] = 0;                // zero probability among nonzero ones
  counts.transition.row(1).setZero();   // no mass at all
  counts.emission[0](3, 0) = 0;         // zero probability
  counts.emission[1].col(2).setZero();  // no mass at all
  const Eigen::Vector2d gamma(0.6, 0.9);
  const GenerativeParams theta = MaximizeGenerative(counts, gamma, 0.0);
  ASSERT_EQ(theta.num_models(), 2);
  for (int j = 0; j < 2; ++j) {
    EXPECT_EQ(theta.log_initial[j][2], kLogFloor);
    EXPECT_NEAR(theta.log_initial[j][0], std::log(counts.initial[0] / counts.initial.sum()), 1e-13);
    for (int l = 0; l < kK; ++l) EXPECT_NEAR(theta.log_transition[j](1, l), -std::log(3.0), 1e-15);
    EXPECT_NEAR(theta.log_transition[j].row(0).array().exp().sum(), 1.0, 1e-14);
  }
  EXPECT_EQ(theta.log_emission[0](3, 0), kLogFloor);
  EXPECT_NEAR(theta.log_emission[0].col(0).array().exp().sum(), 1.0, 1e-14);
  for (int v = 0; v < 5; ++v) EXPECT_NEAR(theta.log_emission[1](v, 2), -std::log(5.0), 1e-15);
  // γ_j = 0 and η' = 0: every multinomial of HMM j is empty, hence uniform.
  const GenerativeParams silent = MaximizeGenerative(counts, Eigen::Vector2d(0.0, 0.9), 0.0);
  EXPECT_LT(MaxAbsDiff(silent.log_initial[0], Eigen::VectorXd::Constant(kK, -std::log(3.0))), 1e-15);
  EXPECT_LT(MaxAbsDiff(silent.log_emission[0], RowMatrixXd::Constant(4, kK, -std::log(4.0))), 1e-15);
}

// HySOL's M-step turns its counts into Θ in place: the same bits as from a copy, zero or empty
// multinomials included, and the counts are left empty.
TEST(HybridChain, MaximizeGenerativeInPlaceGivesTheSameBits) {
  std::mt19937 rng(64);
  GenerativeCounts counts = RandomCounts({4, 5}, rng);
  counts.emission[0](3, 0) = 0;
  counts.emission[1].col(2).setZero();
  for (const double eta_prime : {0.0, 0.5}) {
    const Eigen::Vector2d gamma(0.6, 0.0);
    const GenerativeParams copied = MaximizeGenerative(counts, gamma, eta_prime);
    GenerativeCounts consumed = counts;
    const GenerativeParams in_place = MaximizeGenerativeInPlace(std::move(consumed), gamma, eta_prime);
    EXPECT_TRUE(consumed.emission.empty());
    ASSERT_EQ(in_place.num_models(), 2);
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(in_place.log_initial[j], copied.log_initial[j]);
      EXPECT_EQ(in_place.log_transition[j], copied.log_transition[j]);
      EXPECT_EQ(in_place.log_emission[j], copied.log_emission[j]);
    }
  }
}

TEST(HybridChain, GenerativeLogPriorSumsEveryLogParameter) {
  std::mt19937 rng(63);
  const GenerativeParams theta = RandomTheta({4, 5}, kK, rng);
  double sum = 0;
  for (int j = 0; j < 2; ++j)
    sum += theta.log_initial[j].sum() + theta.log_transition[j].sum() + theta.log_emission[j].sum();
  EXPECT_NEAR(GenerativeLogPrior(theta, 0.3), 0.3 * sum, 1e-12 * std::abs(sum));
  EXPECT_EQ(GenerativeLogPrior(theta, 0.0), 0.0);
}

// Step 4.1 of Fig. 1: EM on Q (Eq. 5) never decreases G(Θ|Γ) = value + log p(Θ) (Eq. 4).
TEST(HybridChain, EmNeverDecreasesTheGenerativeObjective) {
  const double eta_prime = 1e-3;
  for (const uint32_t seed : {71u, 72u, 73u}) {
    Problem s = MakeProblem(seed, 40, false);
    const Eigen::VectorXd tail = s.gamma.tail(kJ);
    GenerativeParams theta = s.theta;
    GenerativeCounts counts;
    double g =
        HybridExpectedCounts(s.corpus, s.experts, theta, s.gamma, 2, counts) + GenerativeLogPrior(theta, eta_prime);
    const double g0 = g;
    for (int iteration = 0; iteration < 20; ++iteration) {
      theta = MaximizeGenerative(counts, tail, eta_prime);
      const double next =
          HybridExpectedCounts(s.corpus, s.experts, theta, s.gamma, 2, counts) + GenerativeLogPrior(theta, eta_prime);
      ASSERT_TRUE(std::isfinite(next));
      EXPECT_GE(next, g - 1e-9 * std::abs(g)) << "seed=" << seed << " iteration=" << iteration;
      g = next;
    }
    EXPECT_GT(g, g0 + 1.0) << "seed=" << seed;  // EM moved a random Θ substantially
  }
}

TEST(HybridChain, RelativeParamChange) {
  std::mt19937 rng(81);
  const GenerativeParams random = RandomTheta({4, 5}, kK, rng);
  EXPECT_EQ(RelativeParamChange(random, random), 0.0);

  // J = 1, K = 2, V = 2. Current: all ten probabilities 0.5, ‖Θ‖² = 2.5. Next moves π to
  // (0.75, 0.25): ‖Θ' − Θ‖² = 2 · 0.25² = 0.125, so the change is √(0.125 / 2.5) = √0.05.
  const double h = std::log(0.5);
  GenerativeParams current;
  current.log_initial = {Eigen::Vector2d(h, h)};
  current.log_transition = {RowMatrixXd::Constant(2, 2, h)};
  current.log_emission = {RowMatrixXd::Constant(2, 2, h)};
  GenerativeParams next = current;
  next.log_initial[0] = Eigen::Vector2d(std::log(0.75), std::log(0.25));
  EXPECT_NEAR(RelativeParamChange(next, current), std::sqrt(0.05), 1e-15);
  EXPECT_NEAR(RelativeParamChange(current, next), std::sqrt(0.125 / 2.625), 1e-15);  // ‖next‖² = 2.625

  // Random parameters with J = 2: the same norm over all initial, transition and emission entries.
  const GenerativeParams other = RandomTheta({4, 5}, kK, rng);
  double diff = 0, norm = 0;
  auto add = [&](const auto& a, const auto& b) {
    diff += (a.array().exp() - b.array().exp()).square().sum();
    norm += b.array().exp().square().sum();
  };
  for (int j = 0; j < 2; ++j) {
    add(other.log_initial[j], random.log_initial[j]);
    add(other.log_transition[j], random.log_transition[j]);
    add(other.log_emission[j], random.log_emission[j]);
  }
  EXPECT_NEAR(RelativeParamChange(other, random), std::sqrt(diff / norm), 1e-13);
}

}  // namespace hybrid_chain_test
}  // namespace seqflow
