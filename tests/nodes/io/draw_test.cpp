#include "nodes/io/draw.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace draw_test {

// Sentence i has i % 7 + 1 tokens, each word "s<i>"; labels: 0 everywhere, except that every 5th
// sentence carries label 1 and every 11th label 2 on its first token.
Corpus Synthetic(size_t n) {
  Corpus c;
  c.columns = {"word"};
  c.label_names = {"O", "B-X", "B-Y"};
  c.encoding = TagEncoding::kIob2;
  c.source = "synthetic.conll";
  for (size_t i = 0; i < n; ++i) {
    const size_t T = i % 7 + 1;
    Sentence s;
    std::string word = "s";
    word += std::to_string(i);
    s.cols = {std::vector<std::string>(T, word)};
    s.labels.assign(T, 0);
    if (i % 5 == 0) s.labels[0] = 1;
    if (i % 11 == 0) s.labels[0] = 2;
    c.sentences.push_back(s);
  }
  return c;
}

std::set<std::string> Ids(const Corpus& part) {
  std::set<std::string> ids;
  for (const Sentence& s : part.sentences) ids.insert(s.words()[0]);
  return ids;
}

DrawOptions Options(DrawPart part) {
  DrawOptions o;
  o.seed = 3;
  o.part = part;
  o.min_length = 3;
  o.max_length = 6;
  o.holdout = 20;
  o.labeled = 4;
  o.unlabeled = 50;
  return o;
}

Corpus Draw(const Corpus& c, const DrawOptions& o) {
  Result<Corpus> r = DrawCorpus(c, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Corpus();
}

TEST(Draw, PartsAreDisjointSizedAndWithinTheLengthBounds) {
  const Corpus c = Synthetic(400);
  const Corpus holdout = Draw(c, Options(DrawPart::kHoldout));
  const Corpus labeled = Draw(c, Options(DrawPart::kLabeled));
  const Corpus unlabeled = Draw(c, Options(DrawPart::kUnlabeled));
  EXPECT_EQ(holdout.sentences.size(), 20u);
  EXPECT_EQ(labeled.sentences.size(), 4u);
  EXPECT_EQ(unlabeled.sentences.size(), 50u);
  std::set<std::string> all;
  for (const Corpus* part : {&holdout, &labeled, &unlabeled}) {
    for (const Sentence& s : part->sentences) {
      EXPECT_GE(s.size(), 3u);
      EXPECT_LE(s.size(), 6u);
    }
    for (const std::string& id : Ids(*part)) EXPECT_TRUE(all.insert(id).second) << id << " drawn twice";
  }
}

TEST(Draw, LabeledPartHoldsEveryLabelAndUnlabeledNone) {
  const Corpus c = Synthetic(400);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    DrawOptions o = Options(DrawPart::kLabeled);
    o.seed = seed;
    o.labeled = 2;
    const Corpus labeled = Draw(c, o);
    std::set<int32_t> seen;
    for (const Sentence& s : labeled.sentences) seen.insert(s.labels.begin(), s.labels.end());
    EXPECT_EQ(seen.size(), 3u) << "seed " << seed;
    EXPECT_EQ(labeled.label_names, c.label_names);
  }
  const Corpus unlabeled = Draw(c, Options(DrawPart::kUnlabeled));
  EXPECT_FALSE(unlabeled.labeled());
  for (const Sentence& s : unlabeled.sentences) EXPECT_TRUE(s.labels.empty());
}

TEST(Draw, SeedFixesTheDrawAndUnlabeledZeroTakesTheRest) {
  const Corpus c = Synthetic(400);
  EXPECT_EQ(Ids(Draw(c, Options(DrawPart::kLabeled))), Ids(Draw(c, Options(DrawPart::kLabeled))));
  DrawOptions other = Options(DrawPart::kHoldout);
  other.seed = 4;
  EXPECT_NE(Ids(Draw(c, Options(DrawPart::kHoldout))), Ids(Draw(c, other)));
  // Lengths 3..6 are 4 of every 7 sentences: 228 of 400 (i % 7 in 2..5).
  DrawOptions rest = Options(DrawPart::kUnlabeled);
  rest.unlabeled = 0;
  EXPECT_EQ(Draw(c, rest).sentences.size(), 228u - 20u - 4u);
}

TEST(Draw, WithoutEveryLabelTheFirstDrawIsKept) {
  const Corpus c = Synthetic(400);
  DrawOptions o = Options(DrawPart::kLabeled);
  o.labeled = 1;
  o.every_label = false;
  o.max_redraws = 0;
  EXPECT_EQ(Draw(c, o).sentences.size(), 1u);
}

TEST(Draw, ErrorsNameTheProblem) {
  const Corpus c = Synthetic(400);
  DrawOptions big = Options(DrawPart::kLabeled);
  big.unlabeled = 1000;
  Result<Corpus> r = DrawCorpus(c, big);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("synthetic.conll has only 228"), std::string::npos) << r.status().ToString();

  DrawOptions impossible = Options(DrawPart::kLabeled);
  impossible.labeled = 1;  // no sentence carries all three labels
  impossible.max_redraws = 5;
  r = DrawCorpus(c, impossible);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("in 6 tries"), std::string::npos) << r.status().ToString();

  Corpus unlabeled = c;
  unlabeled.label_names.clear();
  EXPECT_FALSE(DrawCorpus(unlabeled, Options(DrawPart::kHoldout)).ok());
}

}  // namespace draw_test
}  // namespace seqflow
