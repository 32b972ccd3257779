// multiview.perceptron's checkpoints: resumed from the state of any epoch, training ends with the
// same bits (weights, the average, every epoch's counts) as a run never interrupted, for one and
// two views, averaged or not, under the exponential C_u schedule; the state the last epoch of a
// shorter run ended in continues to the longer run's bits; a state that does not fit (other
// dimensions, views, averaging) or lies past the epochs is refused.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "nodes/multiview/hm_perceptron.h"
#include "tests/testutil/state_fingerprint.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace hm_perceptron_resume_test {

struct RandomData {
  explicit RandomData(int A = 30, int K = 4) : num_labels(K), view(static_cast<size_t>(A)) {
    std::mt19937 rng(8);
    for (int32_t& v : view) v = static_cast<int32_t>(rng() % 2);
    auto sentence = [&] {
      SentenceFeatures x;
      x.offsets = {0};
      for (uint32_t t = 0, T = 2 + rng() % 5; t < T; ++t) {
        for (int i = 0; i < 5; ++i) x.ids.push_back(static_cast<int32_t>(rng() % static_cast<uint32_t>(A)));
        x.offsets.push_back(static_cast<int32_t>(x.ids.size()));
      }
      return x;
    };
    for (int n = 0; n < 8; ++n) {
      labeled.push_back(sentence());
      labels.emplace_back();
      for (int t = 0; t < labeled.back().size(); ++t) labels.back().push_back(static_cast<int32_t>(rng() % K));
    }
    for (int n = 0; n < 12; ++n) unlabeled.push_back(sentence());
  }
  HmPerceptronData data() const { return {&labeled, &labels, &unlabeled, &view, num_labels}; }

  int32_t num_labels;
  std::vector<int32_t> view;
  std::vector<SentenceFeatures> labeled, unlabeled;
  std::vector<std::vector<int32_t>> labels;
};

HmPerceptronOptions Options(int views, bool averaged, int epochs) {
  HmPerceptronOptions o;
  o.views = views;
  o.epochs = epochs;
  o.c_u = 0.3;
  o.growth.schedule = UnlabeledWeightSchedule::kExponential;
  o.growth.ramp = 4;
  o.averaged = averaged;
  return o;
}

struct Training {
  HmPerceptronResult result;
  std::vector<std::string> states;  // after every epoch
  std::string final_state;
};

Training Train(const RandomData& d, const HmPerceptronOptions& o, const std::string* resume_from = nullptr) {
  Training t;
  KernelCheckpoints checkpoints;
  checkpoints.resume_from = resume_from;
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) { t.states.push_back(encode().Join()); };
  checkpoints.keep_final = [&](int64_t epochs, const std::function<std::string()>& encode) {
    EXPECT_EQ(epochs, o.epochs);
    t.final_state = encode();
  };
  Result<HmPerceptronResult> r = TrainHmPerceptron(d.data(), o, {}, {}, checkpoints);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) t.result = std::move(r).value();
  return t;
}

void ExpectSameBits(const HmPerceptronResult& a, const HmPerceptronResult& b) {
  EXPECT_EQ(a.weights.observation, b.weights.observation);
  ASSERT_EQ(a.weights.transition.size(), b.weights.transition.size());
  for (size_t v = 0; v < a.weights.transition.size(); ++v) EXPECT_EQ(a.weights.transition[v], b.weights.transition[v]);
  ASSERT_EQ(a.epochs.size(), b.epochs.size());
  for (size_t e = 0; e < a.epochs.size(); ++e) {
    EXPECT_EQ(a.epochs[e].epoch, b.epochs[e].epoch);
    EXPECT_EQ(a.epochs[e].c_u, b.epochs[e].c_u);
    EXPECT_EQ(a.epochs[e].labeled_errors, b.epochs[e].labeled_errors);
    EXPECT_EQ(a.epochs[e].disagreements, b.epochs[e].disagreements);
  }
}

