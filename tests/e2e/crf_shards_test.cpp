// crf.train on a sharded CoNLL-2000 on the real binary (pipelines/conll2000_crf_shards.yaml,
// L-BFGS cut to 6 iterations): the model and its objective trace are the bits of the same chunker
// trained from read.conll's Corpus (conll2000_crf.yaml), for shards of 1,000 sentences (cut by
// crf.train's blocks of 8,192) and of more sentences than the corpus; the features node keeps the
// corpus's shards, one piece each. Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace crf_shards_test {

namespace fs = std::filesystem;

class CrfShardsE2e : public ::testing::Test {
 protected:
  CrfShardsE2e() : dir_(MakeTempDir("seqflow-crf-shards")), cache_(dir_ / "cache") {}
  ~CrfShardsE2e() override { fs::remove_all(dir_); }

  // The entry of `node` after running `pipeline` with `sets` (and 6 iterations) and, if given, only
  // the ablation axis `ablation`, without timing.
  std::string Run(const std::string& pipeline, std::vector<std::string> sets, const std::string& node,
                  const std::string& ablation = "") {
    sets.push_back("crf.max_iterations=6");
    std::vector<std::string> args = {"run", PipelinePath(pipeline), "--cache", cache_.string(), "-j", "2",
                                     "--out", (dir_ / "out").string(), "--replace"};
    if (!ablation.empty()) args.insert(args.end(), {"--ablation", ablation});
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    CliResult run = RunSeqflow(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const std::string key = ReadSummary((dir_ / "out").string())["runs"][0]["nodes"][node]["key"].get<std::string>();
    Result<std::string> entry = EntryWithoutTiming((cache_ / key.substr(0, 2) / (key + ".sfa")).string());
    EXPECT_TRUE(entry.ok()) << entry.status().ToString();
    return entry.ok() ? *entry : "";
  }
  int Pieces() const {
    int n = 0;
    for (const auto& f : fs::directory_iterator(cache_ / "pieces")) n += f.path().extension() == ".sfp";
    return n;
  }

  fs::path dir_, cache_;
};

TEST_F(CrfShardsE2e, TheShardedChunkerIsTheWholeCorpussBits) {
  // The first-order chunker only (the pipeline's `order` axis would also train the second-order one).
  const std::string whole = Run("conll2000_crf.yaml", {}, "crf", "decoder");
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(Run("conll2000_crf_shards.yaml", {}, "crf"), whole);
  EXPECT_EQ(Pieces(), 2 * 9) << "8,936 sentences in shards of 1,000: the corpus's and the features'";
  EXPECT_EQ(Run("conll2000_crf_shards.yaml", {"shard_sentences=10000"}, "crf"), whole);
}

}  // namespace crf_shards_test
}  // namespace seqflow
