#include "nodes/io/io_nodes.h"

#include <gtest/gtest.h>

#include "nodes/io/corpus.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace io_nodes_test {

using testutil::FakeNodeContext;

class IoNodes : public ::testing::Test {
 protected:
  void SetUp() override { RegisterIoNodes(registry_); }
  const KindSpec& Kind(const std::string& name) {
    const KindSpec* k = registry_.FindKind(name);
    EXPECT_NE(k, nullptr) << name;
    return *k;
  }
  Registry registry_;
};

TEST_F(IoNodes, RegistersKindsAndCorpusType) {
  EXPECT_TRUE(registry_.HasArtifactType("Corpus"));
  for (const char* name : {"read.conll", "read.text", "split"}) {
    const KindSpec& k = Kind(name);
    EXPECT_EQ(k.output_type, "Corpus");
    EXPECT_EQ(k.version, "1");
    EXPECT_FALSE(k.doc.empty());
  }
  EXPECT_EQ(Kind("read.conll").FindParam("path")->type, ParamType::kPath);
  EXPECT_FALSE(Kind("read.conll").FindParam("path")->default_value.has_value());
}

TEST_F(IoNodes, ReadConllUsesParametersAndReportsSize) {
  FakeNodeContext ctx(Kind("read.conll"), {{"path", std::string("/d/a.tsv")},
                                         {"encoding", std::string("runs")},
                                         {"separator", std::string("tab")},
                                         {"file_encoding", std::string("latin-1")}});
  ctx.AddFile("/d/a.tsv", "caf\xE9 au lait\tN\nx\tV\n\ny\tN\n");
  auto corpus = std::dynamic_pointer_cast<const Corpus>(Kind("read.conll").run(ctx));
  ASSERT_NE(corpus, nullptr);
  EXPECT_EQ(corpus->sentences[0].words()[0], "caf\xC3\xA9 au lait");
  EXPECT_EQ(corpus->encoding, TagEncoding::kRuns);
  EXPECT_EQ(corpus->source, "/d/a.tsv");
  EXPECT_EQ(ctx.metrics().at("sentences"), 2);
  EXPECT_EQ(ctx.metrics().at("tokens"), 3);
  EXPECT_EQ(ctx.metrics().at("labels"), 2);
}

TEST_F(IoNodes, ReadConllErrorCarriesFileAndLine) {
  FakeNodeContext ctx(Kind("read.conll"), {{"path", std::string("/d/b.conll")},
                                         {"columns", std::vector<std::string>{"word", "POS", "chunk"}}});
  ctx.AddFile("/d/b.conll", "a DT B-NP\nb NN\n");
  try {
    Kind("read.conll").run(ctx);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().ToString(), "/d/b.conll:2: expected 3 columns (word POS chunk), found 2");
    EXPECT_EQ(e.status().loc().line, 2);
  }
}

TEST_F(IoNodes, ReadConllMissingFile) {
  FakeNodeContext ctx(Kind("read.conll"), {{"path", std::string("/nope")}});
  try {
    Kind("read.conll").run(ctx);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().ToString(), "no such file: /nope");
  }
}

TEST_F(IoNodes, ReadTextAndSplit) {
  FakeNodeContext read(Kind("read.text"), {{"path", std::string("/raw")}, {"max_sentences", int64_t{4}}});
  read.AddFile("/raw", "a\nb\nc\nd\ne\n");
  ArtifactPtr text = Kind("read.text").run(read);
  EXPECT_EQ(read.metrics().at("sentences"), 4);

  FakeNodeContext split(Kind("split"), {{"count", int64_t{3}}, {"skip", int64_t{1}}, {"shuffle", false}});
  split.AddInput("data", text);
  auto part = std::dynamic_pointer_cast<const Corpus>(Kind("split").run(split));
  ASSERT_NE(part, nullptr);
  ASSERT_EQ(part->sentences.size(), 3u);
  EXPECT_EQ(part->sentences[0].words()[0], "b");
  EXPECT_EQ(split.metrics().at("tokens"), 3);
}

TEST_F(IoNodes, SplitErrorIsThrown) {
  FakeNodeContext read(Kind("read.text"), {{"path", std::string("/raw")}});
  read.AddFile("/raw", "a\nb\n");
  FakeNodeContext split(Kind("split"), {{"count", int64_t{3}}});
  split.AddInput("data", Kind("read.text").run(read));
  try {
    Kind("split").run(split);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().message(), "split: skip 0 + count 3 exceeds the corpus (2 sentences)");
  }
}

}  // namespace io_nodes_test
}  // namespace seqflow