TEST(HmPerceptronResume, FromEveryEpochToTheSameBits) {
  const RandomData d;
  for (int views : {1, 2})
    for (bool averaged : {false, true}) {
      SCOPED_TRACE(testing::Message() << "views " << views << " averaged " << averaged);
      const HmPerceptronOptions o = Options(views, averaged, 6);
      const Training whole = Train(d, o);
      ASSERT_EQ(whole.states.size(), 6u);
      for (size_t e = 0; e < whole.states.size(); ++e) {
        SCOPED_TRACE("resumed after epoch " + std::to_string(e + 1));
        const Training resumed = Train(d, o, &whole.states[e]);
        EXPECT_EQ(resumed.states.size(), 5 - e);
        ExpectSameBits(resumed.result, whole.result);
        EXPECT_EQ(resumed.final_state, whole.final_state);
      }
    }
}

TEST(HmPerceptronResume, AShorterRunsFinalStateContinuesToTheLongerRunsBits) {
  const RandomData d;
  for (bool averaged : {false, true}) {
    const Training shorter = Train(d, Options(2, averaged, 3));
    ASSERT_FALSE(shorter.final_state.empty());
    ExpectSameBits(Train(d, Options(2, averaged, 7), &shorter.final_state).result, Train(d, Options(2, averaged, 7)).result);
    // The same budget again ends at once with the shorter run's weights.
    ExpectSameBits(Train(d, Options(2, averaged, 3), &shorter.final_state).result, shorter.result);
  }
}

TEST(HmPerceptronResume, RefusesAStateThatDoesNotFitOrIsPastTheEpochs) {
  const RandomData d;
  const Training run = Train(d, Options(2, true, 4));
  auto refused = [&](const RandomData& data, const HmPerceptronOptions& o, const std::string& state) {
    KernelCheckpoints from;
    from.resume_from = &state;
    Result<HmPerceptronResult> r = TrainHmPerceptron(data.data(), o, {}, {}, from);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().ToString();
  };
  refused(d, Options(2, true, 3), run.states[3]);  // epoch 4 of 3
  refused(d, Options(1, true, 4), run.states[1]);
  refused(d, Options(2, false, 4), run.states[1]);
  refused(RandomData(31, 4), Options(2, true, 4), run.states[1]);
  refused(RandomData(30, 5), Options(2, true, 4), run.states[1]);
  std::string truncated = run.states[1];
  truncated.resize(truncated.size() - 8);
  refused(d, Options(2, true, 4), truncated);
}

// The bytes of the states training offers (after epochs 1 and 6) and keeps, pinned for one view
// without the average and two views with it (U is written only when averaged): a state saved by
// an earlier build must still resume (tests/testutil/state_fingerprint.h).
TEST(HmPerceptronResume, StateBytesAreThoseOfEarlierBuilds) {
  struct Pinned {
    int views;
    bool averaged;
    uint64_t first, last, final_state;
  };
  const RandomData d;
  for (const Pinned& pinned : {Pinned{1, false, 0xad1304a79edab305ULL, 0x7ea69a2f8cf89e52ULL, 0x7ea69a2f8cf89e52ULL},
                               Pinned{2, true, 0x8c3fb3b5fe275ea5ULL, 0x78de80e75ece1703ULL, 0x78de80e75ece1703ULL}}) {
    SCOPED_TRACE(testing::Message() << "views " << pinned.views << " averaged " << pinned.averaged);
    const Training t = Train(d, Options(pinned.views, pinned.averaged, 6));
    ASSERT_EQ(t.states.size(), 6u);
    const uint64_t first = testutil::StateFingerprint(t.states.front()),
                   last = testutil::StateFingerprint(t.states.back()),
                   final_state = testutil::StateFingerprint(t.final_state);
    EXPECT_EQ(first, pinned.first) << std::hex << "0x" << first;
    EXPECT_EQ(last, pinned.last) << std::hex << "0x" << last;
    EXPECT_EQ(final_state, pinned.final_state) << std::hex << "0x" << final_state;
  }
}

}  // namespace hm_perceptron_resume_test
}  // namespace seqflow
