#include "nodes/features/unknown_words.h"

#include <gtest/gtest.h>

#include <set>

namespace seqflow {
namespace unknown_words_test {

std::string Shape(std::string_view word) { return UnknownWordClass(word, UnknownScheme::kShape); }

TEST(UnknownWords, SingleSchemeHasOneClass) {
  EXPECT_EQ(UnknownClassNames(UnknownScheme::kSingle), (std::vector<std::string>{"<UNK>"}));
  EXPECT_EQ(UnknownWordClass("Anything-123", UnknownScheme::kSingle), "<UNK>");
  EXPECT_EQ(UnknownClassIndex("x", UnknownScheme::kSingle), 0);
}

TEST(UnknownWords, ShapeClassNamesAreUniqueAndInOrder) {
  const auto& names = UnknownClassNames(UnknownScheme::kShape);
  EXPECT_EQ(names.size(), 15u + 21u + 1u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(names.front(), "<UNK-punct>");
  EXPECT_EQ(names[15], "<UNK-x-ing>");
  EXPECT_EQ(names.back(), "<UNK-x>");
}

TEST(UnknownWords, PunctuationAndNumbers) {
  EXPECT_EQ(Shape("--"), "<UNK-punct>");
  EXPECT_EQ(Shape("..."), "<UNK-punct>");
  EXPECT_EQ(Shape("\xE2\x80\x94"), "<UNK-punct>");  // em dash
  EXPECT_EQ(Shape("\xC2\xA0"), "<UNK-punct>");      // no-break space
  EXPECT_EQ(Shape("1994"), "<UNK-4digits>");
  EXPECT_EQ(Shape("(1994)."), "<UNK-4digits>");
  EXPECT_EQ(Shape("12"), "<UNK-digits>");
  EXPECT_EQ(Shape("100000"), "<UNK-digits>");
  EXPECT_EQ(Shape("3.5"), "<UNK-number>");
  EXPECT_EQ(Shape("1,234,567"), "<UNK-number>");
  EXPECT_EQ(Shape("123-145,"), "<UNK-digit-punct>");
  EXPECT_EQ(Shape("3/4"), "<UNK-digit-punct>");
  EXPECT_EQ(Shape("12:30"), "<UNK-digit-punct>");
  EXPECT_EQ(Shape("1990s"), "<UNK-alnum>");
  EXPECT_EQ(Shape("A4"), "<UNK-alnum>");
}

TEST(UnknownWords, Capitalisation) {
  EXPECT_EQ(Shape("J."), "<UNK-initial>");
  EXPECT_EQ(Shape("A"), "<UNK-initial>");
  EXPECT_EQ(Shape("NATO"), "<UNK-CAPS>");
  EXPECT_EQ(Shape("U.S."), "<UNK-CAPS>");
  EXPECT_EQ(Shape("J.-P."), "<UNK-CAPS>");
  EXPECT_EQ(Shape("Anglo-Dutch"), "<UNK-Xx-hyphen>");
  EXPECT_EQ(Shape("well-known"), "<UNK-x-hyphen>");
  EXPECT_EQ(Shape("Proc."), "<UNK-Xx.>");
  EXPECT_EQ(Shape("Roever."), "<UNK-Xx.>");
  EXPECT_EQ(Shape("Haffari"), "<UNK-Xx>");
  EXPECT_EQ(Shape("Cau,"), "<UNK-Xx,>");
  EXPECT_EQ(Shape("(Haffari"), "<UNK-Xx>");
  EXPECT_EQ(Shape("\xC3\x89tienne"), "<UNK-Xx>");  // Latin-1 capital
  EXPECT_EQ(Shape("iPhone"), "<UNK-mixed>");
  EXPECT_EQ(Shape("\xCE\xB1\xCE\xB2\xCE\xB3"), "<UNK-other>");  // Greek, no case here
}

TEST(UnknownWords, LowercaseSuffixes) {
  EXPECT_EQ(Shape("tagging"), "<UNK-x-ing>");
  EXPECT_EQ(Shape("smoothed"), "<UNK-x-ed>");
  EXPECT_EQ(Shape("quickly"), "<UNK-x-ly>");
  EXPECT_EQ(Shape("estimation"), "<UNK-x-ion>");
  EXPECT_EQ(Shape("alignment"), "<UNK-x-ment>");
  EXPECT_EQ(Shape("sparseness"), "<UNK-x-ness>");  // not -s
  EXPECT_EQ(Shape("sparsity"), "<UNK-x-ity>");
  EXPECT_EQ(Shape("tractable"), "<UNK-x-ble>");
  EXPECT_EQ(Shape("generative"), "<UNK-x-ive>");
  EXPECT_EQ(Shape("ambiguous"), "<UNK-x-ous>");  // not -s
  EXPECT_EQ(Shape("useful"), "<UNK-x-ful>");
  EXPECT_EQ(Shape("parameterless"), "<UNK-x-less>");
  EXPECT_EQ(Shape("realism"), "<UNK-x-ism>");
  EXPECT_EQ(Shape("linguist"), "<UNK-x-ist>");
  EXPECT_EQ(Shape("normalize"), "<UNK-x-ize>");
  EXPECT_EQ(Shape("normalise"), "<UNK-x-ise>");
  EXPECT_EQ(Shape("statistical"), "<UNK-x-al>");
  EXPECT_EQ(Shape("stochastic"), "<UNK-x-ic>");
  EXPECT_EQ(Shape("smallest"), "<UNK-x-est>");
  EXPECT_EQ(Shape("tagger"), "<UNK-x-er>");
  EXPECT_EQ(Shape("models,"), "<UNK-x-s>");
  EXPECT_EQ(Shape("na\xC3\xAFvely"), "<UNK-x-ly>");  // Latin-1 lowercase letter inside
  EXPECT_EQ(Shape("caf\xC3\xA9"), "<UNK-x>");
  EXPECT_EQ(Shape("hmm"), "<UNK-x>");
}

TEST(UnknownWords, SuffixNeedsAStemOfTwoLetters) {
  EXPECT_EQ(Shape("bed"), "<UNK-x>");
  EXPECT_EQ(Shape("used"), "<UNK-x-ed>");
  EXPECT_EQ(Shape("is"), "<UNK-x>");
  EXPECT_EQ(Shape("ing"), "<UNK-x>");
}

TEST(UnknownWords, IndexMatchesName) {
  for (std::string_view w : {"1994", "Proc.", "tagging", "--", "zz"}) {
    int i = UnknownClassIndex(w, UnknownScheme::kShape);
    EXPECT_EQ(UnknownClassNames(UnknownScheme::kShape)[i], UnknownWordClass(w, UnknownScheme::kShape));
  }
}

}  // namespace unknown_words_test
}  // namespace seqflow
