#include "nodes/multiview/hm_perceptron.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "nodes/chain/linear_chain.h"
#include "tests/testutil/chain_brute_force.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace hm_perceptron_test {

SentenceFeatures Tokens(const std::vector<std::vector<int32_t>>& attributes) {
  SentenceFeatures x;
  x.offsets = {0};
  for (const auto& token : attributes) {
    x.ids.insert(x.ids.end(), token.begin(), token.end());
    x.offsets.push_back(static_cast<int32_t>(x.ids.size()));
  }
  return x;
}

// Two labels; attributes a0, a1 in view 1 (index 0) and a2, a3 in view 2 (index 1). One labeled
// sentence x = ({a0, a2}, {a1, a3}) with y = (1, 0), one unlabeled u = ({a0, a3}, {a1, a2}).
struct TwoSentences {
  std::vector<SentenceFeatures> labeled{Tokens({{0, 2}, {1, 3}})};
  std::vector<std::vector<int32_t>> labels{{1, 0}};
  std::vector<SentenceFeatures> unlabeled{Tokens({{0, 3}, {1, 2}})};
  std::vector<int32_t> view{0, 0, 1, 1};
  HmPerceptronData data() const { return {&labeled, &labels, &unlabeled, &view, 2}; }
};

HmPerceptronOptions OneEpoch(bool averaged) {
  HmPerceptronOptions o;
  o.epochs = 1;
  o.c_u = 0.5;
  o.averaged = averaged;
  return o;
}

// By hand. All weights 0: both views decode x as (0, 0) (ties go to the lower label), so Eq. 15
// adds Φ^v(x, y) − Φ^v(x, (0,0)) to each view: W[a0] = W[a2] = (−1, 1), T^v(1,0) = 1, T^v(0,0) = −1.
// On u, view 1 scores (y0, y1) as W[a0](y0) + T(y0, y1): (1, 0) wins with 2; view 2 scores
// W[a2](y1) + T(y0, y1): (0, 1) and (1, 1) tie at 1 and Viterbi keeps (0, 1). They disagree, so
// Eq. 16 moves view 1 by 0.5 (Φ¹(u, (0,1)) − Φ¹(u, (1,0))) and view 2 by 0.5 (Φ²(u, (1,0)) − Φ²(u, (0,1))).
TEST(HmPerceptron, HandWorkedTwoSentenceEpoch) {
  const TwoSentences s;
  Result<HmPerceptronResult> r = TrainHmPerceptron(s.data(), OneEpoch(false), {}, {});
  ASSERT_OK(r);
  const HmPerceptronWeights& w = r.value().weights;
  RowMatrixXd W(4, 2);
  W << -0.5, 0.5,  //
      -0.5, 0.5,   //
      -0.5, 0.5,   //
      -0.5, 0.5;
  RowMatrixXd T1(2, 2), T2(2, 2);
  T1 << -1, 0.5, 0.5, 0;
  T2 << -1, -0.5, 1.5, 0;
  EXPECT_EQ(w.observation, W);
  EXPECT_EQ(w.transition[0], T1);
  EXPECT_EQ(w.transition[1], T2);
  EXPECT_EQ(r.value().epochs[0].labeled_errors, 2);
  EXPECT_EQ(r.value().epochs[0].disagreements, 1);
}

// Averaged: the mean of w after the labeled visit (Δ_l) and after the unlabeled one (Δ_l + Δ_u).
TEST(HmPerceptron, HandWorkedAverage) {
  const TwoSentences s;
  Result<HmPerceptronResult> r = TrainHmPerceptron(s.data(), OneEpoch(true), {}, {});
  ASSERT_OK(r);
  const HmPerceptronWeights& w = r.value().weights;
  RowMatrixXd W(4, 2);
  W << -0.75, 0.75,  // a0: (−1, 1) + (0.5, −0.5) / 2
      -0.25, 0.25,   // a1: (−0.5, 0.5) / 2
      -0.75, 0.75,   // a2: (−1, 1) + (0.5, −0.5) / 2
      -0.25, 0.25;   // a3: (−0.5, 0.5) / 2
  EXPECT_EQ(w.observation, W);
  RowMatrixXd T1(2, 2);
  T1 << -1, 0.25, 0.75, 0;
  EXPECT_EQ(w.transition[0], T1);
}

