// Multi-valued template atoms: ngramsN(column[offset]) gives a token one attribute per distinct
// letter n-gram (feature_templates.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nodes/features/feature_templates.h"
#include "nodes/features/template_parser.h"

namespace seqflow {
namespace letter_ngrams_test {

using ::testing::HasSubstr;
using V = std::vector<std::string>;

V Ngrams(std::string_view token, int32_t n) {
  std::vector<std::string_view> views;
  LetterNgrams(token, n, &views);
  return V(views.begin(), views.end());
}

// "Año", "niño", "ñ" in UTF-8: ñ is two bytes, one code point.
const std::string kAno = "A\xC3\xB1o";
const std::string kNino = "ni\xC3\xB1o";
const std::string kEnye = "\xC3\xB1";

TEST(LetterNgrams, HandPickedWords) {
  EXPECT_EQ(Ngrams("Madrid", 2), (V{"Ma", "ad", "dr", "ri", "id"}));
  EXPECT_EQ(Ngrams("Madrid", 3), (V{"Mad", "adr", "dri", "rid"}));
  EXPECT_EQ(Ngrams("Madrid", 4), (V{"Madr", "adri", "drid"}));
  // A repeated n-gram is one value, at its first position (Boolean attributes).
  EXPECT_EQ(Ngrams("banana", 3), (V{"ban", "ana", "nan"}));
  EXPECT_EQ(Ngrams("banana", 2), (V{"ba", "an", "na"}));
  EXPECT_EQ(Ngrams("aaaa", 2), (V{"aa"}));
  // Code points, not bytes: "Año" has three letters, so one 3-gram and two 2-grams.
  EXPECT_EQ(Ngrams(kAno, 2), (V{"A\xC3\xB1", "\xC3\xB1o"}));
  EXPECT_EQ(Ngrams(kAno, 3), (V{kAno}));
  EXPECT_EQ(Ngrams(kAno, 4), V{});
  EXPECT_EQ(Ngrams(kNino, 3), (V{"ni\xC3\xB1", "i\xC3\xB1o"}));
  EXPECT_EQ(Ngrams(kNino, 4), (V{kNino}));
  // A word shorter than n has no n-grams; a 1-letter word (one code point of two bytes) has one 1-gram.
  EXPECT_EQ(Ngrams(kEnye, 1), (V{kEnye}));
  EXPECT_EQ(Ngrams(kEnye, 2), V{});
  EXPECT_EQ(Ngrams("y", 2), V{});
  EXPECT_EQ(Ngrams("de", 3), V{});
}

std::vector<V> Attributes(const FeatureDictionary& dict, const Sentence& sentence) {
  SentenceFeatures f = ValueOrThrow(dict.Extract(sentence));
  std::vector<V> out(f.size());
  for (int32_t t = 0; t < f.size(); ++t)
    for (int32_t i = f.offsets[t]; i < f.offsets[t + 1]; ++i) out[t].push_back(dict.attribute_name(f.ids[i]));
  return out;
}

Corpus WordCorpus(std::vector<std::vector<std::string>> sentences) {
  Corpus c;
  c.columns = {"word"};
  for (auto& words : sentences) c.sentences.push_back(Sentence{{std::move(words)}, {}});
  return c;
}

TEST(NgramTemplates, AttributesIdsAndPadding) {
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(
      {{"w", "word[0]", ""}, {"g3", "ngrams3(word[0])", ""}, {"prev", "ngrams2(word[-1])", ""}}, {"word"}));
  EXPECT_FALSE(dict.multi_valued(0));
  EXPECT_TRUE(dict.multi_valued(1));
  EXPECT_TRUE(dict.multi_valued(2));
  const Corpus c = WordCorpus({{"banana", kAno, "y"}});
  ThrowIfError(dict.Fit(c, 1));
  // Template order, then position order; the padding symbol is one value; "y" has no 3-gram.
  EXPECT_EQ(Attributes(dict, c.sentences[0]),
            (std::vector<V>{V{"w=banana", "g3=ban", "g3=ana", "g3=nan", "prev=_B-1"},
                            V{"w=" + kAno, "g3=" + kAno, "prev=ba", "prev=an", "prev=na"},
                            V{"w=y", "prev=A\xC3\xB1", "prev=\xC3\xB1o"}}));
  // Ids in order of first occurrence, so the CSR ids count up here.
  const SentenceFeatures f = ValueOrThrow(dict.Extract(c.sentences[0]));
  EXPECT_EQ(f.offsets, (std::vector<int32_t>{0, 5, 10, 13}));
  std::vector<int32_t> expected(13);
  for (int32_t i = 0; i < 13; ++i) expected[i] = i;
  EXPECT_EQ(f.ids, expected);
  EXPECT_EQ(dict.attribute_template(3), 1);  // g3=nan
  EXPECT_EQ(dict.attribute_template(4), 2);  // prev=_B-1

