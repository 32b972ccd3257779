// crf.train's checkpoints at the kernel: TrainCrf resumed from the L-BFGS state of every
// iteration of a small random CRF (duplicate attributes merged, first and second order) ends with
// the same weights, objective trace and counters, bit for bit, as the run never interrupted; the
// final state of a smaller max_iterations continues to the larger one's bits.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>

#include <random>
#include <string>
#include <vector>

#include "nodes/crf/crf_train.h"
#include "tests/testutil/lbfgs_run_matchers.h"
#include "tests/testutil/state_fingerprint.h"

namespace seqflow {
namespace crf_train_resume_test {

struct Problem {
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;
  int32_t num_attributes = 9, num_labels = 3;
};

// Random sentences of 1-6 tokens with 1-3 attributes each; attribute 8 always fires with 7, so
// merging has a duplicate to merge.
Problem RandomProblem() {
  std::mt19937 rng(29);
  Problem p;
  for (int n = 0; n < 14; ++n) {
    SentenceFeatures x;
    x.offsets = {0};
    std::vector<int32_t> y;
    const int length = 1 + static_cast<int>(rng() % 6);
    for (int t = 0; t < length; ++t) {
      const int count = 1 + static_cast<int>(rng() % 3);
      for (int a = 0; a < count; ++a) {
        const auto id = static_cast<int32_t>(rng() % 8);
        x.ids.push_back(id);
        if (id == 7) x.ids.push_back(8);
      }
      x.offsets.push_back(static_cast<int32_t>(x.ids.size()));
      y.push_back(static_cast<int32_t>(rng() % 3));
    }
    p.sentences.push_back(std::move(x));
    p.labels.push_back(std::move(y));
  }
  return p;
}

struct Trained {
  CrfTrainResult result;
  std::vector<double> trace;        // objective after every iteration, from the callback
  std::vector<std::string> states;  // after every iteration
};

Trained Train(const Problem& p, const CrfTrainOptions& options, const std::string* resume_from = nullptr,
              bool keep_states = false) {
  Trained t;
  std::optional<StateSource> source;
  if (resume_from != nullptr) source.emplace(*resume_from);
  LbfgsCheckpoints checkpoints;
  checkpoints.resume_from = source ? &*source : nullptr;
  checkpoints.keep_final_state = true;
  if (keep_states) checkpoints.offer = [&](const std::function<StatePieces()>& encode) { t.states.push_back(encode().Join()); };
  auto record = [&](const LbfgsIteration& it) { t.trace.push_back(it.objective); };
  Result<CrfTrainResult> r =
      TrainCrf(p.sentences, p.labels, p.num_attributes, p.num_labels, options, record, {}, checkpoints);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) t.result = std::move(r).value();
  return t;
}

void ExpectSameBits(const CrfTrainResult& a, const CrfTrainResult& b) {
  testutil::ExpectSameLbfgsRun(a.weights, a.optimizer, b.weights, b.optimizer);
}

class CrfTrainResume : public testing::TestWithParam<int> {
 protected:
  CrfTrainOptions Options() const {
    CrfTrainOptions o;
    o.order = GetParam();
    o.lbfgs.memory = 3;
    o.lbfgs.max_iterations = 30;
    o.lbfgs.delta = 0;
    o.lbfgs.gradient_tolerance = 0;
    return o;
  }
};

TEST_P(CrfTrainResume, FromEveryIterationToTheSameWeightsAndTrace) {
  const Problem p = RandomProblem();
  const Trained whole = Train(p, Options(), nullptr, /*keep_states=*/true);
  ASSERT_GT(whole.states.size(), 10u);
  ASSERT_LT(whole.result.trained_weights, whole.result.weights.size()) << "attribute 8 merged with 7";
  for (size_t k = 0; k < whole.states.size(); ++k) {
    SCOPED_TRACE("resumed after iteration " + std::to_string(k + 1));
    const Trained resumed = Train(p, Options(), &whole.states[k]);
    EXPECT_EQ(resumed.result.optimizer.resumed_at, static_cast<int>(k + 1));
    ExpectSameBits(resumed.result, whole.result);
    // The callback sees the iterations after the state's, with the uninterrupted run's objectives.
    EXPECT_EQ(resumed.trace, std::vector<double>(whole.trace.begin() + static_cast<long>(k + 1), whole.trace.end()));
  }
}

TEST_P(CrfTrainResume, ASmallerMaxIterationsContinuesToTheLargerOnesBits) {
  const Problem p = RandomProblem();
  CrfTrainOptions small = Options();
  small.lbfgs.max_iterations = 12;
  const Trained first = Train(p, small);
  ASSERT_EQ(first.result.optimizer.iterations, 12);
  ExpectSameBits(Train(p, Options(), &first.result.optimizer.final_state).result, Train(p, Options()).result);
}

// The bytes of the L-BFGS states training offers (after iterations 4 and 30) and ends in, pinned
// for each order (crf.train's checkpoints are these with the objective trace appended,
// crf_nodes.cpp): a state saved by an earlier build must still resume
// (tests/testutil/state_fingerprint.h).
TEST_P(CrfTrainResume, StateBytesAreThoseOfEarlierBuilds) {
  const Trained run = Train(RandomProblem(), Options(), nullptr, /*keep_states=*/true);
  ASSERT_EQ(run.states.size(), 30u);
  // The state after iteration 4, the first of a full history (those before it hold the S^T g and
  // Y^T g entries of slots not yet used, which are never read, nor initialised:
  // correction_history.h), the last offered state and the final one.
  const std::array<uint64_t, 3> pinned =
      GetParam() == 1 ? std::array<uint64_t, 3>{0x38de67ce0d157972ULL, 0xe7ff25bdce66ffddULL, 0xe7ff25bdce66ffddULL}
                      : std::array<uint64_t, 3>{0xff1be234f0fab07ULL, 0x581e13611bcc3d04ULL, 0x581e13611bcc3d04ULL};
  const uint64_t full = testutil::StateFingerprint(run.states[3]), last = testutil::StateFingerprint(run.states.back()),
                 final_state = testutil::StateFingerprint(run.result.optimizer.final_state);
  EXPECT_EQ(full, pinned[0]) << std::hex << "0x" << full;
  EXPECT_EQ(last, pinned[1]) << std::hex << "0x" << last;
  EXPECT_EQ(final_state, pinned[2]) << std::hex << "0x" << final_state;
}

INSTANTIATE_TEST_SUITE_P(Order, CrfTrainResume, testing::Values(1, 2),
                         [](const auto& test) { return "order" + std::to_string(test.param); });

}  // namespace crf_train_resume_test
}  // namespace seqflow
