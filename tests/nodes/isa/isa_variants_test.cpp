// Every instruction-set variant of the hot kernels this CPU runs (engine/base/isa.h) computes the
// same bits as the baseline variant: the chain library's forward-backward (score and probability
// tables, marginals in double and float, bigram sums, kept tables), its tangent pass, Viterbi in
// double and certified float and its one-chain form, the CRF objective and gradient (the scatter
// and the gather), and L-BFGS's dot products and direction pass. Viterbi is also checked against a
// scalar decoder in every variant (the narrower variants run its compares on native pieces of the
// lanes), and L-BFGS's direction pass against its definition.
// Outputs are compared as bit patterns, not within a tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/base/isa.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/chain/tangent_lanes.h"
#include "nodes/chain/viterbi_f32_lanes.h"
#include "nodes/chain/viterbi_lanes.h"
#include "nodes/chain/viterbi_one_chain.h"
#include "nodes/common/portable_math.h"
#include "nodes/crf/crf_likelihood.h"
#include "nodes/optim/mixed_dot.h"
#include "tests/testutil/chain_brute_force.h"

namespace seqflow {
namespace isa_variants_test {

// Bit patterns of everything a kernel wrote, in a fixed order.
struct Bits {
  std::vector<uint64_t> words;
  void Add(double x) { words.push_back(std::bit_cast<uint64_t>(x)); }
  void Add(float x) { words.push_back(std::bit_cast<uint32_t>(x)); }
  void Add(int64_t x) { words.push_back(static_cast<uint64_t>(x)); }
  template <class T>
  void AddAll(const T* x, size_t n) {
    for (size_t i = 0; i < n; ++i) Add(x[i]);
  }
  void AddLanes(const LaneVector<Lanes<kLanes>>& v) {
    for (const auto& x : v)
      for (int l = 0; l < kLanes; ++l) Add(x[l]);
  }
};

// A batch of kLanes chains of lengths in [1, 40] over rows of one table of `rows` rows.
struct Batch {
  LaneBatch<kLanes> lanes;
  std::array<int, kLanes> first{}, len{};
  std::vector<int32_t> ids;
  int rows = 0;
};

Batch MakeBatch(std::mt19937& rng) {
  Batch b;
  std::uniform_int_distribution<int> length(1, 40);
  for (int l = 0; l < kLanes; ++l) {
    b.first[l] = b.rows;
    b.len[l] = length(rng);
    b.rows += b.len[l];
  }
  const std::span<const int32_t> ids = ChainRowIds(b.rows, &b.ids);
  for (int l = 0; l < kLanes; ++l) {
    b.lanes.obs[l] = ids.subspan(b.first[l], b.len[l]);
    b.lanes.length = std::max(b.lanes.length, b.len[l]);
  }
  return b;
}

Bits ForwardBackwardOnScores(int K, uint32_t seed) {
  std::mt19937 rng(seed);
  const RowMatrixXd transition = testutil::RandomRows(K, K, 3.0, rng);
  Batch b = MakeBatch(rng);
  const RowMatrixXd scores = testutil::RandomRows(b.rows, K, 3.0, rng);
  std::vector<double> marginals(static_cast<size_t>(b.rows) * K);
  std::vector<float> float_marginals(marginals.size());
  std::array<double*, kLanes> rows{};
  std::array<float*, kLanes> float_rows{};
  for (int l = 0; l < kLanes; ++l) {
    rows[l] = marginals.data() + static_cast<size_t>(b.first[l]) * K;
    float_rows[l] = float_marginals.data() + static_cast<size_t>(b.first[l]) * K;
  }
  LaneVector<Lanes<kLanes>> xi(K * K, Lanes<kLanes>{});
  ChainLanesWork work;
  ChainLanesTables tables;
  const ChainLanesTransition tr = ChainLanesTransition::FromLogPotentials(transition);
  const ChainPotentials potentials{scores.data(), ChainPotentials::Kind::kLogScores, nullptr};
  Bits bits;
  const auto log_z = ChainLanesForwardBackward<double>(potentials, tr, b.lanes, work, rows, xi.data(), &tables);
  const auto float_log_z = ChainLanesForwardBackward<float>(potentials, tr, b.lanes, work, float_rows, nullptr);
  bits.AddAll(log_z.data(), kLanes);
  bits.AddAll(float_log_z.data(), kLanes);
  bits.AddAll(marginals.data(), marginals.size());
  bits.AddAll(float_marginals.data(), float_marginals.size());
  bits.AddLanes(xi);
  bits.AddLanes(tables.alpha);
  bits.AddLanes(tables.beta);
  bits.AddLanes(tables.emit);
  std::vector<double> bigrams(static_cast<size_t>(K) * K, 0.0);
  ChainLanesAddBigrams(tr, xi.data(), bigrams.data());
  bits.AddAll(bigrams.data(), bigrams.size());
  return bits;
}

// An HMM-like probability table: forward-backward with kept tables, then the tangent pass along
// a random direction of emissions, initial and transition.
Bits ForwardBackwardAndTangentOnProbabilities(int K, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  Eigen::MatrixXd a(K, K);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = uniform(rng);
  a = a.array().colwise() / a.rowwise().sum().array();
  Batch b = MakeBatch(rng);
  Eigen::MatrixXd emission(K, b.rows);  // column per position
  for (Eigen::Index i = 0; i < emission.size(); ++i) emission.data()[i] = uniform(rng) * 1e-3;
  Eigen::VectorXd initial = Eigen::VectorXd::Constant(K, 1.0 / K);
  const ChainLanesTransition tr = ChainLanesTransition::FromProbabilities(a);
  const ChainPotentials potentials{emission.data(), ChainPotentials::Kind::kProbabilities, initial.data()};
  LaneVector<Lanes<kLanes>> xi(K * K, Lanes<kLanes>{});
  ChainLanesWork work;
  ChainLanesTables tables;
  std::array<double*, kLanes> rows{};
  const auto log_z = ChainLanesForwardBackward<double>(potentials, tr, b.lanes, work, rows, xi.data(), &tables);
  Bits bits;
  bits.AddAll(log_z.data(), kLanes);
  bits.AddLanes(xi);
  Eigen::MatrixXd u_position(K, b.rows);
  Eigen::VectorXd u_initial(K);
  RowMatrixXd u_transition(K, K);
  std::normal_distribution<double> normal;
  for (Eigen::Index i = 0; i < u_position.size(); ++i) u_position.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < K; ++i) u_initial[i] = normal(rng);
  for (Eigen::Index i = 0; i < u_transition.size(); ++i) u_transition.data()[i] = normal(rng);
  Eigen::MatrixXd d_position = Eigen::MatrixXd::Zero(K, b.rows);
  Eigen::VectorXd d_initial = Eigen::VectorXd::Zero(K);
  RowMatrixXd d_transition = RowMatrixXd::Zero(K, K);
  ChainTangentWork tangent_work;
  ChainLanesTangent(tr, b.lanes, tables, {u_position.data(), u_initial.data(), u_transition.data()}, tangent_work,
                    {d_position.data(), d_initial.data(), d_transition.data()});
  bits.AddAll(d_position.data(), d_position.size());
  bits.AddAll(d_initial.data(), d_initial.size());
  bits.AddAll(d_transition.data(), d_transition.size());
  return bits;
}

Bits ViterbiBothPrecisions(int K, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  RowMatrixXd log_a(K, K);
  for (Eigen::Index i = 0; i < log_a.size(); ++i) log_a.data()[i] = std::log(uniform(rng));
  Batch b = MakeBatch(rng);
  Eigen::MatrixXd log_table(K, b.rows);
  for (Eigen::Index i = 0; i < log_table.size(); ++i) log_table.data()[i] = std::log(uniform(rng));
  const ChainViterbiModel model = ChainViterbiModel::FromLogPotentials(log_a);
  std::vector<int32_t> path(b.rows);
  std::array<int32_t*, kLanes> paths{};
  for (int l = 0; l < kLanes; ++l) paths[l] = path.data() + b.first[l];
  ChainViterbiWork work;
  std::array<double, kLanes> scores{};
  ChainViterbiRun(model, {log_table.data(), false}, b.lanes, &work, paths, &scores);
  Bits bits;
  bits.AddAll(scores.data(), kLanes);
  for (int32_t y : path) bits.Add(static_cast<int64_t>(y));
  const ViterbiF32Model f32(model, log_table.data(), b.rows);
  LaneBatch<kF32Lanes> batch16;
  std::array<int32_t*, kF32Lanes> paths16{};
  for (int l = 0; l < kLanes; ++l) {
    batch16.obs[l] = b.lanes.obs[l];
    paths16[l] = paths[l];
  }
  batch16.length = b.lanes.length;
  std::fill(path.begin(), path.end(), -1);
  ViterbiF32Work f32_work;
  std::array<bool, kF32Lanes> certified{};
  ViterbiF32Run(f32, batch16, &f32_work, paths16, &certified);
  for (int32_t y : path) bits.Add(static_cast<int64_t>(y));
  for (bool c : certified) bits.Add(static_cast<int64_t>(c));
  return bits;
}

// Viterbi as the lane kernels define it, one chain in scalar code of precision R:
// δ_t(j) = max_i [δ_{t-1}(i) + log A(i, j)] + e_t(j) (the same additions, so the same bits), then
// the lowest label of the maximum at every step back. Returns the path; *score = max_i δ_{T-1}(i).
template <class R>
std::vector<int32_t> ScalarViterbi(const std::vector<R>& log_a, const std::vector<R>& e, int K, int len, R* score) {
  std::vector<R> delta(e.begin(), e.begin() + K);
  std::vector<std::vector<R>> deltas = {delta};
  for (int t = 1; t < len; ++t) {
    std::vector<R> next(K);
    for (int j = 0; j < K; ++j) {
      R best = delta[0] + log_a[j];
      for (int i = 1; i < K; ++i) best = std::max(best, delta[i] + log_a[i * K + j]);
      next[j] = best + e[t * K + j];
    }
    delta = next;
    deltas.push_back(delta);
  }
  std::vector<int32_t> path(len);
  int after = -1;
  for (int t = len - 1; t >= 0; --t) {
    int arg = 0;
    R best = deltas[t][0] + (after < 0 ? R(0) : log_a[after]);
    for (int i = 1; i < K; ++i) {
      const R x = deltas[t][i] + (after < 0 ? R(0) : log_a[i * K + after]);
      if (x > best) best = x, arg = i;
    }
    if (t == len - 1) *score = best;
    path[t] = arg;
    after = arg;
  }
  return path;
}

// The double kernel on 8 lanes and the float kernel on all 16, on potentials with many ties
// (multiples of 1/2), against ScalarViterbi, in whatever variant is active. K covers the native
// blocks of every width and their tails, and both ways the float backtrack fetches log A(:, next)
// (permutes of a row for K < 32, gathers from 32 on).
Bits ViterbiAgainstScalar(int K, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> half(-4, 0), length(1, 12);
  RowMatrixXd log_a(K, K);
  for (Eigen::Index i = 0; i < log_a.size(); ++i) log_a.data()[i] = 0.5 * half(rng);
  std::array<int, kF32Lanes> first{}, len{};
  int rows = 0;
  for (int l = 0; l < kF32Lanes; ++l) first[l] = rows, len[l] = length(rng), rows += len[l];
  Eigen::MatrixXd log_table(K, rows);
  for (Eigen::Index i = 0; i < log_table.size(); ++i) log_table.data()[i] = 0.5 * half(rng);
  std::vector<int32_t> ids;
  const std::span<const int32_t> row_ids = ChainRowIds(rows, &ids);
  const ChainViterbiModel model = ChainViterbiModel::FromLogPotentials(log_a);
  const ViterbiF32Model f32(model, log_table.data(), rows);
  std::vector<int32_t> path(rows, -1), path16(rows, -1);
  LaneBatch<kLanes> batch;
  LaneBatch<kF32Lanes> batch16;
  std::array<int32_t*, kLanes> paths{};
  std::array<int32_t*, kF32Lanes> paths16{};
  for (int l = 0; l < kF32Lanes; ++l) {
    batch16.obs[l] = row_ids.subspan(first[l], len[l]);
    batch16.length = std::max(batch16.length, len[l]);
    paths16[l] = path16.data() + first[l];
    if (l >= kLanes) continue;
    batch.obs[l] = batch16.obs[l];
    batch.length = std::max(batch.length, len[l]);
    paths[l] = path.data() + first[l];
  }
  ChainViterbiWork work;
  std::array<double, kLanes> scores{};
  ChainViterbiRun(model, {log_table.data(), false}, batch, &work, paths, &scores);
  ViterbiF32Work f32_work;
  std::array<bool, kF32Lanes> certified{};
  ViterbiF32Run(f32, batch16, &f32_work, paths16, &certified);

  std::vector<double> a(log_a.data(), log_a.data() + log_a.size());
  const std::vector<float> a_float(a.begin(), a.end());
  Bits bits;
  for (int l = 0; l < kF32Lanes; ++l) {
    const double* column = log_table.data() + static_cast<size_t>(first[l]) * K;
    const std::vector<double> e(column, column + static_cast<size_t>(len[l]) * K);
    const std::vector<float> e_float(e.begin(), e.end());
    float score_float;
    EXPECT_EQ(std::vector<int32_t>(path16.begin() + first[l], path16.begin() + first[l] + len[l]),
              ScalarViterbi<float>(a_float, e_float, K, len[l], &score_float))
        << "float lane " << l << " K " << K << " " << IsaName(ActiveIsa());
    if (l < kLanes) {
      double score;
      EXPECT_EQ(std::vector<int32_t>(path.begin() + first[l], path.begin() + first[l] + len[l]),
                ScalarViterbi<double>(a, e, K, len[l], &score))
          << "lane " << l << " K " << K << " " << IsaName(ActiveIsa());
      EXPECT_EQ(std::bit_cast<uint64_t>(scores[l]), std::bit_cast<uint64_t>(score)) << "lane " << l;
      bits.Add(scores[l]);
    }
    bits.Add(static_cast<int64_t>(certified[l]));
  }
  for (int32_t y : path) bits.Add(static_cast<int64_t>(y));
  for (int32_t y : path16) bits.Add(static_cast<int64_t>(y));
  return bits;
}

Bits CrfObjective(int K, int order, uint32_t seed) {
  std::mt19937 rng(seed);
  const int attributes = 500;
  std::uniform_int_distribution<int> length(1, 30), attr(0, attributes - 1), label(0, K - 1), per_token(1, 12);
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;
  for (int n = 0; n < 150; ++n) {
    SentenceFeatures s;
    s.offsets.push_back(0);
    std::vector<int32_t> y;
    for (int t = 0, T = length(rng); t < T; ++t) {
      for (int i = 0, m = per_token(rng); i < m; ++i) s.ids.push_back(attr(rng));
      s.offsets.push_back(static_cast<int32_t>(s.ids.size()));
      y.push_back(label(rng));
    }
    sentences.push_back(std::move(s));
    labels.push_back(std::move(y));
  }
  const CrfLayout layout{attributes, K, order};
  std::normal_distribution<double> normal(0, 0.7);
  Eigen::VectorXd w(layout.size());
  for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = normal(rng);
  Bits bits;
  for (int threads : {1, 2}) {
    CrfLikelihood objective(sentences, labels, layout, 2.0, threads);
    Eigen::VectorXd gradient;
    bits.Add(objective.Evaluate(w, gradient));
    bits.AddAll(gradient.data(), gradient.size());
  }
  return bits;
}

// CombinePairs' definition, one element at a time.
template <class T>
double CombinePairsByDefinition(const std::vector<double>& g, double gamma, const std::vector<std::vector<T>>& y,
                                const std::vector<std::vector<T>>& s, const std::vector<double>& c,
                                const std::vector<double>& a, std::vector<T>* d, std::vector<T>* y_next) {
  const size_t n = g.size();
  for (size_t j = 0; j < n; ++j) {
    double acc = -gamma * g[j];
    for (size_t k = 0; k < y.size(); ++k)
      acc += c[k] * static_cast<double>(y[k][j]) - a[k] * static_cast<double>(s[k][j]);
    (*d)[j] = mixed_dot_internal::Stored<T>(acc);
    (*y_next)[j] = mixed_dot_internal::Stored<T>(-g[j]);
  }
  return MixedDot(g.data(), d->data(), static_cast<Eigen::Index>(n));
}

// CombinePairs on m pairs against its definition: the direction, y_next and the slope, with
// y_next in its own vector and in the place of pair 0's y (as CorrectionHistory::Combine uses it
// once the history is full); tiny values make the single-precision flush of subnormals matter.
template <class T>
void AddCombinePairs(std::mt19937& rng, Eigen::Index n, int m, Bits& bits) {
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> exponent(-140, 2);
  auto value = [&] { return std::ldexp(normal(rng), exponent(rng)); };
  std::vector<double> g(n), c(m), a(m);
  std::vector<std::vector<T>> y(m, std::vector<T>(n)), s(m, std::vector<T>(n));
  for (double& v : g) v = value();
  for (int k = 0; k < m; ++k) {
    c[k] = normal(rng), a[k] = normal(rng);
    for (Eigen::Index j = 0; j < n; ++j) y[k][j] = static_cast<T>(value()), s[k][j] = static_cast<T>(value());
  }
  const double gamma = 0.75;
  std::vector<T> want_d(n), want_y_next(n);
  const double want_slope = CombinePairsByDefinition(g, gamma, y, s, c, a, &want_d, &want_y_next);
  for (bool y_next_is_pair_0 : {false, true}) {
    if (y_next_is_pair_0 && m == 0) continue;
    std::vector<std::vector<T>> y_copy = y;
    std::vector<const T*> yp(m), sp(m);
    for (int k = 0; k < m; ++k) yp[k] = y_copy[k].data(), sp[k] = s[k].data();
    std::vector<T> d(n), own_y_next(n);
    T* y_next = y_next_is_pair_0 ? y_copy[0].data() : own_y_next.data();
    const double slope =
        CombinePairs(g.data(), gamma, yp.data(), sp.data(), c.data(), a.data(), m, d.data(), y_next, n);
    EXPECT_EQ(std::bit_cast<uint64_t>(slope), std::bit_cast<uint64_t>(want_slope))
        << IsaName(ActiveIsa()) << " n " << n;
    const auto same_bits = [](T x, T w) {
      return std::bit_cast<std::array<char, sizeof(T)>>(x) == std::bit_cast<std::array<char, sizeof(T)>>(w);
    };
    EXPECT_TRUE(std::equal(d.begin(), d.end(), want_d.begin(), same_bits)) << IsaName(ActiveIsa()) << " n " << n;
    EXPECT_TRUE(std::equal(want_y_next.begin(), want_y_next.end(), y_next, same_bits))
        << IsaName(ActiveIsa()) << " n " << n;
    bits.Add(slope);
    bits.AddAll(d.data(), d.size());
  }
}

Bits LbfgsDots(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Bits bits;
  for (Eigen::Index n : {7, 1000, 100003}) {
    Eigen::VectorXd a(n), b(n);
    for (Eigen::Index i = 0; i < n; ++i) a[i] = normal(rng), b[i] = normal(rng);
    const Eigen::VectorXf af = a.cast<float>(), bf = b.cast<float>();
    bits.Add(MixedDot(a.data(), b.data(), n));
    bits.Add(MixedDot(af.data(), b.data(), n));
    bits.Add(MixedDot(a.data(), bf.data(), n));
    bits.Add(MixedDot(af.data(), bf.data(), n));
  }
  for (Eigen::Index n : {0, 5, 8, 31, 32, 77, 1000}) {
    for (int m : {0, 1, 4}) {
      AddCombinePairs<double>(rng, n, m, bits);
      AddCombinePairs<float>(rng, n, m, bits);
    }
  }
  return bits;
}

// The one-chain Viterbi (labels in lanes: blocks of 2, 4 or 8 labels by variant) on potentials
// with many ties, against ScalarViterbi: paths and score bits.
Bits OneChainViterbiAgainstScalar(int K, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> half(-4, 0), length(1, 40);
  const int T = length(rng);
  RowMatrixXd log_a(K, K), e(T, K);
  for (Eigen::Index i = 0; i < log_a.size(); ++i) log_a.data()[i] = 0.5 * half(rng);
  for (Eigen::Index i = 0; i < e.size(); ++i) e.data()[i] = 0.5 * half(rng);
  OneChainViterbiWork work;
  std::vector<int32_t> path(T, -1);
  const double score = OneChainViterbi(OneChainViterbiModel::FromLogPotentials(log_a), e.data(), T, &work, path.data());
  double want_score = 0;
  const std::vector<int32_t> want =
      ScalarViterbi(std::vector<double>(log_a.data(), log_a.data() + log_a.size()),
                    std::vector<double>(e.data(), e.data() + e.size()), K, T, &want_score);
  EXPECT_EQ(path, want) << "K=" << K;
  EXPECT_EQ(std::bit_cast<uint64_t>(score), std::bit_cast<uint64_t>(want_score)) << "K=" << K;
  Bits bits;
  for (int32_t y : path) bits.Add(static_cast<int64_t>(y));
  bits.Add(score);
  return bits;
}

Bits LogTable(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(1e-6, 3.0);
  std::vector<double> x(10007);
  for (double& v : x) v = uniform(rng);
  LogInPlace(x.data(), x.size());
  Bits bits;
  bits.AddAll(x.data(), x.size());
  return bits;
}

void ExpectEveryVariantMatchesBaseline(const std::function<Bits()>& run) {
  SetActiveIsa(Isa::kBaseline);
  const Bits want = run();
  for (Isa isa : SupportedIsas()) {
    SetActiveIsa(isa);
    const Bits got = run();
    ASSERT_EQ(got.words.size(), want.words.size()) << IsaName(isa);
    const auto mismatch = std::mismatch(got.words.begin(), got.words.end(), want.words.begin());
    EXPECT_TRUE(mismatch.first == got.words.end())
        << IsaName(isa) << " differs from baseline at output " << (mismatch.first - got.words.begin()) << " of "
        << got.words.size();
  }
  SetActiveIsa(SupportedIsas().back());
}

TEST(IsaVariants, ThisMachineRunsMoreThanTheBaseline) {
  // The comparisons below are only worth their name where a wider variant runs; CI's machines
  // have AVX2 at least (x86-64-v3, 2013 on).
  EXPECT_GE(SupportedIsas().size(), 2u);
}

TEST(IsaVariants, ForwardBackwardOnScoresHasTheSameBits) {
  for (int K : {5, 23, 40}) ExpectEveryVariantMatchesBaseline([&] { return ForwardBackwardOnScores(K, 11 + K); });
}

TEST(IsaVariants, ForwardBackwardAndTangentOnProbabilitiesHaveTheSameBits) {
  for (int K : {3, 12, 33}) {
    ExpectEveryVariantMatchesBaseline([&] { return ForwardBackwardAndTangentOnProbabilities(K, 5 + K); });
  }
}

TEST(IsaVariants, ViterbiInDoubleAndFloatHasTheSameBits) {
  for (int K : {4, 23, 45}) ExpectEveryVariantMatchesBaseline([&] { return ViterbiBothPrecisions(K, 3 + K); });
}

TEST(IsaVariants, ViterbiOnNativePiecesMatchesAScalarDecoderWithTies) {
  for (int K : {1, 2, 3, 4, 5, 8, 9, 13, 31, 32, 33}) {
    ExpectEveryVariantMatchesBaseline([&] { return ViterbiAgainstScalar(K, 17 + K); });
  }
}

TEST(IsaVariants, OneChainViterbiMatchesAScalarDecoderWithTies) {
  for (int K : {1, 2, 3, 4, 5, 8, 9, 13, 31, 32, 33, 41}) {
    ExpectEveryVariantMatchesBaseline([&] { return OneChainViterbiAgainstScalar(K, 29 + K); });
  }
}

TEST(IsaVariants, LogTablesHaveTheSameBits) {
  ExpectEveryVariantMatchesBaseline([] { return LogTable(4); });
}

TEST(IsaVariants, LbfgsVectorPassesHaveTheSameBits) {
  ExpectEveryVariantMatchesBaseline([] { return LbfgsDots(9); });
}

TEST(IsaVariants, CrfObjectiveAndGradientHaveTheSameBits) {
  for (int K : {3, 8, 17, 23, 32, 40}) ExpectEveryVariantMatchesBaseline([&] { return CrfObjective(K, 1, 7 + K); });
}

// The second-order lattice runs its K x K steps in blocks of the clone's width (K = 9 and 22 leave
// tails of every block size at 4 and 8 columns; 22 is CoNLL-2000's chunk tag set).
TEST(IsaVariants, SecondOrderCrfObjectiveAndGradientHaveTheSameBits) {
  for (int K : {3, 9, 22}) ExpectEveryVariantMatchesBaseline([&] { return CrfObjective(K, 2, 13 + K); });
}

}  // namespace isa_variants_test
}  // namespace seqflow
