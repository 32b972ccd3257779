// pipelines/maps/reuters-wsj.rewrite on the real Reuters-21578 text: what it rewrites, and how many
// of CoNLL-2000 test's word bigrams the unlabeled text then contains (the HMM symbols HySOL can
// learn). Missing data fails. Measured 2026-11-24 (see pipelines/maps/README.md):
//   test word-bigram tokens (word[-1]|word[0], sentence start padded) seen in Reuters: 66.70% -> 69.37%
//   test word-bigram types seen in Reuters:                                            55.33% -> 57.43%
//   Reuters tokens 2,782,813 -> 2,772,406; `mln` 25,369 -> 0; `million` 117 -> 25,518; `$` 8 -> 20,615;
//   `%` 0 -> 16,571; `#` 0 -> 1,418.
#include <gtest/gtest.h>

#include <set>
#include <unordered_map>

#include "engine/base/env.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/gzip.h"
#include "nodes/io/rewrite_rules.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace rewrite_real_data_test {

Corpus ReadReuters() {
  const std::string path = JoinPath(testutil::DataDir(), "news_raw_en/reuters21578.sentences.txt.gz");
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  EXPECT_OK(bytes);
  if (!bytes.ok()) return {};
  Result<std::string> text = Gunzip(*bytes, path);
  EXPECT_OK(text);
  Result<Corpus> corpus = ParseTextLines(text.ok() ? *text : "", path, 0, FileEncoding::kUtf8);
  EXPECT_OK(corpus);
  return corpus.ok() ? *corpus : Corpus{};
}

Corpus ReadConll2000Test() {
  const std::string path = JoinPath(testutil::DataDir(), "conll2000/test.txt");
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  EXPECT_OK(bytes);
  ConllOptions options;
  options.columns = {"word", "pos", "chunk"};
  Result<Corpus> corpus = ParseConll(bytes.ok() ? *bytes : "", path, options);
  EXPECT_OK(corpus);
  return corpus.ok() ? *corpus : Corpus{};
}

RewriteRules ShippedRules() {
  const std::string path = JoinPath(testutil::SourceDir(), "pipelines/maps/reuters-wsj.rewrite");
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  EXPECT_OK(bytes);
  Result<RewriteRules> rules = ParseRewriteRules(bytes.ok() ? *bytes : "", path);
  EXPECT_OK(rules);
  return rules.ok() ? *rules : RewriteRules{};
}

std::string Bigram(const std::vector<std::string>& words, size_t i) {
  return (i == 0 ? std::string("<s>") : words[i - 1]) + "|" + words[i];
}

std::unordered_map<std::string, int64_t> WordCounts(const Corpus& corpus) {
  std::unordered_map<std::string, int64_t> counts;
  for (const Sentence& s : corpus.sentences)
    for (const std::string& w : s.words()) ++counts[w];
  return counts;
}

struct BigramCoverage {
  double tokens = 0;  // share of the test's bigram occurrences seen in the text
  double types = 0;   // share of its distinct bigrams seen in the text
};

BigramCoverage CoverageOf(const Corpus& test, const Corpus& text) {
  std::set<std::string> seen;
  for (const Sentence& s : text.sentences)
    for (size_t i = 0; i < s.size(); ++i) seen.insert(Bigram(s.words(), i));
  int64_t tokens = 0, tokens_seen = 0;
  std::set<std::string> types;
  for (const Sentence& s : test.sentences)
    for (size_t i = 0; i < s.size(); ++i) {
      const std::string bigram = Bigram(s.words(), i);
      ++tokens;
      tokens_seen += seen.count(bigram);
      types.insert(bigram);
    }
  int64_t types_seen = 0;
  for (const std::string& t : types) types_seen += seen.count(t);
  return {static_cast<double>(tokens_seen) / tokens, static_cast<double>(types_seen) / types.size()};
}

TEST(RewriteRealData, ReutersToWsjRewritesTheConventionsAndRaisesBigramCoverage) {
  const Corpus test = ReadConll2000Test();
  Corpus reuters = ReadReuters();
  ASSERT_EQ(reuters.num_tokens(), 2782813u);
  const auto before = WordCounts(reuters);
  const BigramCoverage coverage_before = CoverageOf(test, reuters);

  Result<std::vector<int64_t>> matches = RewriteCorpus(ShippedRules(), reuters, CancelToken());
  ASSERT_OK(matches);
  const auto after = WordCounts(reuters);
  const BigramCoverage coverage_after = CoverageOf(test, reuters);
  auto count = [](const std::unordered_map<std::string, int64_t>& c, const std::string& w) {
    auto it = c.find(w);
    return it == c.end() ? int64_t{0} : it->second;
  };

  EXPECT_EQ(reuters.num_tokens(), 2772406u);
  EXPECT_EQ(reuters.sentences.size(), 121608u);
  for (const char* gone : {"mln", "dlrs", "pct", "cts", "stg", "<", ">", "U.S"}) EXPECT_EQ(count(after, gone), 0) << gone;
  EXPECT_EQ(count(before, "million"), 117);
  EXPECT_EQ(count(after, "million"), 25518);
  EXPECT_EQ(count(before, "$"), 8);
  EXPECT_EQ(count(after, "$"), 20615);
  EXPECT_EQ(count(before, "%"), 0);
  EXPECT_EQ(count(after, "%"), 16571);
  EXPECT_EQ(count(before, "#"), 0);
  EXPECT_EQ(count(after, "#"), 1418);

  EXPECT_NEAR(coverage_before.tokens, 0.6670, 0.0001);
  EXPECT_NEAR(coverage_before.types, 0.5533, 0.0001);
  EXPECT_NEAR(coverage_after.tokens, 0.6937, 0.0001);
  EXPECT_NEAR(coverage_after.types, 0.5743, 0.0001);
}

}  // namespace rewrite_real_data_test
}  // namespace seqflow
