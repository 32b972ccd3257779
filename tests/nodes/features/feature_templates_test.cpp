#include "nodes/features/feature_templates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nodes/features/features_nodes.h"
#include "tests/testutil/fake_node_context.h"

namespace seqflow {
namespace feature_templates_test {

using ::testing::HasSubstr;

Sentence MakeSentence(std::vector<std::string> words, std::vector<std::string> pos, std::vector<int32_t> labels = {}) {
  return Sentence{{std::move(words), std::move(pos)}, std::move(labels)};
}

Corpus MakeCorpus(std::vector<Sentence> sentences) {
  Corpus c;
  c.columns = {"word", "pos"};
  c.sentences = std::move(sentences);
  return c;
}

// Fits on `corpus` and returns the attribute strings of every token of sentence 0.
std::vector<std::vector<std::string>> Attributes(const FeatureDictionary& dict, const Sentence& sentence) {
  SentenceFeatures f = ValueOrThrow(dict.Extract(sentence));
  std::vector<std::vector<std::string>> out(f.size());
  for (int32_t t = 0; t < f.size(); ++t)
    for (int32_t i = f.offsets[t]; i < f.offsets[t + 1]; ++i) out[t].push_back(dict.attribute_name(f.ids[i]));
  return out;
}

std::string InvalidMessage(std::vector<FeatureTemplate> templates) {
  try {
    FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(std::move(templates), {"word", "pos", "chunk"}));
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    return e.status().message();
  }
  ADD_FAILURE() << "templates compiled";
  return "";
}

std::string Bytes(const FeatureDictionary& d) {
  ByteWriter w;
  d.Save(w);
  return w.Take();
}

const Sentence kTiny = MakeSentence({"The", "Cat-9", "runs"}, {"DT", "NN", "VBZ"});

TEST(FeatureTemplates, HandComputedAttributesWithPaddingFunctionsAndConjunctions) {
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile({{"w", "word[-1]", "word"},
                          {"bi", "word[0]|pos[+1]", "bi"},
                          {"far", "pos[-2] | pos[2]", "far"},
                          {"fn", "lower(word[0])|shape(word[0])|prefix2(word[0])|suffix3(word[0])", "fn"},
                          {"next", "lower(word[1])", "next"}},
                         {"word", "pos"}));
  ThrowIfError(dict.Fit(MakeCorpus({kTiny}), 1));
  using V = std::vector<std::string>;
  EXPECT_EQ(Attributes(dict, kTiny),
            (std::vector<V>{
                V{"w=_B-1", "bi=The|NN", "far=_B-2|VBZ", "fn=the|Xx|Th|The", "next=cat-9"},
                V{"w=The", "bi=Cat-9|VBZ", "far=_B-1|_B+1", "fn=cat-9|alnum|Ca|t-9", "next=runs"},
                V{"w=Cat-9", "bi=runs|_B+1", "far=DT|_B+2", "fn=runs|x|ru|uns", "next=_B+1"},
            }));
}

TEST(FeatureTemplates, AffixesCountCodePointsAndShortWordsAreWhole) {
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile({{"p", "prefix1(word[0])|prefix4(word[0])", ""}, {"s", "suffix3(word[0])", ""}}, {"word"}));
  Corpus c;
  c.columns = {"word"};
  c.sentences = {Sentence{{{"\xC3\x89t\xC3\xA9", "na\xC3\xAFve", "a"}}, {}}};  // Été naïve a
  ThrowIfError(dict.Fit(c, 1));
  using V = std::vector<std::string>;
  EXPECT_EQ(Attributes(dict, c.sentences[0]),
            (std::vector<V>{V{"p=\xC3\x89|\xC3\x89t\xC3\xA9", "s=\xC3\x89t\xC3\xA9"},
                            V{"p=n|na\xC3\xAFv", "s=\xC3\xAFve"}, V{"p=a|a", "s=a"}}));
}

