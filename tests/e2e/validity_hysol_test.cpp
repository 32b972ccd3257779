// The HySOL validity case through the real binaries (docs/validity.md): seqflow-datagen writes
// chunked sentences whose words carry the chunk (an HMM over chunk tags, the POS column half
// noise), pipelines/validity/hysol.yaml runs conll2000_hysol.yaml on them: 300 labeled sentences,
// 5,000 unlabeled here (the pipeline's default reads all 50,000). The data fit HySOL's generative
// experts, so its HMMs must add to the CRFs: HySOL above LOP-CRF and the CRF, with the HMMs holding
// a real share of the combination weight. Measured (seed 1): F1 CRF .6486, LOP-CRF .7125, HySOL
// without HMMs .7161, HySOL .7402 (HMMs' Γ 0.27), HySOL without priors .8411. About 10 s.
#include <string>

#include <gtest/gtest.h>

#include "tests/e2e/validity_case.h"

namespace seqflow::testutil {
namespace validity_hysol_test {

TEST(ValidityHysol, TheHmmsAddToTheCrfsWhereTheWordsCarryTheChunk) {
  const std::string dir =
      GenerateValidityData("hysol", "--validity hysol --seed 1 --labeled 300 --test 1000 --unlabeled 5000");
  const nlohmann::json s = RunOnValidityData(PipelinePath("validity/hysol.yaml"), dir);
  const double crf = MetricOf(s, "crf", "f1"), lop = MetricOf(s, "lop_crf", "f1");
  const double hysol = MetricOf(s, "hysol_crf", "f1"), no_hmm = MetricOf(s, "hysol_no_hmm", "f1");
  EXPECT_GE(hysol, 0.73);
  EXPECT_GE(hysol, lop + 0.02);
  EXPECT_GE(hysol, no_hmm + 0.02);
  EXPECT_GE(hysol, crf + 0.07);
  EXPECT_GE(MetricOf(s, "hysol_no_prior", "f1"), lop + 0.02);
  double hmm_weight = 0;
  for (int j = 1; j <= 18; ++j) hmm_weight += MetricOf(s, "hysol", "gamma.hmm" + std::to_string(j));
  EXPECT_GE(hmm_weight, 0.2);
}

}  // namespace validity_hysol_test
}  // namespace seqflow::testutil
