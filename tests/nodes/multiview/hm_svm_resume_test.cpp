// multiview.hmsvm's checkpoints: resumed from the state of any epoch, training ends with the same
// bits (weights, every epoch's counts and margins) as a run never interrupted, for one and two
// views, both norms and both forms, under the exponential C_u schedule; the state the last epoch
// of a shorter run ended in continues to the longer run's bits; a state that does not fit (other
// dimensions, views, form, examples) or lies past the epochs is refused.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "nodes/multiview/hm_svm.h"
#include "tests/testutil/state_fingerprint.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace hm_svm_resume_test {

struct RandomData {
  explicit RandomData(int A = 30, int K = 3, int unlabeled_count = 12) : num_labels(K), view(static_cast<size_t>(A)) {
    std::mt19937 rng(11);
    for (int32_t& v : view) v = static_cast<int32_t>(rng() % 2);
    auto sentence = [&] {
      SentenceFeatures x;
      x.offsets = {0};
      for (uint32_t t = 0, T = 2 + rng() % 4; t < T; ++t) {
        for (int i = 0; i < 4; ++i) x.ids.push_back(static_cast<int32_t>(rng() % static_cast<uint32_t>(A)));
        x.offsets.push_back(static_cast<int32_t>(x.ids.size()));
      }
      return x;
    };
    for (int n = 0; n < 8; ++n) {
      labeled.push_back(sentence());
      labels.emplace_back();
      for (int t = 0; t < labeled.back().size(); ++t) labels.back().push_back(static_cast<int32_t>(rng() % K));
    }
    for (int n = 0; n < unlabeled_count; ++n) unlabeled.push_back(sentence());
  }
  HmPerceptronData data() const { return {&labeled, &labels, &unlabeled, &view, num_labels}; }

  int32_t num_labels;
  std::vector<int32_t> view;
  std::vector<SentenceFeatures> labeled, unlabeled;
  std::vector<std::vector<int32_t>> labels;
};

HmSvmOptions Options(int views, int norm, HmSvmForm form, int epochs) {
  HmSvmOptions o;
  o.views = views;
  o.norm = norm;
  o.form = form;
  o.epochs = epochs;
  o.c_u = 0.5;
  o.growth.ramp = 3;
  o.r_max = 4;
  return o;
}

struct Training {
  HmSvmResult result;
  std::vector<std::string> states;  // after every epoch
  std::string final_state;
};

Training Train(const RandomData& d, const HmSvmOptions& o, const std::string* resume_from = nullptr) {
  Training t;
  KernelCheckpoints checkpoints;
  checkpoints.resume_from = resume_from;
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) { t.states.push_back(encode().Join()); };
  checkpoints.keep_final = [&](int64_t epochs, const std::function<std::string()>& encode) {
    EXPECT_EQ(epochs, o.epochs);
    t.final_state = encode();
  };
  Result<HmSvmResult> r = TrainHmSvm(d.data(), o, {}, {}, checkpoints);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) t.result = std::move(r).value();
  return t;
}

void ExpectSameBits(const HmSvmResult& a, const HmSvmResult& b) {
  EXPECT_EQ(a.weights.observation, b.weights.observation);
  ASSERT_EQ(a.weights.transition.size(), b.weights.transition.size());
  for (size_t v = 0; v < a.weights.transition.size(); ++v) EXPECT_EQ(a.weights.transition[v], b.weights.transition[v]);
  ASSERT_EQ(a.epochs.size(), b.epochs.size());
  for (size_t e = 0; e < a.epochs.size(); ++e) {
    EXPECT_EQ(a.epochs[e].epoch, b.epochs[e].epoch);
    EXPECT_EQ(a.epochs[e].c_u, b.epochs[e].c_u);
    EXPECT_EQ(a.epochs[e].margin_violations, b.epochs[e].margin_violations);
    EXPECT_EQ(a.epochs[e].disagreements, b.epochs[e].disagreements);
    EXPECT_EQ(a.epochs[e].support_sequences, b.epochs[e].support_sequences);
    EXPECT_EQ(a.epochs[e].unlabeled_pseudo, b.epochs[e].unlabeled_pseudo);
    EXPECT_EQ(a.epochs[e].unlabeled_margin, b.epochs[e].unlabeled_margin);
  }
}