TEST(FeatureTemplates, WordTypes) {
  EXPECT_EQ(WordType("NATO"), "CAPS");
  EXPECT_EQ(WordType("Haffari"), "Xx");
  EXPECT_EQ(WordType("1994"), "4digits");
  EXPECT_EQ(WordType("3.5"), "number");
  EXPECT_EQ(WordType("well-known"), "x-hyphen");
  EXPECT_EQ(WordType(","), "punct");
  EXPECT_EQ(WordType("iPhone"), "mixed");
  EXPECT_EQ(WordType("tagging"), "x");  // the suffix subclasses of the unknown-word shapes merge
  EXPECT_EQ(WordType("cat"), "x");
}

TEST(FeatureTemplates, IdsInFirstOccurrenceOrderAndMinCountCutoff) {
  Corpus c = MakeCorpus({MakeSentence({"b", "a"}, {"X", "X"}), MakeSentence({"a", "c", "a"}, {"X", "X", "X"})});
  FeatureDictionary all = ValueOrThrow(FeatureDictionary::Compile({{"w", "word[0]", ""}}, c.columns));
  ThrowIfError(all.Fit(c, 1));
  ASSERT_EQ(all.num_attributes(), 3);
  EXPECT_EQ(all.attribute_name(0), "w=b");
  EXPECT_EQ(all.attribute_name(1), "w=a");
  EXPECT_EQ(all.attribute_name(2), "w=c");
  EXPECT_EQ(all.attribute_template(2), 0);

  FeatureDictionary frequent = ValueOrThrow(FeatureDictionary::Compile({{"w", "word[0]", ""}, {"p", "pos[0]", ""}}, c.columns));
  ThrowIfError(frequent.Fit(c, 2));
  ASSERT_EQ(frequent.num_attributes(), 2);  // w=a (3 times) and p=X (5 times)
  EXPECT_EQ(frequent.attribute_name(0), "p=X");
  EXPECT_EQ(frequent.attribute_name(1), "w=a");
  EXPECT_EQ(frequent.attribute_template(0), 1);
  EXPECT_THROW(ThrowIfError(frequent.Fit(c, 0)), StatusError);
}

TEST(FeatureTemplates, UnknownAttributesAreDroppedAtExtract) {
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile({{"w", "word[0]", ""}, {"p", "pos[0]", ""}}, {"word", "pos"}));
  ThrowIfError(dict.Fit(MakeCorpus({MakeSentence({"a", "b"}, {"X", "Y"})}), 1));
  SentenceFeatures f = ValueOrThrow(dict.Extract(MakeSentence({"b", "new", "a"}, {"Y", "X", "Z"})));
  EXPECT_EQ(f.offsets, (std::vector<int32_t>{0, 2, 3, 4}));
  EXPECT_EQ(f.ids, (std::vector<int32_t>{2, 3, 1, 0}));  // w=b p=Y | p=X | w=a
}

Corpus SyntheticCorpus(int sentences) {
  std::vector<Sentence> out;
  for (int i = 0; i < sentences; ++i) {
    std::vector<std::string> words, pos;
    for (int t = 0; t < 3 + i % 7; ++t) {
      // std::string("w").append(...) rather than "w" + ...: GCC 12 warns falsely (-Wrestrict) on the latter.
      words.push_back(std::string("w").append(std::to_string((i * 31 + t * 7) % 97)));
      pos.push_back(std::string("P").append(std::to_string((i + t) % 5)));
    }
    out.push_back(MakeSentence(words, pos));
  }
  return MakeCorpus(std::move(out));
}

TEST(FeatureTemplates, ExtractCorpusIsTheSameForAnyThreadCount) {
  Corpus c = SyntheticCorpus(700);
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("standard_chunking")), c.columns));
  ThrowIfError(dict.Fit(c, 2));
  std::vector<SentenceFeatures> one = ValueOrThrow(dict.ExtractCorpus(c, 1)), four = ValueOrThrow(dict.ExtractCorpus(c, 4));
  ASSERT_EQ(one.size(), c.sentences.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].offsets, four[i].offsets);
    EXPECT_EQ(one[i].ids, four[i].ids);
    EXPECT_EQ(one[i].ids, ValueOrThrow(dict.Extract(c.sentences[i])).ids);
  }
}

