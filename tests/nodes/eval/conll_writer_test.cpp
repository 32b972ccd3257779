// FormatConll (write.conll's kernel): the exact file for labeled and unlabeled corpora and
// several predictions, and every shape or field problem as an error instead of a broken file.
// That conlleval reads the file as written: conlleval_peer_test.cpp.
#include "nodes/io/conll_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/nodes/eval/eval_fixtures.h"

namespace seqflow {
namespace conll_writer_test {

using ::testing::HasSubstr;
using testutil::GoldCorpus;
using testutil::PredictionsOf;

// Two sentences with a POS column; gold ids sorted, prediction ids reversed (names, not ids, out).
std::shared_ptr<Corpus> TwoSentences() {
  auto c = GoldCorpus({{"B-NP", "I-NP", "O"}, {"B-VP"}}, TagEncoding::kIob2);
  c->columns = {"word", "pos"};
  c->sentences[0].cols = {{"The", "cat", "."}, {"DT", "NN", "."}};
  c->sentences[1].cols = {{"Go"}, {"VB"}};
  return c;
}

TEST(FormatConll, ColumnsGoldThenEachPrediction) {
  auto data = TwoSentences();
  auto first = PredictionsOf({{"B-NP", "B-NP", "O"}, {"O"}}, TagEncoding::kIob2);
  auto second = PredictionsOf({{"O", "I-NP", "O"}, {"B-VP"}}, TagEncoding::kIob2);
  Result<std::string> one = FormatConll(*data, {first.get()}, ConllSeparator::kSpace);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(*one, "The DT B-NP B-NP\ncat NN I-NP B-NP\n. . O O\n\nGo VB B-VP O\n\n");
  Result<std::string> two = FormatConll(*data, {first.get(), second.get()}, ConllSeparator::kTab);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(*two,
            "The\tDT\tB-NP\tB-NP\tO\ncat\tNN\tI-NP\tB-NP\tI-NP\n.\t.\tO\tO\tO\n\n"
            "Go\tVB\tB-VP\tO\tB-VP\n\n");
}

TEST(FormatConll, UnlabeledCorpusHasNoGoldColumn) {
  auto data = TwoSentences();
  data->label_names.clear();
  for (auto& s : data->sentences) s.labels.clear();
  auto guess = PredictionsOf({{"B-NP", "I-NP", "O"}, {"B-VP"}}, TagEncoding::kIob2);
  Result<std::string> text = FormatConll(*data, {guess.get()}, ConllSeparator::kSpace);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "The DT B-NP\ncat NN I-NP\n. . O\n\nGo VB B-VP\n\n");
}

TEST(FormatConll, PredictionOfOtherSentencesIsAnError) {
  auto data = TwoSentences();
  auto fewer = PredictionsOf({{"O", "O", "O"}}, TagEncoding::kIob2);
  auto shorter = PredictionsOf({{"O", "O", "O"}, {}}, TagEncoding::kIob2);
  auto good = PredictionsOf({{"O", "O", "O"}, {"O"}}, TagEncoding::kIob2);
  auto unnamed = PredictionsOf({{"O", "O", "O"}, {"O"}}, TagEncoding::kIob2);
  unnamed->labels[1][0] = 5;
  EXPECT_THAT(FormatConll(*data, {fewer.get()}, ConllSeparator::kSpace).status().ToString(),
              HasSubstr("prediction 1 has 1 sentences, the corpus 2"));
  EXPECT_THAT(FormatConll(*data, {good.get(), shorter.get()}, ConllSeparator::kSpace).status().ToString(),
              HasSubstr("prediction 2: sentence 2 has 0 labels for 1 tokens"));
  EXPECT_THAT(FormatConll(*data, {unnamed.get()}, ConllSeparator::kSpace).status().ToString(),
              HasSubstr("sentence 2 has label id 5 without a name"));
}

TEST(FormatConll, FieldTheSeparatorWouldSplitIsAnError) {
  auto data = TwoSentences();
  data->sentences[0].cols[0][1] = "New York";
  auto guess = PredictionsOf({{"O", "O", "O"}, {"O"}}, TagEncoding::kIob2);
  const Status spaced = FormatConll(*data, {guess.get()}, ConllSeparator::kSpace).status();
  EXPECT_EQ(spaced.code(), StatusCode::kInvalid);
  EXPECT_THAT(spaced.ToString(), HasSubstr("sentence 1, token 2: field 'New York'"));
  EXPECT_THAT(spaced.ToString(), HasSubstr("separator: tab"));
  Result<std::string> tabbed = FormatConll(*data, {guess.get()}, ConllSeparator::kTab);
  ASSERT_TRUE(tabbed.ok()) << tabbed.status().ToString();
  EXPECT_THAT(*tabbed, HasSubstr("New York\tNN\tI-NP\tO\n"));
  data->sentences[0].cols[1][1] = "N\tN";
  EXPECT_THAT(FormatConll(*data, {guess.get()}, ConllSeparator::kTab).status().ToString(),
              HasSubstr("sentence 1, token 2"));
}

}  // namespace conll_writer_test
}  // namespace seqflow
