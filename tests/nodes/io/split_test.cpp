#include "nodes/io/split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace split_test {

// Sentence i has the single word "w<i>" labeled 0.
Corpus Numbered(size_t n) {
  Corpus c;
  c.columns = {"word"};
  c.label_names = {"X"};
  c.encoding = TagEncoding::kRuns;
  c.source = "n.conll";
  for (size_t i = 0; i < n; ++i) {
    std::string word = "w";
    word += std::to_string(i);  // not "w" + ...: GCC 12 warns falsely (-Wrestrict) on that
    c.sentences.push_back(Sentence{{{word}}, {0}});
  }
  return c;
}

std::vector<int> Indices(const Corpus& part) {
  std::vector<int> out;
  for (const auto& s : part.sentences) out.push_back(std::stoi(s.words()[0].substr(1)));
  return out;
}

Corpus Take(const Corpus& c, SplitOptions o) {
  Result<Corpus> r = SplitCorpus(c, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Corpus();
}

TEST(SeededPermutation, IsAPermutationFixedBySeed) {
  std::vector<size_t> a = SeededPermutation(100, 7);
  std::vector<size_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(a, SeededPermutation(100, 7));
  EXPECT_NE(a, SeededPermutation(100, 8));
}

TEST(SeededPermutation, PinnedValues) {
  // Our Fisher-Yates over std::mt19937_64 (fixed by the standard): the same on every platform.
  // Computed independently with a Python mt19937_64; if this changes, every seeded split does.
  EXPECT_EQ(SeededPermutation(10, 1), (std::vector<size_t>{1, 7, 3, 9, 4, 0, 5, 2, 6, 8}));
}

TEST(Split, DisjointRangesGiveDisjointPartsCoveringTheCorpus) {
  Corpus c = Numbered(50);
  std::vector<int> a = Indices(Take(c, {3, 10, 0, true, false}));
  std::vector<int> b = Indices(Take(c, {3, 15, 10, true, false}));
  std::vector<int> rest = Indices(Take(c, {3, 0, 25, true, false}));
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(b.size(), 15u);
  EXPECT_EQ(rest.size(), 25u);
  std::set<int> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  all.insert(rest.begin(), rest.end());
  EXPECT_EQ(all.size(), 50u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));  // original order kept
  EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
  EXPECT_NE(a, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));  // shuffled selection
}

TEST(Split, NoShuffleTakesFileOrder) {
  Corpus c = Numbered(10);
  EXPECT_EQ(Indices(Take(c, {99, 3, 2, false, false})), (std::vector<int>{2, 3, 4}));
}

TEST(Split, DropLabelsMakesAnUnlabeledPool) {
  Corpus part = Take(Numbered(10), {1, 4, 0, true, true});
  EXPECT_FALSE(part.labeled());
  EXPECT_EQ(part.encoding, TagEncoding::kNone);
  for (const auto& s : part.sentences) EXPECT_TRUE(s.labels.empty());
  EXPECT_EQ(part.columns, (std::vector<std::string>{"word"}));
}

TEST(Split, KeepsLabelSpace) {
  Corpus part = Take(Numbered(10), {1, 4, 0, true, false});
  EXPECT_EQ(part.label_names, (std::vector<std::string>{"X"}));
  EXPECT_EQ(part.encoding, TagEncoding::kRuns);
  EXPECT_EQ(part.source, "n.conll");
}

TEST(Split, RangeErrors) {
  Corpus c = Numbered(10);
  EXPECT_EQ(SplitCorpus(c, {1, 0, 11, true, false}).status().ToString(),
            "split: skip 11 is beyond the corpus (10 sentences)");
  EXPECT_EQ(SplitCorpus(c, {1, 5, 6, true, false}).status().ToString(),
            "split: skip 6 + count 5 exceeds the corpus (10 sentences)");
  EXPECT_EQ(SplitCorpus(c, {1, 0, 10, true, false}).status().ToString(),
            "split: skip 10 leaves nothing of the corpus (10 sentences)");
  EXPECT_EQ(SplitCorpus(c, {1, -1, 0, true, false}).status().ToString(), "split: skip and count must be >= 0");
}

}  // namespace split_test
}  // namespace seqflow
