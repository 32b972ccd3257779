// Iterate: a kernel resumed from any state it offered, or continued from the final state of a
// smaller budget, ends with the bits of a run never stopped; a kernel that ends early offers and
// keeps nothing more; a state past the budget or of another run is refused; the token stops it
// between steps.
#include "nodes/common/iterate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace iterate_test {

// x ← cos(x), with the iterates kept: converges to the Dottie number.
struct Orbit {
  std::vector<double> x{1.0};
};

struct Trial {
  Orbit orbit;
  Stopped stopped = Stopped::kDone;
  std::vector<std::string> offered;
  std::string kept;
  int64_t kept_at = -1;
};

Trial Iterate(int64_t budget, double tolerance = 0, const std::string* resume_from = nullptr,
              const CancelToken& cancel = {}) {
  const StateTable<Orbit> table = StateTable<Orbit>("orbit").Tag(42).Doubles(&Orbit::x);
  const IterativeKernel<Orbit> kernel{"orbit", &table, budget,
                                      [](const Orbit& o) { return static_cast<int64_t>(o.x.size()) - 1; },
                                      [tolerance](Orbit& o) -> Result<Step> {
                                        o.x.push_back(std::cos(o.x.back()));
                                        const double change = std::abs(o.x.back() - o.x[o.x.size() - 2]);
                                        return change < tolerance ? Step::kDone : Step::kContinue;
                                      }};
  Trial run;
  KernelCheckpoints checkpoints;
  checkpoints.resume_from = resume_from;
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) { run.offered.push_back(encode().Join()); };
  checkpoints.keep_final = [&](int64_t done, const std::function<std::string()>& encode) {
    run.kept_at = done;
    run.kept = encode();
  };
  Result<Stopped> stopped = seqflow::Iterate(kernel, run.orbit, cancel, checkpoints);
  EXPECT_TRUE(stopped.ok()) << stopped.status().ToString();
  if (stopped.ok()) run.stopped = *stopped;
  return run;
}

TEST(Iterate, ResumedFromAnyOfferedStateEndsWithTheSameBits) {
  const Trial whole = Iterate(12);
  EXPECT_EQ(whole.stopped, Stopped::kBudget);
  ASSERT_EQ(whole.offered.size(), 12u);
  EXPECT_EQ(whole.kept_at, 12);
  for (size_t i = 0; i < whole.offered.size(); ++i) {
    SCOPED_TRACE(i);
    const Trial resumed = Iterate(12, 0, &whole.offered[i]);
    EXPECT_EQ(resumed.orbit.x, whole.orbit.x);
    EXPECT_EQ(resumed.offered.size(), 11 - i);
    EXPECT_EQ(resumed.kept, whole.kept);
  }
}

TEST(Iterate, ASmallerBudgetsFinalStateContinuesToTheLargerBudgetsBits) {
  const Trial shorter = Iterate(5);
  ASSERT_EQ(shorter.kept_at, 5);
  EXPECT_EQ(Iterate(12, 0, &shorter.kept).orbit.x, Iterate(12).orbit.x);
  // The same budget again ends at once.
  const Trial again = Iterate(5, 0, &shorter.kept);
  EXPECT_EQ(again.orbit.x, shorter.orbit.x);
  EXPECT_TRUE(again.offered.empty());
}

TEST(Iterate, AKernelThatEndsEarlyOffersAndKeepsNothingMore) {
  const Trial converged = Iterate(1000, 1e-6);
  EXPECT_EQ(converged.stopped, Stopped::kDone);
  EXPECT_EQ(converged.offered.size(), converged.orbit.x.size() - 2);  // not the step that ended it
  EXPECT_EQ(converged.kept_at, -1);
}

TEST(Iterate, RefusesAStatePastTheBudgetOrOfAnotherKernel) {
  const Trial run = Iterate(6);
  const StateTable<Orbit> table = StateTable<Orbit>("orbit").Tag(42).Doubles(&Orbit::x);
  for (const std::string& state : {run.offered[4], std::string("not a state")}) {
    Orbit orbit;
    KernelCheckpoints from;
    from.resume_from = &state;
    const IterativeKernel<Orbit> kernel{"orbit", &table, 3,
                                        [](const Orbit& o) { return static_cast<int64_t>(o.x.size()) - 1; },
                                        [](Orbit&) -> Result<Step> { return Step::kContinue; }};
    const Result<Stopped> r = seqflow::Iterate(kernel, orbit, {}, from);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().ToString();
  }
}

TEST(Iterate, TheTokenStopsItBetweenSteps) {
  std::atomic<bool> cancelled{false};
  Orbit orbit;
  const StateTable<Orbit> table = StateTable<Orbit>("orbit").Doubles(&Orbit::x);
  int steps = 0;
  const IterativeKernel<Orbit> kernel{"orbit", &table, 10, [&](const Orbit&) { return int64_t{steps}; },
                                      [&](Orbit&) -> Result<Step> {
                                        if (++steps == 3) cancelled = true;
                                        return Step::kContinue;
                                      }};
  const Result<Stopped> r = seqflow::Iterate(kernel, orbit, CancelToken(&cancelled), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(steps, 3);
}

}  // namespace iterate_test
}  // namespace seqflow
