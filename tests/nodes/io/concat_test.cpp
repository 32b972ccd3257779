#include "nodes/io/concat.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace concat_test {

Corpus Labeled(const std::string& source, std::vector<std::string> labels, std::vector<std::pair<std::string, int>> tokens) {
  Corpus c;
  c.columns = {"word"};
  c.label_names = std::move(labels);
  c.encoding = TagEncoding::kRuns;
  c.source = source;
  for (const auto& [word, label] : tokens) c.sentences.push_back(Sentence{{{word}}, {label}});
  return c;
}

TEST(ConcatCorpora, KeepsOrderAndRenumbersLabelsToTheSortedUnion) {
  const Corpus a = Labeled("a", {"author", "title"}, {{"x", 1}, {"y", 0}});
  const Corpus b = Labeled("b", {"date", "title"}, {{"z", 0}, {"w", 1}});
  const Result<Corpus> c = ConcatCorpora({&a, &b});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->label_names, (std::vector<std::string>{"author", "date", "title"}));
  ASSERT_EQ(c->sentences.size(), 4u);
  const std::vector<std::string> words = {"x", "y", "z", "w"};
  const std::vector<std::string> labels = {"title", "author", "date", "title"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(c->sentences[i].words()[0], words[i]);
    EXPECT_EQ(c->label_names[c->sentences[i].labels[0]], labels[i]);
  }
  EXPECT_EQ(c->source, "a+b");
  EXPECT_EQ(c->encoding, TagEncoding::kRuns);
}

TEST(ConcatCorpora, DisagreementsAreErrorsNamingTheSources) {
  const Corpus a = Labeled("a.conll", {"X"}, {{"x", 0}});
  Corpus b = Labeled("b.conll", {"X"}, {{"y", 0}});
  b.encoding = TagEncoding::kIob2;
  Result<Corpus> c = ConcatCorpora({&a, &b});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("b.conll and a.conll differ in tag encoding"), std::string::npos);
  Corpus unlabeled = Labeled("u.txt", {}, {});
  unlabeled.sentences.push_back(Sentence{{{"u"}}, {}});
  c = ConcatCorpora({&a, &unlabeled});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("being labeled"), std::string::npos);
  EXPECT_FALSE(ConcatCorpora({}).ok());
}

}  // namespace concat_test
}  // namespace seqflow
