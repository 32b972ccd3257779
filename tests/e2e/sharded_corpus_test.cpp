// A sharded corpus on the real binary (pipelines/citations_em_5000_shards.yaml, EM cut to 2
// iterations): a damaged shard makes the reader's entry Corruption naming the file, the reader
// recomputes and restores it, and the model is the same bits; `cache gc` removes the shards of a
// removed reader and keeps a live one's. Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace sharded_corpus_test {

namespace fs = std::filesystem;

class ShardedCorpusE2e : public ::testing::Test {
 protected:
  ShardedCorpusE2e() : dir_(MakeTempDir("seqflow-shards")), cache_(dir_ / "cache") {}
  ~ShardedCorpusE2e() override { fs::remove_all(dir_); }

  CliResult Run(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"run", PipelinePath("citations_em_5000_shards.yaml"), "--set", "em.max_iter=2",
                                     "--cache", cache_.string(), "-j", "2", "--out", (dir_ / "out").string(),
                                     "--replace"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunSeqflow(args);
  }
  std::vector<fs::path> Pieces() const {
    std::vector<fs::path> out;
    if (!fs::exists(cache_ / "pieces")) return out;
    for (const auto& f : fs::directory_iterator(cache_ / "pieces"))
      if (f.path().extension() == ".sfp") out.push_back(f.path());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string Entry(const std::string& key) const {
    Result<std::string> entry = EntryWithoutTiming((cache_ / key.substr(0, 2) / (key + ".sfa")).string());
    EXPECT_TRUE(entry.ok()) << entry.status().ToString();
    return entry.ok() ? *entry : "";
  }

  fs::path dir_, cache_;
};

TEST_F(ShardedCorpusE2e, ADamagedShardIsRecomputedAndTheModelKeepsItsBits) {
  CliResult first = Run();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string em = ReadSummary((dir_ / "out").string())["runs"][0]["nodes"]["em"]["key"].get<std::string>();
  const std::string model = Entry(em);
  const std::vector<fs::path> pieces = Pieces();
  ASSERT_EQ(pieces.size(), 8u) << "5,000 references in shards of 700";
  const std::string original = Slurp(pieces[3].string());
  {
    std::string damaged = original;
    damaged[damaged.size() / 2] ^= 0x20;
    std::ofstream(pieces[3], std::ios::binary | std::ios::trunc) << damaged;
  }
  CliResult again = Run({"--force", "em"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find(pieces[3].string()), std::string::npos) << again.err;
  EXPECT_EQ(NodeStatuses(ReadSummary((dir_ / "out").string()))["unlabeled"], "computed");
  EXPECT_EQ(Slurp(pieces[3].string()), original);
  EXPECT_EQ(Entry(em), model);
}

TEST_F(ShardedCorpusE2e, GcRemovesTheShardsOfARemovedReaderOnly) {
  ASSERT_EQ(Run().exit_code, 0);
  const std::vector<fs::path> pieces = Pieces();
  ASSERT_EQ(pieces.size(), 8u);
  // An hour and more: past any writer still computing.
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (const fs::path& p : pieces) fs::last_write_time(p, old);
  CliResult kept = RunSeqflow({"cache", "--cache", cache_.string(), "gc", "--keep-days", "7"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(Pieces().size(), 8u) << "the reader's entry is live";
  CliResult rm = RunSeqflow({"cache", "--cache", cache_.string(), "rm", "read.text_shards"});
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  CliResult gc = RunSeqflow({"cache", "--cache", cache_.string(), "gc", "--keep-days", "7"});
  ASSERT_EQ(gc.exit_code, 0) << gc.err;
  EXPECT_TRUE(Pieces().empty());
}

}  // namespace sharded_corpus_test
}  // namespace seqflow::testutil
