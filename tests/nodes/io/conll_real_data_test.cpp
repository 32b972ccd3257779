// The readers on the real data sets under DataDir(). Missing data fails these tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/base/env.h"
#include "nodes/io/conll_reader.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace conll_real_data_test {

Result<Corpus> ReadData(const std::string& relative, const ConllOptions& options) {
  std::string path = JoinPath(testutil::DataDir(), relative);
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return ParseConll(*bytes, path, options);
}

std::map<std::string, int> LabelCounts(const Corpus& c) {
  std::map<std::string, int> counts;
  for (const auto& s : c.sentences)
    for (int32_t id : s.labels) ++counts[c.label_names[id]];
  return counts;
}

TEST(ConllRealData, Conll2000Train) {
  Result<Corpus> c = ReadData("conll2000/train.txt", {});
  ASSERT_OK(c);
  EXPECT_EQ(c->sentences.size(), 8936u);
  EXPECT_EQ(c->num_tokens(), 211727u);
  EXPECT_EQ(c->label_names.size(), 22u);
  EXPECT_TRUE(std::is_sorted(c->label_names.begin(), c->label_names.end()));
  EXPECT_EQ(c->columns, (std::vector<std::string>{"word", "col1"}));
  auto counts = LabelCounts(*c);
  EXPECT_EQ(counts["B-NP"], 55081);
  EXPECT_EQ(counts["I-UCP"], 6);
  EXPECT_EQ(counts["O"], 27902);
  EXPECT_EQ(c->sentences[0].words()[0], "Confidence");
}

TEST(ConllRealData, CoraTrainAsRuns) {
  ConllOptions o;
  o.encoding = TagEncoding::kRuns;
  Result<Corpus> c = ReadData("citations/cora.train", o);
  ASSERT_OK(c);
  EXPECT_EQ(c->sentences.size(), 300u);
  EXPECT_EQ(c->num_tokens(), 7066u);
  EXPECT_EQ(c->label_names,
            (std::vector<std::string>{"author", "booktitle", "date", "editor", "institution", "journal", "location",
                                      "note", "pages", "publisher", "tech", "title", "volume"}));
  EXPECT_EQ(LabelCounts(*c)["title"], 2121);
}

TEST(ConllRealData, TwitterOct27TrainWithTabSeparator) {
  ConllOptions o;
  o.encoding = TagEncoding::kRuns;
  o.separator = Separator::kTab;
  Result<Corpus> c = ReadData("twitter_pos/oct27.train", o);
  ASSERT_OK(c);
  EXPECT_EQ(c->sentences.size(), 1000u);
  EXPECT_EQ(c->num_tokens(), 14619u);
  EXPECT_EQ(c->label_names.size(), 25u);
  int nbsp_tokens = 0, launch = 0;
  for (const auto& s : c->sentences)
    for (const auto& w : s.words()) {
      nbsp_tokens += w == "\xC2\xA0";
      launch += w == "\xE2\x80\x94\xC2\xA0launch";
    }
  EXPECT_EQ(nbsp_tokens, 2);  // lines 9891 and 9905
  EXPECT_EQ(launch, 1);       // line 14158
  EXPECT_EQ(LabelCounts(*c)["G"], 137);
}

TEST(ConllRealData, Conll2003EngTrainIob1) {
  ConllOptions o;
  o.columns = {"word", "POS", "chunk", "NE"};
  o.encoding = TagEncoding::kIob1;
  Result<Corpus> c = ReadData("conll2003_en/eng.train", o);
  ASSERT_OK(c);
  EXPECT_EQ(c->sentences.size(), 14041u);
  EXPECT_EQ(c->num_tokens(), 203621u);
  EXPECT_EQ(c->columns, (std::vector<std::string>{"word", "POS", "chunk"}));
  EXPECT_EQ(c->label_names,
            (std::vector<std::string>{"B-LOC", "B-MISC", "B-ORG", "I-LOC", "I-MISC", "I-ORG", "I-PER", "O"}));
  auto counts = LabelCounts(*c);
  EXPECT_EQ(counts["B-MISC"], 37);
  EXPECT_EQ(counts["I-PER"], 11128);
  EXPECT_EQ(c->sentences[0].words()[0], "EU");
}

TEST(ConllRealData, Conll2002DutchDocstartGluedToSentences) {
  Result<Corpus> c = ReadData("conll2002_nl/ned.train", {});
  ASSERT_OK(c);
  EXPECT_EQ(c->sentences.size(), 15806u);
  EXPECT_EQ(c->num_tokens(), 202644u);
  EXPECT_EQ(c->label_names.size(), 9u);
}

}  // namespace conll_real_data_test
}  // namespace seqflow
