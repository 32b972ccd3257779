// L-BFGS checkpoints: a minimisation resumed from the state of any of its iterations ends with
// the same bits (x, f of every iterate, counters) as the run never interrupted, in single and
// double precision, with a full history (memory smaller than the iterations, so slots wrap); the
// state a smaller budget ended in continues to the larger budget's bits; a state that does not
// fit (size, memory, precision) or lies past where the options stop is refused; resuming
// evaluates nothing the uninterrupted run did not, and a state of an earlier build (without its
// gradient) resumes to the same bits after checking the objective at x.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nodes/optim/lbfgs.h"
#include "tests/testutil/lbfgs_run_matchers.h"
#include "tests/testutil/state_fingerprint.h"

namespace seqflow {
namespace lbfgs_resume_test {

// Extended Rosenbrock with a coupling term, so every coordinate moves differently.
class Coupled : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    g.setZero(x.size());
    double f = 0;
    for (Eigen::Index i = 0; i + 1 < x.size(); i += 2) {
      const double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
      f += 100 * a * a + b * b;
      g[i] += -400 * a * x[i] - 2 * b;
      g[i + 1] += 200 * a;
    }
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const double c = x[i] - 0.5 * x[i + 1];
      f += 0.1 * c * c;
      g[i] += 0.2 * c;
      g[i + 1] -= 0.1 * c;
    }
    return f;
  }
};

// Another objective of the same size.
class Scaled : public Coupled {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    const double f = Coupled::Evaluate(x, g);
    g *= 2;
    return 2 * f;
  }
};

Eigen::VectorXd Start(int n) {
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = i % 2 == 0 ? -1.2 + 0.01 * i : 1.0 - 0.02 * i;
  return x;
}

struct Minimisation {
  Eigen::VectorXd x;
  LbfgsResult result;
  std::vector<std::string> states;  // after every iteration
};

Minimisation Minimize(const LbfgsOptions& options, const std::string* resume_from = nullptr, bool keep_states = false) {
  Coupled f;
  Minimisation run;
  run.x = Start(12);
  std::optional<StateSource> source;
  if (resume_from != nullptr) source.emplace(*resume_from);
  LbfgsCheckpoints checkpoints;
  checkpoints.resume_from = source ? &*source : nullptr;
  checkpoints.keep_final_state = true;
  if (keep_states) checkpoints.offer = [&](const std::function<StatePieces()>& encode) { run.states.push_back(encode().Join()); };
  Result<LbfgsResult> r = MinimizeLbfgs(f, run.x, options, nullptr, {}, checkpoints);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) run.result = *r;
  return run;
}

void ExpectSameBits(const Minimisation& a, const Minimisation& b) {
  testutil::ExpectSameLbfgsRun(a.x, a.result, b.x, b.result);
}

class LbfgsResume : public testing::TestWithParam<bool> {
 protected:
  LbfgsOptions Options() const {
    LbfgsOptions o;
    o.memory = 3;
    o.float_history = GetParam();
    o.max_iterations = 60;
    o.delta = 0;
    o.gradient_tolerance = 0;
    return o;
  }
};

TEST_P(LbfgsResume, FromEveryIterationToTheSameBits) {
  const Minimisation whole = Minimize(Options(), nullptr, /*keep_states=*/true);
  ASSERT_EQ(whole.result.stop, LbfgsStop::kMaxIterations);
  ASSERT_EQ(whole.states.size(), 60u);
  for (size_t k = 0; k < whole.states.size(); ++k) {
    SCOPED_TRACE("resumed after iteration " + std::to_string(k + 1));
    const Minimisation resumed = Minimize(Options(), &whole.states[k]);
    EXPECT_EQ(resumed.result.resumed_at, static_cast<int>(k + 1));
    ExpectSameBits(resumed, whole);
  }
}

