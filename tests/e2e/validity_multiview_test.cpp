// The multi-view validity case through the real binaries (docs/validity.md): seqflow-datagen
// writes sentences whose tokens have two views that are conditionally independent given the label
// and each sufficient to name it, pipelines/validity/multiview.yaml trains on 10 labeled sentences
// with unlabeled pools of 200 and 2,000 (3 seeds here, 5 in the pipeline). Co-training's
// assumptions hold, so the multi-view perceptron must beat the single-view one and its two views
// trained apart, by more with the larger pool; with view 2 a copy of view 1 the views never
// disagree and the unlabeled text must change nothing. Measured (seeds 1-3, pool 2,000): single
// 85.9 / 93.8 / 91.7, apart 91.8 / 94.5 / 93.9, multi-view 98.1 / 98.5 / 97.8; mean multi-view
// 95.9 with the pool of 200. About 10 s.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "tests/e2e/validity_case.h"

namespace seqflow::testutil {
namespace validity_multiview_test {

TEST(ValidityMultiview, ThePerceptronsViewsTeachEachOtherWhereCoTrainingsAssumptionsHold) {
  const std::string dir = GenerateValidityData("multiview", "--validity multiview --seed 1 --labeled 3100");
  const nlohmann::json s =
      RunOnValidityData(PipelinePath("validity/multiview.yaml"), dir, {"--ablation", "pool", "--set", "repeats=3"});
  ASSERT_EQ(s["runs"].size(), 6u);
  std::map<std::string, double> multiview_sum;
  for (size_t run = 0; run < s["runs"].size(); ++run) {
    const std::string pool = s["runs"][run]["axes"]["pool"];
    const std::string seed = s["runs"][run]["axes"]["repeat"];
    const double multiview = MetricOf(s, "s_multiview", "accuracy", run);
    multiview_sum[pool] += multiview;
    if (pool == "2000") {
      EXPECT_GE(multiview, MetricOf(s, "s_single", "accuracy", run) + 0.03) << "seed " << seed;
      EXPECT_GE(multiview, MetricOf(s, "s_apart", "accuracy", run) + 0.02) << "seed " << seed;
    }
    EXPECT_EQ(MetricOf(s, "multiview_copy", "disagreements", run), 0) << "pool " << pool << " seed " << seed;
    EXPECT_EQ(MetricOf(s, "s_multiview_copy", "accuracy", run), MetricOf(s, "s_apart_copy", "accuracy", run))
        << "pool " << pool << " seed " << seed;
  }
  EXPECT_GE(multiview_sum["2000"] / 3, multiview_sum["200"] / 3 + 0.01);
}

}  // namespace validity_multiview_test
}  // namespace seqflow::testutil
