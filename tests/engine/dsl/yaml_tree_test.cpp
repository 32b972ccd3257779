// YamlNode (libyaml's events) against what yaml-cpp's YAML::Load gives for the same text: shapes,
// scalars, tags, marks, duplicate keys kept, aliases as the anchored node; on a pipeline with
// every feature the DSL reads and on every pipeline the project ships.
#include "engine/dsl/yaml_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "tests/testutil/status_matchers.h"

namespace seqflow::dsl {
namespace yaml_tree_test {

// Walks both trees together and reports the first difference with its path.
::testing::AssertionResult SameTree(const YamlNode& ours, const YAML::Node& theirs, const std::string& path = "/") {
  auto differ = [&](const std::string& what) { return ::testing::AssertionFailure() << path << ": " << what; };
  if (ours.IsNull() != theirs.IsNull() || ours.IsScalar() != theirs.IsScalar() ||
      ours.IsSequence() != theirs.IsSequence() || ours.IsMap() != theirs.IsMap())
    return differ("shape");
  if (ours.line() != theirs.Mark().line || ours.column() != theirs.Mark().column) return differ("mark");
  if (ours.Tag() != theirs.Tag()) return differ("tag '" + ours.Tag() + "' vs '" + theirs.Tag() + "'");
  if (ours.IsScalar() && ours.Scalar() != theirs.Scalar()) return differ("scalar " + ours.Scalar());
  if (ours.size() != theirs.size()) return differ("size");
  if (ours.IsSequence()) {
    size_t i = 0;
    for (YamlNode item : ours) {
      auto same = SameTree(item, theirs[i], path + std::to_string(i) + "/");
      if (!same) return same;
      ++i;
    }
  }
  if (ours.IsMap()) {
    size_t i = 0;
    for (auto it = theirs.begin(); it != theirs.end(); ++it, ++i) {
      auto key = SameTree(ours.Key(i), it->first, path + "key" + std::to_string(i) + "/");
      if (!key) return key;
      auto value = SameTree(ours.Value(i), it->second, path + ours.Key(i).Scalar() + "/");
      if (!value) return value;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(YamlTreeTest, MatchesYamlCppOnAPipeline) {
  const std::string text =
      "name: p\n"
      "vars: {data: ~, empty: }\n"
      "base: &src {kind: read.conll, path: \"a b\", separator: 'tab'}\n"
      "nodes:\n"
      "  train:\n"
      "    <<: *src\n"
      "    \"<<\": quoted\n"
      "    in: [x, y, [z]]\n"
      "    dup: 1\n"
      "    dup: 2\n"
      "  other: *src\n"
      "  tagged: !custom 3\n"
      "  block: |\n"
      "    two\n"
      "    lines\n";
  EXPECT_TRUE(SameTree(YamlNode::Load(text), YAML::Load(text)));
}

TEST(YamlTreeTest, MatchesYamlCppOnEveryShippedPipeline) {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testutil::SourceDir() + "/pipelines")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(SameTree(YamlNode::Load(text.str()), YAML::Load(text.str()))) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 40);
}

TEST(YamlTreeTest, EmptyDocumentIsNullWithoutMark) {
  for (const std::string text : {"", "# only a comment\n"}) {
    YamlNode root = YamlNode::Load(text);
    EXPECT_TRUE(root.IsNull());
    EXPECT_EQ(root.line(), -1);
    EXPECT_EQ(root.size(), 0u);
    EXPECT_EQ(root.begin(), root.end());
  }
}

TEST(YamlTreeTest, AliasIsTheAnchoredNode) {
  YamlNode root = YamlNode::Load("a: &x [1, 2]\nb: *x\n");
  YamlNode b = root.Value(1);
  ASSERT_TRUE(b.IsSequence());
  EXPECT_EQ(b.line(), 0) << "an alias carries its anchor's mark, as in yaml-cpp";
  EXPECT_EQ((*b.begin()).Scalar(), "1");
}

TEST(YamlTreeTest, SyntaxErrorsAndUnknownAliasesThrowWhereYamlLoadThrows) {
  for (const std::string text : {"a: [1, 2\n", "a: *missing\n", "a: b: c\n", "a: [1}\n"}) {
    EXPECT_THROW(YAML::Load(text), YAML::ParserException) << text;
    EXPECT_THROW(YamlNode::Load(text), YamlError) << text;
  }
  try {
    YamlNode::Load("a: 1\nb: *missing\n");
    ADD_FAILURE() << "no error";
  } catch (const YamlError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("alias *missing names no anchor"));
    EXPECT_EQ(e.line, 1);
    EXPECT_EQ(e.column, 3);
  }
}

// libyaml reports bytes that are not YAML characters by offset only: the place is counted from it.
TEST(YamlTreeTest, BytesThatAreNotYamlCharactersAreErrorsAtTheirPlace) {
  const auto error_of = [](const std::string& text) -> std::optional<YamlError> {
    try {
      YamlNode::Load(text);
    } catch (const YamlError& e) {
      return e;
    }
    return std::nullopt;
  };
  std::optional<YamlError> nul = error_of(std::string("a: 1\n# \u00e9t\u00e9 x") + '\0' + "\nb: 2\n");
  ASSERT_TRUE(nul.has_value());
  EXPECT_STREQ(nul->what(), "control characters are not allowed (U+0000)");
  EXPECT_EQ(nul->line, 1);
  EXPECT_EQ(nul->column, 7) << "columns count characters, not bytes";
  std::optional<YamlError> latin1 = error_of("a: 1\nb: caf\xe9\n");
  ASSERT_TRUE(latin1.has_value());
  EXPECT_THAT(latin1->what(), testing::HasSubstr("a pipeline file is UTF-8 text"));
  EXPECT_EQ(latin1->line, 1);
  EXPECT_EQ(latin1->column, 6);
}

TEST(YamlTreeTest, NestingDeeperThanTheLimitIsAnErrorWhereItGoesTooDeep) {
  const auto nested = [](int depth) { return "a: " + std::string(depth, '[') + std::string(depth, ']') + "\n"; };
  EXPECT_NO_THROW(YamlNode::Load(nested(kMaxYamlDepth - 1)));  // the outer map is one level
  try {
    YamlNode::Load(nested(kMaxYamlDepth));
    ADD_FAILURE() << "no error";
  } catch (const YamlError& e) {
    EXPECT_TRUE(e.too_deep);
    EXPECT_EQ(e.line, 0);
    EXPECT_EQ(e.column, 3 + kMaxYamlDepth - 1);
  }
}

// Found by tests/fuzz/pipeline_fuzz: a merge key naming the map it sits in sent the DSL's walk
// into endless recursion (out of memory).
TEST(YamlTreeTest, AliasInsideTheNodeItNamesIsAnErrorAtTheAlias) {
  for (const std::string text : {"a: &x {b: *x}\n", "a: &x\n  b: 1\n  c: {<<: *x}\n", "- &x [1, [*x]]\n"}) {
    try {
      YamlNode::Load(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const YamlError& e) {
      EXPECT_THAT(e.what(), testing::HasSubstr("alias inside the node it refers to")) << text;
    }
  }
  EXPECT_NO_THROW(YamlNode::Load("a: &x {b: 1}\nc: {<<: *x, d: *x}\n"));
}

// Aliases of aliases grow the expanded document tenfold per level here: five levels (1.2 10^5
// nodes) load; the sixth passes 10^6 and is an error at its line, before anything walks it.
TEST(YamlTreeTest, AliasesExpandingPastTheLimitAreAnError) {
  auto laughs = [](int levels) {
    std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < levels; ++i) {
      std::string prev = "*l" + std::to_string(i - 1);
      text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
      for (int k = 1; k < 10; ++k) text += ", " + prev;
      text += "]\n";
    }
    return text;
  };
  EXPECT_NO_THROW(YamlNode::Load(laughs(5)));
  try {
    YamlNode::Load(laughs(7));
    ADD_FAILURE() << "no error";
  } catch (const YamlError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("aliases expand the document by more than 1000000 nodes"));
    EXPECT_EQ(e.line, 5);
  }
}

}  // namespace yaml_tree_test
}  // namespace seqflow::dsl
