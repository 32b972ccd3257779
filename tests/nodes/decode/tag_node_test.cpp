#include "nodes/decode/tag_node.h"

#include <gtest/gtest.h>

#include <memory>

#include "nodes/decode/decode_nodes.h"
#include "nodes/hmm/hmm_model.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace tag_node_test {

using testutil::FakeNodeContext;

// A two-state tagger whose emissions leave no doubt: nouns emit dogs/cats, verbs bark/run, and
// either emits the unknown word; N -> V and V -> N are the likely transitions.
std::shared_ptr<HmmModel> NounVerbHmm() {
  auto m = std::make_shared<HmmModel>();
  m->vocab = std::make_shared<const Vocab>(std::vector<std::string>{"dogs", "bark", "cats", "run"},
                                           UnknownScheme::kSingle, false);
  m->label_names = {"N", "V"};
  m->encoding = TagEncoding::kRuns;
  const Vocab& v = *m->vocab;
  m->params.initial.resize(2);
  m->params.initial << 0.8, 0.2;
  m->params.transition.resize(2, 2);
  m->params.transition << 0.3, 0.7, 0.8, 0.2;
  m->params.emission = Eigen::MatrixXd::Zero(2, v.size());
  m->params.emission(0, v.Id("dogs")) = m->params.emission(0, v.Id("cats")) = 0.4;
  m->params.emission(1, v.Id("bark")) = m->params.emission(1, v.Id("run")) = 0.4;
  m->params.emission(0, v.Id("bark")) = m->params.emission(0, v.Id("run")) = 0.05;
  m->params.emission(1, v.Id("dogs")) = m->params.emission(1, v.Id("cats")) = 0.05;
  m->params.emission(0, v.Id("zzz")) = m->params.emission(1, v.Id("zzz")) = 0.1;
  return m;
}

// Sentences as whitespace-separated words; `extra` adds a second column "chunk" of X's.
std::shared_ptr<Corpus> Sentences(const std::vector<std::vector<std::string>>& words, bool extra = false) {
  auto c = std::make_shared<Corpus>();
  c->columns = {"word"};
  if (extra) c->columns.push_back("chunk");
  for (const auto& w : words) {
    Sentence s;
    s.cols = {w};
    if (extra) s.cols.push_back(std::vector<std::string>(w.size(), "X"));
    c->sentences.push_back(std::move(s));
  }
  return c;
}

class TagNode : public ::testing::Test {
 protected:
  void SetUp() override { RegisterDecodeNodes(registry_); }
  const KindSpec& kind() { return *registry_.FindKind("decode.tag"); }
  std::shared_ptr<const Corpus> Run(FakeNodeContext& ctx, std::shared_ptr<const Corpus> data) {
    ctx.SetInput("model", NounVerbHmm());
    ctx.SetInput("data", std::move(data));
    return std::dynamic_pointer_cast<const Corpus>(kind().run(ctx));
  }
  Registry registry_;
};

TEST_F(TagNode, IsRegisteredWithItsDefaults) {
  ASSERT_NE(registry_.FindKind("decode.tag"), nullptr);
  EXPECT_EQ(kind().version, "1");
  EXPECT_EQ(kind().output_type, "Corpus");
  EXPECT_EQ(kind().FindPort("model")->type, "ChainModel");
  EXPECT_EQ(std::get<std::string>(*kind().FindParam("column")->default_value), "pos");
  EXPECT_FALSE(std::get<bool>(*kind().FindParam("replace")->default_value));
}

TEST_F(TagNode, AddsTheViterbiLabelsAsAColumn) {
  auto data = Sentences({{"dogs", "bark"}, {}, {"cats", "run", "zzz", "bark"}});
  FakeNodeContext ctx(kind(), {}, 2);
  auto tagged = Run(ctx, data);
  ASSERT_NE(tagged, nullptr);
  EXPECT_EQ(tagged->columns, (std::vector<std::string>{"word", "pos"}));
  EXPECT_EQ(tagged->sentences[0].cols[1], (std::vector<std::string>{"N", "V"}));
  EXPECT_TRUE(tagged->sentences[1].cols[1].empty());
  EXPECT_EQ(tagged->sentences[2].cols[1], (std::vector<std::string>{"N", "V", "N", "V"}));
  EXPECT_EQ(tagged->sentences[2].words(), data->sentences[2].words());
  EXPECT_EQ(ctx.metrics().at("sentences"), 3);
  EXPECT_EQ(ctx.metrics().at("tokens"), 6);
  EXPECT_EQ(ctx.attachments().at("preview.tsv"),
            "word\tpos\ndogs\tN\nbark\tV\n\n\ncats\tN\nrun\tV\nzzz\tN\nbark\tV\n\n");
}