// Table 1 visits every labeled sequence in every epoch, fitted or not. In epoch 1 Eq. 15 fits
// view 1 to x (W[a0] = (−1, 1), W[a1] = 0, T¹(1,0) = 1: (1, 0) scores 2, (1, 1) scores 1); the
// disagreement on u then moves view 1 by Eq. 16 (HandWorkedTwoSentenceEpoch), after which (1, 1)
// scores 1 against 0.5 for y = (1, 0). Epoch 2 decodes x again and corrects view 1 with weight 1;
// with C_u = 0 nothing undoes the fit. Eq. 16 gives the views opposite transition moves, so the
// transition block of the joint decision (T¹ + T², Eq. 17) moves with labeled updates only.
TEST(HmPerceptron, LabeledSequenceUndoneByAConsensusUpdateIsCorrectedNextEpoch) {
  const TwoSentences s;
  for (double c_u : {0.0, 0.5}) {
    HmPerceptronOptions o = OneEpoch(false);
    o.c_u = c_u;
    o.epochs = 3;
    Result<HmPerceptronResult> r = TrainHmPerceptron(s.data(), o, {}, {});
    ASSERT_OK(r);
    SCOPED_TRACE(testing::Message() << "C_u " << c_u);
    const std::vector<HmPerceptronEpoch>& e = r.value().epochs;
    EXPECT_EQ(e[0].labeled_errors, 2);
    EXPECT_EQ(e[0].disagreements, c_u > 0 ? 1 : 0);
    EXPECT_EQ(e[1].labeled_errors, c_u > 0 ? 1 : 0);
    EXPECT_EQ(e[2].labeled_errors, 0);
    o.epochs = 1;
    const HmPerceptronWeights w = TrainHmPerceptron(s.data(), o, {}, {}).value().weights;
    RowMatrixXd joint(2, 2);
    joint << -2, 0, 2, 0;
    EXPECT_EQ(w.transition[0] + w.transition[1], joint);
  }
}

// One view: every attribute in it, unlabeled data unused; the labeled error updates all of x.
TEST(HmPerceptron, SingleViewUpdatesEveryAttribute) {
  const TwoSentences s;
  HmPerceptronOptions o = OneEpoch(false);
  o.views = 1;
  Result<HmPerceptronResult> r = TrainHmPerceptron(s.data(), o, {}, {});
  ASSERT_OK(r);
  RowMatrixXd W(4, 2);
  W << -1, 1, 0, 0, -1, 1, 0, 0;
  EXPECT_EQ(r.value().weights.observation, W);
  ASSERT_EQ(r.value().weights.transition.size(), 1u);
  EXPECT_EQ(r.value().epochs[0].labeled_errors, 1);
  EXPECT_EQ(r.value().epochs[0].disagreements, 0);
}

TEST(HmPerceptron, SeparableDataIsLearned) {
  const TwoSentences s;
  HmPerceptronOptions o = OneEpoch(false);
  o.epochs = 5;
  Result<HmPerceptronResult> r = TrainHmPerceptron(s.data(), o, {}, {});
  ASSERT_OK(r);
  EXPECT_EQ(r.value().epochs.back().labeled_errors, 0);
  RowMatrixXd scores;
  for (int v = 0; v < 2; ++v) {
    ViewScores(r.value().weights.observation, s.labeled[0], &s.view, v, &scores);
    EXPECT_EQ(ChainViterbi(scores, r.value().weights.transition[v]), s.labels[0]) << "view " << v;
  }
}

// Each view's decode (Eq. 14) is the argmax over all labellings of f^v computed term by term.
TEST(HmPerceptron, ViewDecodeEqualsBruteForceArgmax) {
  std::mt19937 rng(5);
  const int A = 7, K = 3;
  const std::vector<int32_t> view = {0, 1, 0, 1, 1, 0, 1};
  for (int trial = 0; trial < 30; ++trial) {
    const int T = 1 + trial % 4;
    const RowMatrixXd W = testutil::RandomRows(A, K, 1.0, rng);
    const RowMatrixXd trans = testutil::RandomRows(K, K, 1.0, rng);
    std::vector<std::vector<int32_t>> tokens(T);
    for (auto& token : tokens)
      for (int a = 0; a < A; ++a)
        if (rng() % 2) token.push_back(a);
    const SentenceFeatures x = Tokens(tokens);
    for (int v = 0; v < 2; ++v) {
      std::vector<int32_t> y(T, 0), best;
      double best_score = -1e300;
      do {
        double f = 0;
        for (int t = 0; t < T; ++t) {
          for (int32_t a : tokens[t])
            if (view[a] == v) f += W(a, y[t]);
          if (t > 0) f += trans(y[t - 1], y[t]);
        }
        if (f > best_score) best_score = f, best = y;
      } while (testutil::NextLabelling(&y, K));
      RowMatrixXd scores;
      ViewScores(W, x, &view, v, &scores);
      EXPECT_EQ(ChainViterbi(scores, trans), best) << "trial " << trial << " view " << v;
    }
  }
}

