// hmm.classifier's checkpoints: training resumed from the state after any restart (inside a class
// or at a class boundary) ends with the same bits (every class's model, the priors, each restart's
// objective, the best restarts, the iteration count) as a run never interrupted; a state of other
// shapes or restarts is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nodes/hmm/classifier_training.h"
#include "tests/testutil/hmm_brute_force.h"
#include "tests/testutil/state_fingerprint.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace classifier_training_resume_test {

constexpr int kClasses = 3, kSymbols = 4;

struct Labeled {
  Labeled() : sequences(testutil::RandomCorpus(30, 3, 6, kSymbols, 41)) {
    for (size_t i = 0; i < sequences.size(); ++i) labels.push_back(static_cast<int32_t>(i % kClasses));
  }
  std::vector<std::vector<int32_t>> sequences;
  std::vector<int32_t> labels;
};

ClassifierTrainOptions Options(int restarts = 3) {
  ClassifierTrainOptions o;
  o.num_states = 2;
  o.restarts = restarts;
  o.max_iterations = 40;
  o.seed = 5;
  return o;
}

struct Training {
  ClassifierTrainResult result;
  std::vector<std::string> states;
};

Training Train(const Labeled& d, const ClassifierTrainOptions& o, const std::string* resume_from = nullptr) {
  Training t;
  KernelCheckpoints checkpoints;
  checkpoints.resume_from = resume_from;
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) { t.states.push_back(encode().Join()); };
  Result<ClassifierTrainResult> r = TrainHmmClassifier(d.sequences, d.labels, kClasses, kSymbols, o, {}, checkpoints);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) t.result = std::move(r).value();
  return t;
}

void ExpectSameBits(const ClassifierTrainResult& a, const ClassifierTrainResult& b) {
  EXPECT_EQ(a.model.prior, b.model.prior);
  ASSERT_EQ(a.model.classes.size(), b.model.classes.size());
  for (size_t y = 0; y < a.model.classes.size(); ++y) {
    EXPECT_EQ(a.model.classes[y].initial, b.model.classes[y].initial);
    EXPECT_EQ(a.model.classes[y].transition, b.model.classes[y].transition);
    EXPECT_EQ(a.model.classes[y].emission, b.model.classes[y].emission);
  }
  EXPECT_EQ(a.restart_objectives, b.restart_objectives);
  EXPECT_EQ(a.best_restart, b.best_restart);
  EXPECT_EQ(a.iterations, b.iterations);
}

TEST(ClassifierTrainingResume, FromEveryRestartToTheSameBits) {
  const Labeled d;
  const Training whole = Train(d, Options());
  ASSERT_EQ(whole.states.size(), static_cast<size_t>(kClasses * 3 - 1));  // after each restart but the last
  bool best_not_first = false;
  for (int y = 0; y < kClasses; ++y) best_not_first = best_not_first || whole.result.best_restart[y] > 0;
  EXPECT_TRUE(best_not_first) << "a resumed class must carry a best fit that is not its first restart";
  for (size_t k = 0; k < whole.states.size(); ++k) {
    SCOPED_TRACE("resumed after restart " + std::to_string(k + 1));
    const Training resumed = Train(d, Options(), &whole.states[k]);
    EXPECT_EQ(resumed.states.size(), whole.states.size() - k - 1);
    ExpectSameBits(resumed.result, whole.result);
  }
}

TEST(ClassifierTrainingResume, RefusesAStateThatDoesNotFit) {
  const Labeled d;
  const Training run = Train(d, Options());
  auto refused = [&](int classes, int symbols, const ClassifierTrainOptions& o, const std::string& state) {
    KernelCheckpoints from;
    from.resume_from = &state;
    std::vector<int32_t> labels = d.labels;
    for (int32_t& y : labels) y %= classes;
    Result<ClassifierTrainResult> r = TrainHmmClassifier(d.sequences, labels, classes, symbols, o, {}, from);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().ToString();
  };
  refused(kClasses, kSymbols, Options(4), run.states[2]);
  refused(2, kSymbols, Options(), run.states[2]);
  refused(kClasses, kSymbols + 1, Options(), run.states[2]);
  ClassifierTrainOptions three_states = Options();
  three_states.num_states = 3;
  refused(kClasses, kSymbols, three_states, run.states[2]);
  std::string truncated = run.states[4];
  truncated.resize(truncated.size() - 8);
  refused(kClasses, kSymbols, Options(), truncated);
}

// The bytes of the states training offers, pinned: after the first restart and the last offered
// (inside a class, with its best fit so far) and after the first class's restarts (at a class
// boundary, without one). A state saved by an earlier build must still resume
// (tests/testutil/state_fingerprint.h).
TEST(ClassifierTrainingResume, StateBytesAreThoseOfEarlierBuilds) {
  const Labeled d;
  const Training t = Train(d, Options());
  ASSERT_EQ(t.states.size(), static_cast<size_t>(kClasses * 3 - 1));
  const uint64_t first = testutil::StateFingerprint(t.states.front()),
                 boundary = testutil::StateFingerprint(t.states[2]), last = testutil::StateFingerprint(t.states.back());
  EXPECT_EQ(first, 0xc324774a3f936206ULL) << std::hex << "0x" << first;
  EXPECT_EQ(boundary, 0x12e1a9636b31add1ULL) << std::hex << "0x" << boundary;
  EXPECT_EQ(last, 0x4c94e8a51155d79bULL) << std::hex << "0x" << last;
}

}  // namespace classifier_training_resume_test
}  // namespace seqflow