TEST_F(TagNode, AgreesWithTheViterbiDecoder) {
  auto data = Sentences({{"run", "dogs", "zzz", "zzz", "cats"}, {"bark", "bark"}, {"zzz"}});
  FakeNodeContext ctx(kind(), {{"column", std::string("tag")}});
  auto tagged = Run(ctx, data);
  Predictions viterbi = ValueOrThrow(DecodeCorpus(*NounVerbHmm(), *data, DecodeMethod::kViterbi, false, 1));
  for (size_t n = 0; n < data->sentences.size(); ++n)
    for (size_t t = 0; t < data->sentences[n].size(); ++t)
      EXPECT_EQ(tagged->sentences[n].cols[1][t], viterbi.label_names[viterbi.labels[n][t]]) << n << " " << t;
}

TEST_F(TagNode, KeepsTheCorpusLabelsAndEncoding) {
  auto data = Sentences({{"dogs", "bark"}}, true);
  data->label_names = {"B-NP", "B-VP"};
  data->encoding = TagEncoding::kIob2;
  data->sentences[0].labels = {0, 1};
  FakeNodeContext ctx(kind());
  auto tagged = Run(ctx, data);
  EXPECT_EQ(tagged->columns, (std::vector<std::string>{"word", "chunk", "pos"}));
  EXPECT_EQ(tagged->label_names, data->label_names);
  EXPECT_EQ(tagged->encoding, TagEncoding::kIob2);
  EXPECT_EQ(tagged->sentences[0].labels, data->sentences[0].labels);
  EXPECT_EQ(tagged->sentences[0].cols[1], data->sentences[0].cols[1]);
}

TEST_F(TagNode, ExistingColumnNeedsReplace) {
  auto data = Sentences({{"dogs", "bark"}}, true);
  FakeNodeContext refuse(kind(), {{"column", std::string("chunk")}});
  try {
    Run(refuse, data);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(e.status().message(),
              "node 'decode.tag': the corpus already has a column 'chunk'; set replace: true or pick another column");
  }
  FakeNodeContext replace(kind(), {{"column", std::string("chunk")}, {"replace", true}});
  auto tagged = Run(replace, data);
  EXPECT_EQ(tagged->columns, data->columns);  // overwritten in place
  EXPECT_EQ(tagged->sentences[0].cols[1], (std::vector<std::string>{"N", "V"}));
}

TEST_F(TagNode, WordColumnIsNeverReplaced) {
  const ParamSpec& column = *kind().FindParam("column");
  RawParam raw;
  raw.scalar = "word";
  EXPECT_FALSE(ParseParam(column, raw).ok());
  raw.scalar = "";
  EXPECT_FALSE(ParseParam(column, raw).ok());
  EXPECT_FALSE(CheckLabelColumn(*Sentences({{"dogs"}}), "word", true).ok());
}

TEST(AddLabelColumn, RejectsPredictionsOfAnotherCorpus) {
  auto data = Sentences({{"dogs", "bark"}});
  Predictions predicted;
  predicted.label_names = {"N"};
  predicted.labels = {{0}};
  Result<Corpus> tagged = AddLabelColumn(*data, predicted, "pos", false);
  ASSERT_FALSE(tagged.ok());
  EXPECT_EQ(tagged.status().code(), StatusCode::kInternal);
  predicted.labels = {{0, 0}, {0}};
  EXPECT_FALSE(AddLabelColumn(*data, predicted, "pos", false).ok());
}

}  // namespace tag_node_test
}  // namespace seqflow