// A view's sentences (ViewSentences) scored by the CRF's gather give the bits of the filtering
// ViewScores on the whole sentence.
TEST(HmPerceptron, ViewSentencesScoreAsTheFilteredSentence) {
  std::mt19937 rng(3);
  const int A = 40, K = 9;
  const RowMatrixXd W = testutil::RandomRows(A, K, 1.0, rng);
  std::vector<int32_t> view(A);
  for (int32_t& v : view) v = static_cast<int32_t>(rng() % 2);
  std::vector<SentenceFeatures> sentences;
  for (int n = 0; n < 6; ++n) {
    std::vector<std::vector<int32_t>> tokens(1 + n % 5);
    for (auto& token : tokens)
      for (int i = 0; i < 12; ++i) token.push_back(static_cast<int32_t>(rng() % A));
    sentences.push_back(Tokens(tokens));
  }
  for (int v = 0; v < 2; ++v) {
    const std::vector<SentenceFeatures> split = ViewSentences(sentences, view, v);
    ASSERT_EQ(split.size(), sentences.size());
    for (size_t n = 0; n < sentences.size(); ++n) {
      for (int32_t a : split[n].ids) EXPECT_EQ(view[a], v);
      RowMatrixXd want, got;
      ViewScores(W, sentences[n], &view, v, &want);
      ObservationScores(W, split[n], &got);
      EXPECT_EQ(got, want) << "view " << v << " sentence " << n;
    }
  }
}

// Table 1 written out plainly (the lane Viterbi, PerceptronUpdate on the whole sentence with the
// view filter, the average as the sum of w after every visit over the visits) on a random run of
// several epochs: TrainHmPerceptron's w is the same bits, and its lazy average the same to rounding.
HmPerceptronWeights NaivePerceptron(const HmPerceptronData& d, const HmPerceptronOptions& o, bool average) {
  const int V = o.views, K = d.num_labels;
  const std::vector<int32_t>* view_of = V == 1 ? nullptr : d.view;
  HmPerceptronWeights w{RowMatrixXd::Zero(static_cast<Eigen::Index>(d.view->size()), K),
                        std::vector<RowMatrixXd>(static_cast<size_t>(V), RowMatrixXd::Zero(K, K))};
  HmPerceptronWeights sum = w;
  double visits = 0;
  auto decode = [&](const SentenceFeatures& x, int v) {
    RowMatrixXd scores;
    ViewScores(w.observation, x, view_of, v, &scores);
    return ChainViterbi(scores, w.transition[static_cast<size_t>(v)]);
  };
  auto visited = [&] {
    sum.observation += w.observation;
    for (int v = 0; v < V; ++v) sum.transition[v] += w.transition[v];
    visits += 1;
  };
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    for (size_t n = 0; n < d.labeled->size(); ++n) {
      const SentenceFeatures& x = (*d.labeled)[n];
      std::vector<std::vector<int32_t>> yhat;
      for (int v = 0; v < V; ++v) yhat.push_back(decode(x, v));
      for (int v = 0; v < V; ++v)
        if (yhat[v] != (*d.labels)[n])
          PerceptronUpdate(x, view_of, v, (*d.labels)[n], yhat[v], 1.0, &w.observation, &w.transition[v]);
      visited();
    }
    const double c_u = UnlabeledWeight(o.c_u, o.growth, epoch);
    if (V == 2 && c_u > 0) {
      for (const SentenceFeatures& x : *d.unlabeled) {
        const std::vector<int32_t> y0 = decode(x, 0), y1 = decode(x, 1);
        if (y0 != y1) {
          PerceptronUpdate(x, view_of, 0, y1, y0, c_u, &w.observation, &w.transition[0]);
          PerceptronUpdate(x, view_of, 1, y0, y1, c_u, &w.observation, &w.transition[1]);
        }
        visited();
      }
    }
  }
  if (!average) return w;
  sum.observation /= visits;
  for (int v = 0; v < V; ++v) sum.transition[v] /= visits;
  return sum;
}