TEST(HmSvmResume, FromEveryEpochToTheSameBits) {
  const RandomData d;
  for (int views : {1, 2})
    for (int norm : {1, 2})
      for (HmSvmForm form : {HmSvmForm::kPrimal, HmSvmForm::kDual}) {
        SCOPED_TRACE(testing::Message() << "views " << views << " norm " << norm << " dual "
                                        << (form == HmSvmForm::kDual));
        const HmSvmOptions o = Options(views, norm, form, 5);
        const Training whole = Train(d, o);
        ASSERT_EQ(whole.states.size(), 5u);
        // The states hold working sets that the later epochs change (not a run that stood still).
        EXPECT_GT(whole.result.epochs.back().support_sequences, 0);
        if (views == 2) {
          EXPECT_GT(whole.result.epochs[1].disagreements, 0);
        }
        for (size_t e = 0; e < whole.states.size(); ++e) {
          SCOPED_TRACE("resumed after epoch " + std::to_string(e + 1));
          const Training resumed = Train(d, o, &whole.states[e]);
          EXPECT_EQ(resumed.states.size(), 4 - e);
          ExpectSameBits(resumed.result, whole.result);
          EXPECT_EQ(resumed.final_state, whole.final_state);
        }
      }
}

TEST(HmSvmResume, AShorterRunsFinalStateContinuesToTheLongerRunsBits) {
  const RandomData d;
  for (HmSvmForm form : {HmSvmForm::kPrimal, HmSvmForm::kDual}) {
    const Training shorter = Train(d, Options(2, 1, form, 2));
    ASSERT_FALSE(shorter.final_state.empty());
    ExpectSameBits(Train(d, Options(2, 1, form, 6), &shorter.final_state).result,
                   Train(d, Options(2, 1, form, 6)).result);
    // The same budget again ends at once with the shorter run's weights.
    ExpectSameBits(Train(d, Options(2, 1, form, 2), &shorter.final_state).result, shorter.result);
  }
}

TEST(HmSvmResume, RefusesAStateThatDoesNotFitOrIsPastTheEpochs) {
  const RandomData d;
  const Training run = Train(d, Options(2, 1, HmSvmForm::kPrimal, 4));
  auto refused = [&](const RandomData& data, const HmSvmOptions& o, const std::string& state) {
    KernelCheckpoints from;
    from.resume_from = &state;
    Result<HmSvmResult> r = TrainHmSvm(data.data(), o, {}, {}, from);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().ToString();
  };
  refused(d, Options(2, 1, HmSvmForm::kPrimal, 3), run.states[3]);  // epoch 4 of 3
  refused(d, Options(1, 1, HmSvmForm::kPrimal, 4), run.states[1]);
  refused(d, Options(2, 1, HmSvmForm::kDual, 4), run.states[1]);
  refused(RandomData(31, 3), Options(2, 1, HmSvmForm::kPrimal, 4), run.states[1]);
  refused(RandomData(30, 4), Options(2, 1, HmSvmForm::kPrimal, 4), run.states[1]);
  refused(RandomData(30, 3, 11), Options(2, 1, HmSvmForm::kPrimal, 4), run.states[1]);
  std::string truncated = run.states[1];
  truncated.resize(truncated.size() - 8);
  refused(d, Options(2, 1, HmSvmForm::kPrimal, 4), truncated);
}

// The bytes of the states training offers (after epochs 1 and 5) and keeps, pinned for two views
// in the primal form with norm 1 and in the dual form with norm 2: a state saved by an earlier
// build must still resume (tests/testutil/state_fingerprint.h).
TEST(HmSvmResume, StateBytesAreThoseOfEarlierBuilds) {
  struct Pinned {
    int norm;
    HmSvmForm form;
    uint64_t first, last, final_state;
  };
  const RandomData d;
  for (const Pinned& pinned :
       {Pinned{1, HmSvmForm::kPrimal, 0x2b0953e33d7d4647ULL, 0xd47138055d27fd8eULL, 0xd47138055d27fd8eULL},
        Pinned{2, HmSvmForm::kDual, 0xe11d409da17d4cf7ULL, 0x4b92a83a60670096ULL, 0x4b92a83a60670096ULL}}) {
    SCOPED_TRACE(testing::Message() << "norm " << pinned.norm << " dual " << (pinned.form == HmSvmForm::kDual));
    const Training t = Train(d, Options(2, pinned.norm, pinned.form, 5));
    ASSERT_EQ(t.states.size(), 5u);
    const uint64_t first = testutil::StateFingerprint(t.states.front()),
                   last = testutil::StateFingerprint(t.states.back()),
                   final_state = testutil::StateFingerprint(t.final_state);
    EXPECT_EQ(first, pinned.first) << std::hex << "0x" << first;
    EXPECT_EQ(last, pinned.last) << std::hex << "0x" << last;
    EXPECT_EQ(final_state, pinned.final_state) << std::hex << "0x" << final_state;
  }
}

}  // namespace hm_svm_resume_test
}  // namespace seqflow
