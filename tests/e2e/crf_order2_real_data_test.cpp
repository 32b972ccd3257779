// The second-order CRF (crf.train order: 2, Sha & Pereira 2003) end to end on CoNLL-2000 through
// the real binary: base NP chunking with both orders, and full chunking at order 2 with both
// decoders. Thresholds sit just below what was measured (-j2):
//   base NP (conll2000_base_np.yaml)  order 1: F1 .9417 acc .9749; order 2: F1 .9417 acc .9748,
//                                     SMS F1 .9408 (Sha & Pereira's base NP: 94.38)
//   chunking (conll2000_crf.yaml)     order 2 stopped at 30 L-BFGS iterations, trained on the first
//                                     3,000 training sentences and scored on the first 1,000 test
//                                     ones (a third of the CPU of the whole files): Viterbi F1 .9261
//                                     acc .9528; SMS F1 .9260 acc .9535 (whole files, converged:
//                                     .9379 / .9602 and .9368 / .9604; order 1 .9380 / .9605)
// They fail, never skip, without the data.
#include <gtest/gtest.h>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/data_subset.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace crf_order2_real_data_test {

nlohmann::json RunPipeline(const std::string& pipeline, const std::vector<std::string>& extra_args) {
  const std::string tmp = MakeTempDir("seqflow-order2");
  std::vector<std::string> args = {"run", PipelinePath(pipeline), "--cache", tmp + "/cache", "--out", tmp + "/out"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  const CliResult r = RunSeqflow(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ReadSummary(tmp + "/out");
}

size_t RunWith(const nlohmann::json& summary, const std::string& axis, const std::string& value) {
  for (size_t r = 0; r < summary["runs"].size(); ++r) {
    if (summary["runs"][r]["ablation"].value(axis, "") == value) return r;
  }
  ADD_FAILURE() << "no run with " << axis << " = " << value;
  return 0;
}

TEST(CrfOrder2RealData, BaseNpChunkingWithBothOrders) {
  const nlohmann::json s = RunPipeline("conll2000_base_np.yaml", {});
  ASSERT_EQ(s["runs"].size(), 2u);
  const size_t first = RunWith(s, "crf.order", "1"), second = RunWith(s, "crf.order", "2");
  EXPECT_GE(MetricOf(s, "score", "f1", first), 0.9400);
  EXPECT_GE(MetricOf(s, "score", "accuracy", first), 0.9740);
  EXPECT_GE(MetricOf(s, "score", "f1", second), 0.9400);
  EXPECT_GE(MetricOf(s, "score", "accuracy", second), 0.9740);
  EXPECT_GE(MetricOf(s, "compare", "f1.sms", second), 0.9390);
  // Three tags: the second-order model adds (K+1) K² = 36 trigram weights.
  EXPECT_EQ(MetricOf(s, "crf", "weights", second) - MetricOf(s, "crf", "weights", first), 36.0);
  EXPECT_EQ(MetricOf(s, "crf", "converged", second), 1.0);
}

TEST(CrfOrder2RealData, ChunkingAtOrder2WithBothDecoders) {
  const std::string data = DataSubset({{"conll2000/train.txt", 3000}, {"conll2000/test.txt", 1000}});
  const nlohmann::json s = RunPipeline("conll2000_crf.yaml", {"--ablation", "decoder", "--set", "crf.order=2", "--set",
                                                              "crf.max_iterations=30", "--set", "data=" + data});
  ASSERT_EQ(s["runs"].size(), 2u);
  const size_t viterbi = RunWith(s, "predicted.kind", "decode.viterbi");
  const size_t sms = RunWith(s, "predicted.kind", "decode.sms");
  EXPECT_GE(MetricOf(s, "score", "f1", viterbi), 0.9250);
  EXPECT_GE(MetricOf(s, "score", "accuracy", viterbi), 0.9520);
  EXPECT_GE(MetricOf(s, "score", "f1", sms), 0.9250);
  EXPECT_GE(MetricOf(s, "score", "accuracy", sms), 0.9525);
  // 20 labels in these sentences: 21 x 20² = 8,400 trigram weights beside the first-order model's.
  EXPECT_EQ(MetricOf(s, "crf", "weights", viterbi), 3196440.0 + 8400.0);
}

}  // namespace crf_order2_real_data_test
}  // namespace seqflow::testutil
