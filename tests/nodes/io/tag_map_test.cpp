// Tag maps, read.conll's map and the word|tag reader; the shipped maps against the real data.
#include "nodes/io/tag_map.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/base/env.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/tagged_reader.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace tag_map_test {

std::shared_ptr<const TagMap> MapOf(std::string_view text) {
  Result<TagMap> map = ParseTagMap(text, "m.map");
  EXPECT_TRUE(map.ok()) << map.status().ToString();
  return std::make_shared<const TagMap>(map.ok() ? *map : TagMap{});
}

std::vector<std::string> LabelsOf(const Corpus& c, size_t s) {
  std::vector<std::string> out;
  for (int32_t id : c.sentences[s].labels) out.push_back(c.label_names[id]);
  return out;
}

TEST(TagMap, ParsesPairsSkippingCommentsAndBlankLines) {
  auto map = MapOf("# comment\nN\tNOUN\n\n^ NOUN\r\n,\t.\n#\tX\n");
  EXPECT_EQ(map->to.size(), 4u);
  EXPECT_EQ(map->to.at("#"), "X");
  EXPECT_EQ(map->to.at("^"), "NOUN");
  EXPECT_EQ(map->to.at(","), ".");
}

TEST(TagMap, ErrorsNameFileAndLine) {
  EXPECT_EQ(ParseTagMap("N NOUN\nV\n", "m.map").status().ToString(),
            "m.map:2: expected 2 columns (FROM TO) in the tag map, found 1");
  EXPECT_EQ(ParseTagMap("N NOUN\nN PRON\n", "m.map").status().ToString(),
            "m.map:2: tag 'N' is mapped twice in the tag map");
  EXPECT_FALSE(ParseTagMap("# nothing\n", "m.map").ok());
}

TEST(ConllWithMap, MapsLabelsAndNumbersThemByMappedName) {
  ConllOptions options;
  options.encoding = TagEncoding::kRuns;
  options.tag_map = MapOf("N NOUN\n^ NOUN\nV VERB\n");
  Result<Corpus> c = ParseConll("Bob\t^\nruns\tV\n\ndogs\tN\n", "t.conll", options);
  ASSERT_OK(c);
  EXPECT_EQ(c->label_names, (std::vector<std::string>{"NOUN", "VERB"}));
  EXPECT_EQ(LabelsOf(*c, 0), (std::vector<std::string>{"NOUN", "VERB"}));
  EXPECT_EQ(LabelsOf(*c, 1), (std::vector<std::string>{"NOUN"}));
}

TEST(ConllWithMap, UnmappedLabelNamesTagFileAndLine) {
  ConllOptions options;
  options.encoding = TagEncoding::kRuns;
  options.tag_map = MapOf("N NOUN\n");
  Result<Corpus> c = ParseConll("dogs\tN\n\nlol\t!\n", "t.conll", options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().ToString(), "t.conll:3: tag '!' is not in the tag map 'm.map'");
}

TEST(TaggedReader, SplitsOnTheLastDelimiter) {
  Result<Corpus> c = ParseTaggedLines("ny|DT a|b|N\n\nmandeha|V\n", "t.txt", {});
  ASSERT_OK(c);
  ASSERT_EQ(c->sentences.size(), 2u);
  EXPECT_EQ(c->sentences[0].words(), (std::vector<std::string>{"ny", "a|b"}));
  EXPECT_EQ(LabelsOf(*c, 0), (std::vector<std::string>{"DT", "N"}));
  EXPECT_EQ(c->label_names, (std::vector<std::string>{"DT", "N", "V"}));
  EXPECT_EQ(c->columns, (std::vector<std::string>{"word"}));
}

TEST(TaggedReader, ErrorsNameFileLineAndToken) {
  EXPECT_EQ(ParseTaggedLines("ny|DT\nny DT\n", "t.txt", {}).status().ToString(),
            "t.txt:2: token 1 'ny' has no '|' (expected WORD|TAG)");
  EXPECT_EQ(ParseTaggedLines("ny|\n", "t.txt", {}).status().ToString(),
            "t.txt:1: token 1 'ny|' has an empty word or tag");
  TaggedTextOptions options;
  options.tag_map = MapOf("DT DET\n");
  EXPECT_EQ(ParseTaggedLines("ny|DT zaza|N\n", "t.txt", options).status().ToString(),
            "t.txt:1: tag 'N' is not in the tag map 'm.map'");
  EXPECT_FALSE(ParseTaggedLines("\n\n", "t.txt", {}).ok());
}

// The shipped maps cover every tag of the real files and land on the 12 universal tags.
std::shared_ptr<const TagMap> ShippedMap(const std::string& name) {
  std::string path = JoinPath(testutil::SourceDir(), "pipelines/maps/" + name);
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<TagMap> map = ParseTagMap(bytes.ok() ? *bytes : "", path);
  EXPECT_TRUE(map.ok()) << map.status().ToString();
  return std::make_shared<const TagMap>(map.ok() ? *map : TagMap{});
}

const std::set<std::string> kUniversal = {"VERB", "NOUN", "PRON", "ADJ", "ADV", "ADP",
                                          "CONJ", "DET",  "NUM",  "PRT", "X",   "."};

void ExpectUniversal(const Corpus& c) {
  for (const auto& name : c.label_names) EXPECT_TRUE(kUniversal.count(name)) << name;
}

TEST(ShippedMaps, TwitterFilesMapToUniversalTags) {
  ConllOptions options;
  options.encoding = TagEncoding::kRuns;
  options.separator = Separator::kTab;
  options.tag_map = ShippedMap("twitter-gimpel-universal.map");
  EXPECT_EQ(options.tag_map->to.size(), 25u);
  for (const char* file : {"oct27.conll", "daily547.conll"}) {
    std::string path = JoinPath(testutil::DataDir(), std::string("twitter_pos/") + file);
    Result<std::string> bytes = Env::Default()->ReadFile(path);
    ASSERT_OK(bytes);
    Result<Corpus> c = ParseConll(*bytes, path, options);
    ASSERT_OK(c);
    ExpectUniversal(*c);
    EXPECT_EQ(c->label_names.size(), 12u) << file;
  }
}

TEST(ShippedMaps, MalagasyFilesMapToUniversalTags) {
  TaggedTextOptions options;
  options.tag_map = ShippedMap("malagasy-garrette-universal.map");
  for (const char* file : {"test.txt", "train/mlg-sentences-4hr-lc8.txt"}) {
    std::string path = JoinPath(testutil::DataDir(), std::string("malagasy_pos/") + file);
    Result<std::string> bytes = Env::Default()->ReadFile(path);
    ASSERT_OK(bytes);
    Result<Corpus> c = ParseTaggedLines(*bytes, path, options);
    ASSERT_OK(c);
    ExpectUniversal(*c);
  }
  std::string test = JoinPath(testutil::DataDir(), "malagasy_pos/test.txt");
  Result<Corpus> raw = ParseTaggedLines(*Env::Default()->ReadFile(test), test, {});
  ASSERT_OK(raw);
  EXPECT_EQ(raw->sentences.size(), 207u);
  EXPECT_EQ(raw->num_tokens(), 5304u);
}

}  // namespace tag_map_test
}  // namespace seqflow