// A completed pair is an immutable piece of every state that holds it (the checkpoint store
// writes it once): consecutive states share all but the newest pair, bytes and all.
TEST_P(LbfgsResume, ConsecutiveStatesShareTheirOlderPairsAsImmutablePieces) {
  Coupled f;
  Eigen::VectorXd x = Start(12);
  std::vector<std::vector<std::string>> immutable;  // per iteration
  LbfgsCheckpoints checkpoints;
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) {
    StatePieces state = encode();
    std::vector<std::string> pieces;
    for (const StatePieces::Piece& piece : state.Pieces())
      if (piece.immutable) pieces.emplace_back(piece.bytes);
    immutable.push_back(std::move(pieces));
  };
  ASSERT_TRUE(MinimizeLbfgs(f, x, Options(), nullptr, {}, checkpoints).ok());
  ASSERT_EQ(immutable.size(), 60u);
  const size_t pair_bytes = 12 * (GetParam() ? sizeof(float) : sizeof(double));
  for (size_t k = 10; k < immutable.size(); ++k) {
    ASSERT_EQ(immutable[k].size(), 6u) << "s and y of 3 pairs, iteration " << k + 1;
    for (const std::string& piece : immutable[k]) EXPECT_EQ(piece.size(), pair_bytes);
    // The two older pairs of iteration k + 1 are the two newer of iteration k.
    for (int i = 0; i < 4; ++i) EXPECT_EQ(immutable[k][static_cast<size_t>(i)], immutable[k - 1][static_cast<size_t>(i + 2)]);
  }
}

TEST_P(LbfgsResume, ASmallerBudgetsFinalStateContinuesToTheLargerBudgetsBits) {
  LbfgsOptions small = Options(), large = Options();
  small.max_iterations = 25;
  const Minimisation first = Minimize(small);
  ASSERT_EQ(first.result.iterations, 25);
  ASSERT_FALSE(first.result.final_state.empty());
  ExpectSameBits(Minimize(large, &first.result.final_state), Minimize(large));

  // A tolerance tightened: the looser run converged, the tighter one goes on from there.
  LbfgsOptions loose = Options(), tight = Options();
  loose.delta = 1e-2, tight.delta = 1e-4;
  loose.past = tight.past = 3;
  const Minimisation converged = Minimize(loose);
  ASSERT_EQ(converged.result.stop, LbfgsStop::kConverged);
  const Minimisation tighter = Minimize(tight);
  ASSERT_GT(tighter.result.iterations, converged.result.iterations);
  ExpectSameBits(Minimize(tight, &converged.result.final_state), tighter);
  // The same options again: the state's own stopping test ends it at once.
  ExpectSameBits(Minimize(loose, &converged.result.final_state), converged);
}

TEST_P(LbfgsResume, RefusesAStatePastWhereTheOptionsStop) {
  const Minimisation long_run = Minimize(Options());
  Coupled f;
  Eigen::VectorXd x = Start(12);
  LbfgsOptions fewer = Options();
  fewer.max_iterations = 10;
  StateSource state(long_run.result.final_state), same_state(long_run.result.final_state);
  LbfgsCheckpoints from;
  from.resume_from = &state;
  EXPECT_EQ(MinimizeLbfgs(f, x, fewer, nullptr, {}, from).status().code(), StatusCode::kInvalid);
  LbfgsOptions looser = Options();
  looser.delta = 1e-1, looser.past = 2;
  from.resume_from = &same_state;
  EXPECT_EQ(MinimizeLbfgs(f, x, looser, nullptr, {}, from).status().code(), StatusCode::kInvalid);
}

TEST_P(LbfgsResume, RefusesAStateThatDoesNotFit) {
  const Minimisation run = Minimize(Options());
  Coupled f;
  // A source is spent by a resume: each attempt reads its own.
  auto resumed = [&](Eigen::VectorXd& x, const LbfgsOptions& options, const std::string& state) {
    StateSource source(state);
    LbfgsCheckpoints from;
    from.resume_from = &source;
    return MinimizeLbfgs(f, x, options, nullptr, {}, from).status().code();
  };
  const std::string& state = run.result.final_state;
  Eigen::VectorXd other_size = Start(10);
  EXPECT_EQ(resumed(other_size, Options(), state), StatusCode::kInvalid);
  Eigen::VectorXd x = Start(12);
  LbfgsOptions other_memory = Options();
  other_memory.memory = 4;
  EXPECT_EQ(resumed(x, other_memory, state), StatusCode::kInvalid);
  LbfgsOptions other_precision = Options();
  other_precision.float_history = !GetParam();
  EXPECT_EQ(resumed(x, other_precision, state), StatusCode::kInvalid);
  EXPECT_EQ(resumed(x, Options(), state.substr(0, state.size() / 2)), StatusCode::kInvalid);
}

