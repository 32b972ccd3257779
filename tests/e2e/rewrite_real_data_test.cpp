// read.text's `rewrite:` through the real binary: pipelines/reuters_pos.yaml with the shipped
// Reuters -> WSJ rules on the first 2,000 Reuters sentences, and the rule file's bytes in the cache
// key. Fails, never skips, without ../shared/data. Measured (2026-11-24): the first 2,000
// sentences have 45,989 tokens, 45,883 after 1,753 rewrites (365 of them `mln => million`); the
// tagger's CoNLL-2000 accuracy is unchanged (.9617; it is trained on CoNLL-2000, not on Reuters).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace rewrite_real_data_test {

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out) << path;
}

TEST(RealData, ReutersRewrittenToWsjConventions) {
  const std::string dir = MakeTempDir("seqflow-rewrite");
  CliResult r = RunSeqflow({"run", PipelinePath("reuters_pos.yaml"), "--set", "reuters_sentences=2000", "--set",
                            "reuters_rewrite=maps/reuters-wsj.rewrite", "-j", "2", "--cache", dir + "/cache", "--out",
                            dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir + "/out");
  EXPECT_EQ(MetricOf(s, "reuters_text", "sentences"), 2000);
  EXPECT_EQ(MetricOf(s, "reuters_text", "tokens_before_rewrite"), 45989);
  EXPECT_EQ(MetricOf(s, "reuters_text", "tokens"), 45883);
  EXPECT_EQ(MetricOf(s, "reuters_text", "rewrites"), 1753);
  EXPECT_EQ(MetricOf(s, "reuters", "tokens"), 45883);
  EXPECT_GE(MetricOf(s, "pos_score", "accuracy"), 0.9617);

  const std::vector<std::string> report = Lines(dir + "/out/reuters_text.rewrites.tsv");
  ASSERT_GT(report.size(), 20u);
  EXPECT_EQ(report[0], "line\tmatches\trule");
  EXPECT_EQ(report[2], "9\t365\tmln => million");
}

// The rule file is a path parameter: its bytes, not its name, key read.text and what follows.
TEST(RealData, RewriteRuleFileContentIsInTheCacheKey) {
  const std::string dir = MakeTempDir("seqflow-rewrite-key");
  const std::string pipeline = dir + "/p.yaml";
  WriteText(pipeline,
            "name: rewrite-key\n"
            "nodes:\n"
            "  text: {kind: read.text, path: \"" +
                DataDir() + "/news_raw_en/reuters21578.sentences.txt.gz\", "
            "max_sentences: 2000, rewrite: rules.rewrite}\n");
  auto run = [&] {
    CliResult r =
        RunSeqflow({"run", pipeline, "-j", "1", "--cache", dir + "/cache", "--out", dir + "/out", "--replace"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return ReadSummary(dir + "/out");
  };
  WriteText(dir + "/rules.rewrite", "mln => million\n");
  nlohmann::json first = run();
  EXPECT_EQ(NodeStatuses(first).at("text"), "computed");
  EXPECT_EQ(MetricOf(first, "text", "rewrites"), 364);  // the full rules split one `mln.` first
  EXPECT_EQ(NodeStatuses(run()).at("text"), "cached");

  WriteText(dir + "/rules.rewrite", "mln => million\n< =>\n");
  nlohmann::json changed = run();
  EXPECT_EQ(NodeStatuses(changed).at("text"), "computed");
  EXPECT_LT(MetricOf(changed, "text", "tokens"), MetricOf(first, "text", "tokens"));

  WriteText(dir + "/rules.rewrite", "# Reuters\nmln => million\n{number} dlrs => $ {number}\n");
  CliResult bad = RunSeqflow({"run", pipeline, "-j", "1", "--cache", dir + "/cache"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("rules.rewrite:3: node 'text' (read.text): unknown placeholder '{number}' in a rewrite rule "
                         "(only {num})"),
            std::string::npos)
      << bad.err;
}

}  // namespace rewrite_real_data_test
}  // namespace seqflow::testutil
