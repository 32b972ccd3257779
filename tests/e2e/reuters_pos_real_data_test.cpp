// pipelines/reuters_pos.yaml on real data: a POS tagger trained on CoNLL-2000 tags the gzipped
// Reuters-21578 sentences (read.text through zlib, then decode.tag). Fails, never skips,
// without ../shared/data. Measured (2026-11-22, min_count 2, shape classes, add-0.05
// emissions): CoNLL-2000 test POS accuracy .9617; all 121,608 sentences (2.78 M tokens) tagged
// in 0.45 s on 2 threads, the whole pipeline in 1.2 s. The test tags the first 2,000.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace reuters_pos_real_data_test {

constexpr int kSentences = 2000;
constexpr double kTokensInFirst2000 = 45989;  // counted with Python's gzip module

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(RealData, ReutersPosTagging) {
  const std::string dir = MakeTempDir("seqflow-reuters-pos");
  CliResult r =
      RunSeqflow({"run", PipelinePath("reuters_pos.yaml"), "--set", "reuters_sentences=" + std::to_string(kSentences),
                  "-j", "2", "--cache", dir + "/cache", "--out", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir + "/out");

  EXPECT_GE(MetricOf(s, "pos_score", "accuracy"), 0.956);
  EXPECT_EQ(MetricOf(s, "pos_score", "tokens"), 47377);
  EXPECT_EQ(MetricOf(s, "reuters_text", "sentences"), kSentences);
  EXPECT_EQ(MetricOf(s, "reuters_text", "tokens"), kTokensInFirst2000);
  EXPECT_EQ(MetricOf(s, "reuters", "tokens"), kTokensInFirst2000);

  // The tagged corpus's first sentences: columns word and pos, a Penn Treebank tag per token.
  std::vector<std::string> preview = Lines(dir + "/out/reuters.preview.tsv");
  ASSERT_GT(preview.size(), 10u);
  EXPECT_EQ(preview[0], "word\tpos");
  int tagged = 0, the_dt = 0;
  for (size_t i = 1; i < preview.size(); ++i) {
    if (preview[i].empty()) continue;
    std::istringstream fields(preview[i]);
    std::string word, tag, rest;
    ASSERT_TRUE(fields >> word >> tag) << preview[i];
    EXPECT_FALSE(fields >> rest) << preview[i];
    ++tagged;
    the_dt += word == "the" && tag == "DT";
  }
  EXPECT_GT(tagged, 50);
  EXPECT_GT(the_dt, 0);
}

}  // namespace reuters_pos_real_data_test
}  // namespace seqflow::testutil
