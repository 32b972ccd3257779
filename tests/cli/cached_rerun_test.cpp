// A rerun whose nodes are all cached decodes no model and no corpus (docs/ARCHITECTURE.md,
// "engine/exec"): counted by Registry::ArtifactsDecoded over `seqflow run` in this process, on
// pipelines/conll2000_hmm.yaml (its HMM is 0.8 MB, the training corpus 5.8 MB). Real data: fails,
// never skips, without ../shared/data.
#include <gtest/gtest.h>

#include <string>

#include "cli/commands.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::cli {
namespace cached_rerun_test {

RunArgs Conll2000Hmm() {
  const std::string dir = testutil::MakeTempDir("seqflow-cached-rerun");
  RunArgs args;
  args.pipeline.path = testutil::SourceDir() + "/pipelines/conll2000_hmm.yaml";
  args.pipeline.sets = {"data=" + testutil::DataDir()};
  args.cache_dir = dir + "/cache";
  args.out_dir = dir + "/out";
  args.replace_out = true;  // each run records into the same folder
  args.threads = 2;
  return args;
}

struct Decodes {
  uint64_t models = Registry::ArtifactsDecoded("HmmModel");
  uint64_t corpora = Registry::ArtifactsDecoded("Corpus");
};

TEST(RealData, ACachedRerunOfConll2000HmmDecodesNoModelNorCorpus) {
  RunArgs args = Conll2000Hmm();
  ASSERT_EQ(RunCommand(args), 0);
  const Decodes before;
  ASSERT_EQ(RunCommand(args), 0);
  const Decodes after;
  EXPECT_EQ(after.models - before.models, 0u);
  EXPECT_EQ(after.corpora - before.corpora, 0u);
}

// The counts see decoding: a forced decoder reads the cached model and the test corpus.
TEST(RealData, AForcedDecoderOfConll2000HmmDecodesItsModelAndCorpus) {
  RunArgs args = Conll2000Hmm();
  ASSERT_EQ(RunCommand(args), 0);
  const Decodes before;
  args.force = {"predicted"};
  ASSERT_EQ(RunCommand(args), 0);
  const Decodes after;
  EXPECT_GE(after.models - before.models, 1u);
  EXPECT_GE(after.corpora - before.corpora, 1u);
}

}  // namespace cached_rerun_test
}  // namespace seqflow::cli