// The state as an earlier build wrote it: magic "SLFBFGS1" and no gradient after x.
std::string WithoutGradient(std::string state, size_t n) {
  const size_t x_at = 8 + 1 + 4 * 8 + 8, g_at = x_at + 8 * n;
  EXPECT_EQ(state.substr(0, 8), "SLFBFGS2");
  state.replace(0, 8, "SLFBFGS1");
  return state.erase(g_at, 8 + 8 * n);
}

// Counts evaluations, to show that a resume spends none before its first line search.
class Counted : public Coupled {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    ++calls;
    return Coupled::Evaluate(x, g);
  }
  int calls = 0;
};

TEST_P(LbfgsResume, AResumeEvaluatesOnlyWhatTheRunNeverInterruptedEvaluatesAfterThatIteration) {
  Counted whole_f;
  Eigen::VectorXd whole_x = Start(12);
  std::vector<std::string> states;
  std::vector<int> calls_at;  // evaluations made when each state was offered
  LbfgsCheckpoints offered;
  offered.offer = [&](const std::function<StatePieces()>& encode) {
    states.push_back(encode().Join());
    calls_at.push_back(whole_f.calls);
  };
  ASSERT_TRUE(MinimizeLbfgs(whole_f, whole_x, Options(), nullptr, {}, offered).ok());
  for (size_t k : {size_t{0}, size_t{7}, states.size() - 2}) {
    Counted f;
    Eigen::VectorXd x = Start(12);
    StateSource state(states[k]);
    LbfgsCheckpoints from;
    from.resume_from = &state;
    ASSERT_TRUE(MinimizeLbfgs(f, x, Options(), nullptr, {}, from).ok());
    EXPECT_EQ(f.calls, whole_f.calls - calls_at[k]) << "resumed after iteration " << k + 1;
  }
}

TEST_P(LbfgsResume, AStateWithoutItsGradientResumesToTheSameBitsAndIsCheckedAgainstTheObjective) {
  const Minimisation whole = Minimize(Options(), nullptr, /*keep_states=*/true);
  for (size_t k : {size_t{0}, size_t{20}, whole.states.size() - 1}) {
    SCOPED_TRACE("resumed after iteration " + std::to_string(k + 1));
    const std::string earlier = WithoutGradient(whole.states[k], 12);
    ExpectSameBits(Minimize(Options(), &earlier), whole);
    Scaled other_objective;
    Eigen::VectorXd x = Start(12);
    StateSource state(earlier);
    LbfgsCheckpoints from;
    from.resume_from = &state;
    EXPECT_EQ(MinimizeLbfgs(other_objective, x, Options(), nullptr, {}, from).status().code(), StatusCode::kInvalid);
  }
}

// The bytes of the states this minimisation offers (after iterations 4 and 60) and ends in,
// pinned for each precision of the history: a state saved by an earlier build must still resume
// (tests/testutil/state_fingerprint.h).
TEST_P(LbfgsResume, StateBytesAreThoseOfEarlierBuilds) {
  const Minimisation run = Minimize(Options(), nullptr, /*keep_states=*/true);
  ASSERT_EQ(run.states.size(), 60u);
  // The state after iteration 4, the first of a full history (those before it hold the S^T g and
  // Y^T g entries of slots not yet used, which are never read, nor initialised:
  // correction_history.h), the last offered state and the final one.
  const std::array<uint64_t, 3> pinned =
      GetParam() ? std::array<uint64_t, 3>{0x7c332fcc3e20c50cULL, 0xb27b7991e544d24cULL, 0xb27b7991e544d24cULL}
                 : std::array<uint64_t, 3>{0x45e87926cca83aa6ULL, 0xc036975a96bd1728ULL, 0xc036975a96bd1728ULL};
  const uint64_t full = testutil::StateFingerprint(run.states[3]), last = testutil::StateFingerprint(run.states.back()),
                 final_state = testutil::StateFingerprint(run.result.final_state);
  EXPECT_EQ(full, pinned[0]) << std::hex << "0x" << full;
  EXPECT_EQ(last, pinned[1]) << std::hex << "0x" << last;
  EXPECT_EQ(final_state, pinned[2]) << std::hex << "0x" << final_state;
}

INSTANTIATE_TEST_SUITE_P(Precision, LbfgsResume, testing::Values(true, false),
                         [](const auto& test) { return test.param ? "float_history" : "double_history"; });

}  // namespace lbfgs_resume_test
}  // namespace seqflow