TEST(HmPerceptron, TrainingMatchesTable1WrittenOutPlainly) {
  std::mt19937 rng(8);
  const int A = 30, K = 4;
  std::vector<int32_t> view(A);
  for (int32_t& v : view) v = static_cast<int32_t>(rng() % 2);
  auto sentence = [&] {
    std::vector<std::vector<int32_t>> tokens(2 + rng() % 5);
    for (auto& token : tokens)
      for (int i = 0; i < 5; ++i) token.push_back(static_cast<int32_t>(rng() % A));
    return Tokens(tokens);
  };
  std::vector<SentenceFeatures> labeled, unlabeled;
  std::vector<std::vector<int32_t>> labels;
  for (int n = 0; n < 8; ++n) {
    labeled.push_back(sentence());
    labels.emplace_back();
    for (int t = 0; t < labeled.back().size(); ++t) labels.back().push_back(static_cast<int32_t>(rng() % K));
  }
  for (int n = 0; n < 12; ++n) unlabeled.push_back(sentence());
  const HmPerceptronData data{&labeled, &labels, &unlabeled, &view, K};
  for (int views : {1, 2}) {
    for (bool averaged : {false, true}) {
      HmPerceptronOptions o;
      o.views = views;
      o.epochs = 4;
      o.c_u = 0.3;
      o.growth.schedule = UnlabeledWeightSchedule::kExponential;
      o.growth.ramp = 3;
      o.averaged = averaged;
      Result<HmPerceptronResult> r = TrainHmPerceptron(data, o, {}, {});
      ASSERT_OK(r);
      const HmPerceptronWeights want = NaivePerceptron(data, o, averaged);
      const HmPerceptronWeights& got = r.value().weights;
      SCOPED_TRACE(testing::Message() << "views " << views << " averaged " << averaged);
      int64_t disagreements = 0;
      for (const HmPerceptronEpoch& e : r.value().epochs) disagreements += e.disagreements;
      EXPECT_EQ(disagreements > 0, views == 2);
      if (!averaged) {
        EXPECT_EQ(got.observation, want.observation);
        for (int v = 0; v < views; ++v) EXPECT_EQ(got.transition[v], want.transition[v]);
        EXPECT_NE(got.observation, RowMatrixXd::Zero(A, K));
        continue;
      }
      EXPECT_LT((got.observation - want.observation).cwiseAbs().maxCoeff(), 1e-12);
      for (int v = 0; v < views; ++v) EXPECT_LT((got.transition[v] - want.transition[v]).cwiseAbs().maxCoeff(), 1e-12);
    }
  }
}

TEST(HmPerceptron, ExponentialScheduleReachesCuAtTheRamp) {
  HmPerceptronOptions o;
  o.c_u = 0.5;
  o.growth.schedule = UnlabeledWeightSchedule::kExponential;
  o.growth.ramp = 30;
  o.growth.c_u_start = 1e-3;
  EXPECT_DOUBLE_EQ(UnlabeledWeight(o.c_u, o.growth, 1), 0.5e-3);
  EXPECT_DOUBLE_EQ(UnlabeledWeight(o.c_u, o.growth, 30), 0.5);
  EXPECT_DOUBLE_EQ(UnlabeledWeight(o.c_u, o.growth, 45), 0.5);
  EXPECT_NEAR(UnlabeledWeight(o.c_u, o.growth, 16) / UnlabeledWeight(o.c_u, o.growth, 15), std::pow(1e3, 1.0 / 29),
              1e-12);
  o.growth.schedule = UnlabeledWeightSchedule::kConstant;
  EXPECT_EQ(UnlabeledWeight(o.c_u, o.growth, 1), 0.5);
}

TEST(HmPerceptron, MalformedDataIsInvalid) {
  TwoSentences s;
  s.labels[0] = {1, 5};
  EXPECT_FALSE(TrainHmPerceptron(s.data(), OneEpoch(false), {}, {}).ok());
  s.labels[0] = {1};
  EXPECT_FALSE(TrainHmPerceptron(s.data(), OneEpoch(false), {}, {}).ok());
  TwoSentences bad_attribute;
  bad_attribute.unlabeled[0] = Tokens({{9}});
  EXPECT_FALSE(TrainHmPerceptron(bad_attribute.data(), OneEpoch(false), {}, {}).ok());
  TwoSentences empty;
  empty.unlabeled.push_back(Tokens({}));
  EXPECT_FALSE(TrainHmPerceptron(empty.data(), OneEpoch(false), {}, {}).ok());
}

TEST(HmPerceptron, CancelledBetweenEpochs) {
  const TwoSentences s;
  std::atomic<bool> flag{true};
  Result<HmPerceptronResult> r = TrainHmPerceptron(s.data(), OneEpoch(false), {}, CancelToken(&flag));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
}

}  // namespace hm_perceptron_test
}  // namespace seqflow