TEST(FeatureTemplates, ExtractCorpusMatchesColumnsByName) {
  Corpus c = SyntheticCorpus(5);
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile({{"p", "pos[0]", ""}}, c.columns));
  ThrowIfError(dict.Fit(c, 1));
  Corpus swapped = c;
  swapped.columns = {"word", "tag", "pos"};
  for (Sentence& s : swapped.sentences) s.cols.insert(s.cols.begin() + 1, s.cols[1]);
  EXPECT_EQ(ValueOrThrow(dict.ExtractCorpus(swapped, 1))[3].ids, ValueOrThrow(dict.Extract(c.sentences[3])).ids);
  Corpus words_only = c;
  words_only.columns = {"word"};
  try {
    ValueOrThrow(dict.ExtractCorpus(words_only, 1));
    ADD_FAILURE() << "no error for a missing column";
  } catch (const StatusError& e) {
    EXPECT_THAT(e.status().message(), HasSubstr("lacks the column 'pos'"));
  }
}

TEST(FeatureTemplates, SaveLoadRoundTripIsExact) {
  Corpus c = SyntheticCorpus(50);
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("standard_chunking")), c.columns));
  ThrowIfError(dict.Fit(c, 1));
  const std::string bytes = Bytes(dict);
  ByteReader r(bytes);
  auto loaded = FeatureDictionary::Load(r);
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(Bytes(*loaded), bytes);
  EXPECT_EQ(loaded->num_attributes(), dict.num_attributes());
  for (const Sentence& s : c.sentences) EXPECT_EQ(ValueOrThrow(loaded->Extract(s)).ids, ValueOrThrow(dict.Extract(s)).ids);
  ByteReader truncated(std::string_view(bytes).substr(0, bytes.size() - 3));
  EXPECT_THROW(FeatureDictionary::Load(truncated), StatusError);
}

TEST(FeatureTemplates, NamedSetsCompile) {
  const std::vector<std::string> columns = {"word", "pos", "chunk"};
  for (const char* name : {"standard_chunking", "hysol_chunking", "hysol_ner"})
    EXPECT_NO_THROW(ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName(name)), columns))) << name;
  FeatureDictionary standard = ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("standard_chunking")), columns));
  EXPECT_EQ(standard.templates().size(), 19u);
  EXPECT_EQ(standard.groups(), (std::vector<std::string>{"word", "word-bigram", "pos", "pos-bigram", "pos-trigram"}));
  EXPECT_EQ(standard.template_groups(),
            (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4}));
  EXPECT_EQ(ValueOrThrow(TemplateSetByName("hysol_chunking")).size(), 18u);
  FeatureDictionary ner = ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("hysol_ner")), columns));
  EXPECT_EQ(ner.templates().size(), 36u);
  EXPECT_EQ(ner.groups().size(), 36u);  // one HMM per feature type
}

TEST(FeatureTemplates, UnknownSetNamesTheKnownOnes) {
  try {
    ValueOrThrow(TemplateSetByName("standard_chunkin"));
    ADD_FAILURE() << "no error";
  } catch (const StatusError& e) {
    EXPECT_THAT(e.status().message(), HasSubstr("did you mean 'standard_chunking'"));
  }
}

TEST(FeatureTemplates, ClearErrors) {
  EXPECT_THAT(InvalidMessage({{"t", "wrd[0]", ""}}),
              HasSubstr("template 't' (wrd[0]): unknown column 'wrd' (did you mean 'word'?)"));
  EXPECT_THAT(InvalidMessage({{"upper(word[0])", "upper(word[0])", ""}}),
              HasSubstr("template 'upper(word[0])': unknown function 'upper'"));
  EXPECT_THAT(InvalidMessage({{"word[x]", "word[x]", ""}}), HasSubstr("offset 'x' is not an integer"));
  EXPECT_THAT(InvalidMessage({{"a", "prefix5(word[0])", ""}}), HasSubstr("unknown function 'prefix5'"));
  EXPECT_THAT(InvalidMessage({{"a", "word", ""}}), HasSubstr("'word' is not column[offset]"));
  EXPECT_THAT(InvalidMessage({{"a", "word[0]|", ""}}), HasSubstr("empty atom"));
  EXPECT_THAT(InvalidMessage({{"a", "lower(word[0]", ""}}), HasSubstr("lacks its closing ')'"));
  EXPECT_THAT(InvalidMessage({{"a", "word[5000]", ""}}), HasSubstr("out of range"));
  EXPECT_THAT(InvalidMessage({{"a", "word[0]", ""}, {"a", "pos[0]", ""}}), HasSubstr("duplicate template name"));
}