  // Unknown n-grams are dropped, known ones kept, in position order.
  EXPECT_EQ(Attributes(dict, WordCorpus({{"cabana"}}).sentences[0]),
            (std::vector<V>{V{"g3=ban", "g3=ana", "prev=_B-1"}}));
}

TEST(NgramTemplates, MinCountCountsTokensNotRepeats) {
  // "ana" occurs twice in "banana" but counts once there; it reaches 2 only with the token "ana".
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile({{"g3", "ngrams3(word[0])", ""}}, {"word"}));
  ThrowIfError(dict.Fit(WordCorpus({{"banana"}}), 2));
  EXPECT_EQ(dict.num_attributes(), 0);
  ThrowIfError(dict.Fit(WordCorpus({{"banana", "ana"}}), 2));
  ASSERT_EQ(dict.num_attributes(), 1);
  EXPECT_EQ(dict.attribute_name(0), "g3=ana");
}

TEST(NgramTemplates, SaveLoadRoundTripKeepsTheTemplatesMultiValued) {
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile({{"g2", "ngrams2(word[0])", ""}}, {"word"}));
  const Corpus c = WordCorpus({{"banana", kNino}, {"nana"}});
  ThrowIfError(dict.Fit(c, 1));
  ByteWriter w;
  dict.Save(w);
  ByteReader r(w.bytes());
  auto loaded = FeatureDictionary::Load(r);
  EXPECT_TRUE(loaded->multi_valued(0));
  for (const Sentence& s : c.sentences) EXPECT_EQ(Attributes(*loaded, s), Attributes(dict, s));
}

TEST(NgramTemplates, JoiningWithOtherAtomsIsAnErrorNamingTheTemplate) {
  auto message = [](std::string text) {
    Result<FeatureDictionary> d = FeatureDictionary::Compile({{text, text, ""}}, {"word", "pos"});
    EXPECT_FALSE(d.ok()) << text;
    return d.ok() ? std::string() : d.status().message();
  };
  EXPECT_THAT(message("ngrams3(word[0])|pos[0]"),
              HasSubstr("template 'ngrams3(word[0])|pos[0]': an ngramsN() atom has several values per token and "
                        "cannot be joined with other atoms by '|'; make it a template of its own"));
  EXPECT_THAT(message("pos[0]|ngrams2(word[1])"), HasSubstr("cannot be joined"));
  EXPECT_THAT(message("ngrams5(word[0])"), HasSubstr("unknown function 'ngrams5'"));
  EXPECT_THAT(message("ngrams(word[0])"), HasSubstr("unknown function 'ngrams'"));
}

TEST(NgramTemplates, TheTokenViewSetHasEveryNgramOfTheTokenAlone) {
  const std::vector<FeatureTemplate> set = ValueOrThrow(TemplateSetByName("multiview_ner_ngrams"));
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(set, {"word", "pos", "ne"}));
  Corpus c;
  c.columns = {"word", "pos", "ne"};
  c.sentences = {Sentence{{{"El", "Real", "Madrid"}, {"DA", "NC", "NP"}, {"O", "O", "O"}}, {}}};
  ThrowIfError(dict.Fit(c, 1));
  std::vector<V> token_view;
  for (const V& attributes : Attributes(dict, c.sentences[0])) {
    token_view.emplace_back();
    for (const std::string& a : attributes)
      if (a.rfind("shape(", 0) != 0) token_view.back().push_back(a);
  }
  EXPECT_EQ(token_view[2], (V{"word[0]=Madrid", "lower(word[0])=madrid", "ngrams2(word[0])=Ma", "ngrams2(word[0])=ad",
                              "ngrams2(word[0])=dr", "ngrams2(word[0])=ri", "ngrams2(word[0])=id",
                              "ngrams3(word[0])=Mad", "ngrams3(word[0])=adr", "ngrams3(word[0])=dri",
                              "ngrams3(word[0])=rid", "ngrams4(word[0])=Madr", "ngrams4(word[0])=adri",
                              "ngrams4(word[0])=drid"}));
  EXPECT_EQ(token_view[0], (V{"word[0]=El", "lower(word[0])=el", "ngrams2(word[0])=El"}));
  for (size_t k = 0; k < set.size(); ++k)
    EXPECT_EQ(set[k].group == "token", set[k].text.find("shape(") == std::string::npos) << set[k].text;
}

}  // namespace letter_ngrams_test
}  // namespace seqflow
