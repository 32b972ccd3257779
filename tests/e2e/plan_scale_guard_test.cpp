// `seqflow plan` is linear in node instances (docs/ARCHITECTURE.md, "engine/dsl"): the real binary
// plans the wide pipeline (tests/testutil/wide_pipeline.h) at 10^4 and 10^5 instances against an
// empty cache, and its time per instance, net of the start-up a 5-instance plan costs, may grow at
// most kMaxGrowth times. Children's CPU time (getrusage), the least of a few runs: robust to a
// loaded machine. Not from 10^3: its ~10 ms net of a ~55 ms start-up is within the jitter of a
// process's CPU time on a busy machine (it once measured 2.4 us an instance, x5.3 to 10^5 with
// nothing wrong). Linear, the growth is ~1x; a name lookup per plan line by linear scan made it
// ~30x from 10^3 (10^5 instances in 10-22 s instead of 1.5 s).
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"
#include "tests/testutil/wide_pipeline.h"

namespace seqflow {
namespace plan_scale_guard_test {

using testutil::RunSeqflow;

constexpr double kMaxGrowth = 3.0;

double ChildrenCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// The least CPU time of `runs` plans of the wide pipeline with `instances` node instances.
double PlanCpuSeconds(int instances, int runs) {
  const std::string dir = testutil::MakeTempDir("seqflow-plan-scale");
  const std::string path = dir + "/wide.yaml";
  std::ofstream(path) << testutil::WidePipeline(testutil::DataDir(), instances);
  double least = 1e300;
  for (int r = 0; r < runs; ++r) {
    const double before = ChildrenCpuSeconds();
    testutil::CliResult plan = RunSeqflow({"plan", path, "--cache", dir + "/cache"});
    const double cpu = ChildrenCpuSeconds() - before;
    EXPECT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_NE(plan.out.find(std::to_string(instances + 2) + " nodes would run"), std::string::npos) << plan.out;
    least = std::min(least, cpu);
  }
  return least;
}

TEST(SpeedGuard, PlanIsLinearInNodeInstances) {
  const double start_up = PlanCpuSeconds(5, 3);
  const double small = PlanCpuSeconds(10000, 3), large = PlanCpuSeconds(100000, 2);
  const double per_small = std::max(small - start_up, 1e-3) / 10000, per_large = (large - start_up) / 100000;
  const double growth = per_large / per_small;
  std::printf("plan CPU: %.3f s start-up, %.3f s at 10^4, %.3f s at 10^5; per instance x%.2f (limit x%.1f)\n",
              start_up, small, large, growth, kMaxGrowth);
  EXPECT_LE(growth, kMaxGrowth) << "time per node instance grew from " << per_small * 1e6 << " us at 10^4 to "
                                << per_large * 1e6 << " us at 10^5";
}

}  // namespace plan_scale_guard_test
}  // namespace seqflow