std::shared_ptr<const FeatureSet> RunNode(std::map<std::string, ParamValue> params, int threads = 1) {
  Registry registry;
  RegisterFeaturesNodes(registry);
  const KindSpec* kind = registry.FindKind("features.templates");
  testutil::FakeNodeContext ctx(*kind, std::move(params), threads);
  auto corpus = std::make_shared<Corpus>(MakeCorpus({MakeSentence({"a", "b"}, {"X", "Y"}, {1, 0})}));
  corpus->label_names = {"B-NP", "O"};
  corpus->encoding = TagEncoding::kIob2;
  ctx.SetInput("data", corpus);
  auto out = std::dynamic_pointer_cast<const FeatureSet>(kind->run(ctx));
  EXPECT_EQ(ctx.metrics().at("tokens"), 2);
  EXPECT_EQ(ctx.metrics().at("attributes"), out->dictionary->num_attributes());
  return out;
}

TEST(FeatureTemplatesNode, FitsExtractsAndCarriesLabels) {
  auto set = RunNode({{"templates", std::vector<std::string>{"word[0]|pos[1]"}}}, 2);
  EXPECT_EQ(set->dictionary->templates().size(), 20u);
  EXPECT_EQ(set->labels, (std::vector<std::vector<int32_t>>{{1, 0}}));
  EXPECT_EQ(set->label_names, (std::vector<std::string>{"B-NP", "O"}));
  EXPECT_EQ(set->encoding, TagEncoding::kIob2);
  EXPECT_EQ(set->sentences[0].offsets, (std::vector<int32_t>{0, 20, 40}));
  EXPECT_EQ(set->Describe(), "1 sentences, 2 tokens, 40 attributes from 20 templates");

  ByteWriter w;
  set->Save(w);
  const std::string bytes = w.Take();
  ByteReader r(bytes);
  auto loaded = FeatureSet::Load(r);
  ByteWriter again;
  loaded->Save(again);
  EXPECT_EQ(again.bytes(), bytes);
  EXPECT_EQ(loaded->labels, set->labels);
}

TEST(FeatureTemplatesNode, DamagedFeatureSetDoesNotLoad) {
  auto set = RunNode({});
  auto bad = std::make_shared<FeatureSet>(*set);
  bad->sentences[0].ids[0] = bad->dictionary->num_attributes();
  ByteWriter w;
  bad->Save(w);
  ByteReader r(w.bytes());
  EXPECT_THROW(FeatureSet::Load(r), StatusError);
}

TEST(FeatureTemplatesNode, ExtraTemplatesOnlyAndNoTemplatesAtAll) {
  auto set = RunNode({{"set", std::string("none")}, {"templates", std::vector<std::string>{"word[0]"}}});
  ASSERT_EQ(set->dictionary->templates().size(), 1u);
  EXPECT_EQ(set->dictionary->attribute_name(0), "word[0]=a");
  EXPECT_EQ(set->dictionary->groups(), (std::vector<std::string>{"word[0]"}));
  try {
    RunNode({{"set", std::string("none")}});
    ADD_FAILURE() << "no error";
  } catch (const StatusError& e) {
    EXPECT_THAT(e.status().message(), HasSubstr("no feature templates"));
  }
}

TEST(FeatureTemplatesNode, SetParameterIsCheckedUpFront) {
  Registry registry;
  RegisterFeaturesNodes(registry);
  const ParamSpec* set = registry.FindKind("features.templates")->FindParam("set");
  EXPECT_EQ(set->check(std::string("hysol_ner")), "");
  EXPECT_EQ(set->check(std::string("none")), "");
  EXPECT_THAT(set->check(std::string("ner")), HasSubstr("unknown template set 'ner'"));
}

}  // namespace feature_templates_test
}  // namespace seqflow
