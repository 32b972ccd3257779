#include "nodes/features/view_assignment.h"

#include <gtest/gtest.h>

#include "nodes/features/feature_views.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace view_assignment_test {

Corpus Words(const std::vector<std::vector<std::string>>& sentences) {
  Corpus c;
  c.columns = {"word"};
  for (const auto& words : sentences) c.sentences.push_back(Sentence{{words}, {}});
  return c;
}

FeatureDictionary Fitted(const std::vector<std::string>& texts) {
  std::vector<FeatureTemplate> templates;
  for (const std::string& t : texts) templates.push_back({t, t, t});
  Result<FeatureDictionary> d = FeatureDictionary::Compile(templates, {"word"});
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  FeatureDictionary dict = std::move(d).value();
  EXPECT_OK(dict.Fit(Words({{"El", "Real", "Madrid", "ganó", "3-1", "."}, {"La", "UE", "dijo", "que", "sí"}}), 1));
  return dict;
}

TEST(IsSurfaceTemplate, OnlyWhenEveryAtomIsAShapeClass) {
  EXPECT_TRUE(IsSurfaceTemplate("shape(word[0])"));
  EXPECT_TRUE(IsSurfaceTemplate("shape(word[-1]) | shape(word[0])"));
  EXPECT_FALSE(IsSurfaceTemplate("shape(word[-1])|word[0]"));
  EXPECT_FALSE(IsSurfaceTemplate("word[0]"));
  EXPECT_FALSE(IsSurfaceTemplate("prefix3(word[0])"));
}

TEST(IsSurfaceTemplate, AgreesWithTheGroupsOfTheMultiviewNerSets) {
  for (auto [name, size] : {std::pair{"multiview_ner", 15u}, std::pair{"multiview_ner_ngrams", 10u}}) {
    Result<std::vector<FeatureTemplate>> set = TemplateSetByName(name);
    ASSERT_OK(set);
    int surface = 0;
    for (const FeatureTemplate& t : set.value()) {
      EXPECT_EQ(IsSurfaceTemplate(t.text), t.group == "surface") << t.text;
      surface += t.group == "surface" ? 1 : 0;
    }
    EXPECT_EQ(surface, 5) << name;
    EXPECT_EQ(set.value().size(), size) << name;
    EXPECT_OK(FeatureDictionary::Compile(set.value(), {"word", "pos", "ne"}));
  }
}

TEST(AssignViews, TokenSurfaceFollowsTheTemplates) {
  const FeatureDictionary dict =
      Fitted({"word[0]", "shape(word[0])", "suffix2(word[0])", "ngrams3(word[0])", "shape(word[-1])|shape(word[0])"});
  Result<std::vector<int32_t>> views = AssignViews(dict, ViewSplit::kTokenSurface, 1);
  ASSERT_OK(views);
  for (int32_t a = 0; a < dict.num_attributes(); ++a) {
    const std::string& text = dict.templates()[dict.attribute_template(a)].text;
    EXPECT_EQ(views.value()[a], text.rfind("shape", 0) == 0 ? 1 : 0) << dict.attribute_name(a);
  }
}

TEST(AssignViews, OddEvenAlternatesAndRandomIsSeededAndMixed) {
  const FeatureDictionary dict = Fitted(
      {"word[0]", "lower(word[0])", "prefix2(word[0])", "suffix2(word[0])", "shape(word[0])", "word[-1]|word[0]"});
  Result<std::vector<int32_t>> odd_even = AssignViews(dict, ViewSplit::kOddEven, 1);
  ASSERT_OK(odd_even);
  for (int32_t a = 0; a < dict.num_attributes(); ++a) EXPECT_EQ(odd_even.value()[a], a % 2);

  Result<std::vector<int32_t>> r1 = AssignViews(dict, ViewSplit::kRandom, 1);
  Result<std::vector<int32_t>> r1_again = AssignViews(dict, ViewSplit::kRandom, 1);
  Result<std::vector<int32_t>> r2 = AssignViews(dict, ViewSplit::kRandom, 2);
  ASSERT_OK(r1);
  ASSERT_OK(r2);
  EXPECT_EQ(r1.value(), r1_again.value());
  EXPECT_NE(r1.value(), r2.value());
  int ones = 0;
  for (int32_t v : r1.value()) ones += v;
  const int A = dict.num_attributes();
  EXPECT_GT(ones, A / 4);  // a fair coin over ~60 attributes
  EXPECT_LT(ones, 3 * A / 4);
}

TEST(AssignViews, TemplatesPutTheNamedTemplatesInViewTwo) {
  const FeatureDictionary dict = Fitted({"word[0]", "lower(word[0])", "suffix2(word[0])"});
  Result<std::vector<int32_t>> views = AssignViews(dict, ViewSplit::kTemplates, 1, {"lower(word[0])", "suffix2(word[0])"});
  ASSERT_OK(views);
  for (int32_t a = 0; a < dict.num_attributes(); ++a) {
    const std::string& text = dict.templates()[dict.attribute_template(a)].text;
    EXPECT_EQ(views.value()[a], text == "word[0]" ? 0 : 1) << dict.attribute_name(a);
  }
  Result<std::vector<int32_t>> unknown = AssignViews(dict, ViewSplit::kTemplates, 1, {"surf[0]"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().ToString().find("'surf[0]', which is not one of the templates"), std::string::npos)
      << unknown.status().ToString();
  Result<std::vector<int32_t>> all = AssignViews(dict, ViewSplit::kTemplates, 1,
                                                 {"word[0]", "lower(word[0])", "suffix2(word[0])"});
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().ToString().find("not all"), std::string::npos) << all.status().ToString();
}

TEST(AssignViews, AnEmptyViewIsAnError) {
  const FeatureDictionary dict = Fitted({"word[0]", "lower(word[0])"});
  Result<std::vector<int32_t>> views = AssignViews(dict, ViewSplit::kTokenSurface, 1);
  ASSERT_FALSE(views.ok());
  EXPECT_NE(views.status().ToString().find("shape()"), std::string::npos);
}

TEST(FeatureViews, RoundTripsAndRejectsAMismatch) {
  FeatureViews views;
  views.dictionary = std::make_shared<FeatureDictionary>(Fitted({"word[0]", "shape(word[0])"}));
  views.view = AssignViews(*views.dictionary, ViewSplit::kTokenSurface, 1).value();
  views.split = "token_surface";
  ByteWriter w;
  views.Save(w);
  ByteReader r(w.bytes());
  auto loaded = FeatureViews::Load(r);
  EXPECT_EQ(loaded->view, views.view);
  EXPECT_EQ(loaded->split, views.split);
  EXPECT_EQ(loaded->dictionary->num_attributes(), views.dictionary->num_attributes());

  views.view.pop_back();
  ByteWriter bad;
  views.Save(bad);
  ByteReader bad_reader(bad.bytes());
  EXPECT_THROW(FeatureViews::Load(bad_reader), StatusError);
}

}  // namespace view_assignment_test
}  // namespace seqflow
