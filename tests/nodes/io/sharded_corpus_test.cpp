// ShardedCorpus: read.text_shards gives read.text's sentences for any shard size (boundaries
// inside the data), its shards are read one at a time, and bad shards are Corruption.
#include "nodes/io/sharded_corpus.h"

#include <gtest/gtest.h>

#include "nodes/io/io_nodes.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/memory_piece_store.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace sharded_corpus_test {

using testutil::FakeNodeContext;
using testutil::MemoryPieceStore;

// 23 sentences, one of them emptied by the rewrite rule, two blank lines.
std::string Text() {
  std::string text;
  for (int s = 0; s < 23; ++s) {
    if (s == 5) text += "\n";
    if (s == 11) {
      text += "drop drop\n";
      continue;
    }
    text += "w" + std::to_string(s);
    for (int t = 0; t < s % 4; ++t) text += " mln t" + std::to_string(t);
    text += "\n";
  }
  return text + "\n";
}

class ShardedCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterIoNodes(registry_); }
  const KindSpec& Kind(const std::string& name) { return *registry_.FindKind(name); }

  std::shared_ptr<const Corpus> ReadText(std::map<std::string, ParamValue> params) {
    FakeNodeContext ctx(Kind("read.text"), std::move(params));
    AddFiles(ctx);
    return std::dynamic_pointer_cast<const Corpus>(Kind("read.text").run(ctx));
  }
  std::shared_ptr<const ShardedCorpus> ReadShards(std::map<std::string, ParamValue> params,
                                                  std::map<std::string, double>* metrics = nullptr) {
    FakeNodeContext ctx(Kind("read.text_shards"), std::move(params));
    AddFiles(ctx);
    ctx.SetPieces(&store_);
    auto out = std::dynamic_pointer_cast<const ShardedCorpus>(Kind("read.text_shards").run(ctx));
    if (metrics != nullptr) *metrics = ctx.metrics();
    return out;
  }
  void AddFiles(FakeNodeContext& ctx) {
    ctx.AddFile("/d/u.txt", Text());
    ctx.AddFile("/d/rules", "mln => million\ndrop =>\n");
  }
  // Every sentence of `sharded`, read shard by shard.
  std::vector<Sentence> Sentences(const Artifact& sharded) {
    std::vector<Sentence> out;
    EXPECT_OK(ForEachCorpusShard(sharded, &store_, [&](const Corpus& shard) {
      out.insert(out.end(), shard.sentences.begin(), shard.sentences.end());
      return Status::Ok();
    }));
    return out;
  }

  Registry registry_;
  MemoryPieceStore store_;
};

bool SameSentences(const std::vector<Sentence>& a, const std::vector<Sentence>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].cols != b[i].cols || a[i].labels != b[i].labels) return false;
  return true;
}

TEST_F(ShardedCorpusTest, RegistersTheTypeUnderTheSentencesInterface) {
  PortSpec port;
  port.type = std::string(kSentencesInterface);
  EXPECT_TRUE(registry_.Accepts(port, "Corpus"));
  EXPECT_TRUE(registry_.Accepts(port, "ShardedCorpus"));
  EXPECT_EQ(Kind("read.text_shards").output_type, "ShardedCorpus");
}

TEST_F(ShardedCorpusTest, ShardsHoldReadTextsSentencesForEveryShardSize) {
  for (const std::string& rewrite : {std::string(""), std::string("/d/rules")}) {
    auto whole = ReadText({{"path", std::string("/d/u.txt")}, {"rewrite", rewrite}});
    ASSERT_EQ(whole->sentences.size(), rewrite.empty() ? 23u : 22u);
    for (int64_t size : {1, 7, 22, 1000}) {
      std::map<std::string, double> metrics;
      auto sharded = ReadShards(
          {{"path", std::string("/d/u.txt")}, {"rewrite", rewrite}, {"shard_sentences", size}}, &metrics);
      SCOPED_TRACE("shard_sentences " + std::to_string(size) + " rewrite '" + rewrite + "'");
      const size_t n = whole->sentences.size();
      EXPECT_EQ(sharded->shards.size(), (n + size - 1) / size);
      EXPECT_EQ(sharded->num_sentences(), static_cast<int64_t>(n));
      EXPECT_EQ(sharded->num_tokens(), static_cast<int64_t>(whole->num_tokens()));
      for (size_t i = 0; i + 1 < sharded->shards.size(); ++i) EXPECT_EQ(sharded->shards[i].sentences, size);
      EXPECT_EQ(sharded->columns, whole->columns);
      EXPECT_EQ(sharded->source, whole->source);
      EXPECT_TRUE(SameSentences(Sentences(*sharded), whole->sentences));
      EXPECT_EQ(metrics.at("tokens"), static_cast<double>(whole->num_tokens()));
      EXPECT_EQ(metrics.count("rewrites"), rewrite.empty() ? 0u : 1u);
    }
  }
}

TEST_F(ShardedCorpusTest, MaxSentencesCountsAsReadTextDoes) {
  auto whole = ReadText({{"path", std::string("/d/u.txt")}, {"max_sentences", int64_t{9}}});
  auto sharded = ReadShards({{"path", std::string("/d/u.txt")}, {"max_sentences", int64_t{9}},
                             {"shard_sentences", int64_t{4}}});
  EXPECT_TRUE(SameSentences(Sentences(*sharded), whole->sentences));
}

TEST_F(ShardedCorpusTest, ACorpusIsItsOwnOneShard) {
  auto whole = ReadText({{"path", std::string("/d/u.txt")}});
  int shards = 0;
  EXPECT_OK(ForEachCorpusShard(*whole, nullptr, [&](const Corpus& shard) {
    EXPECT_EQ(&shard, whole.get());
    ++shards;
    return Status::Ok();
  }));
  EXPECT_EQ(shards, 1);
}

TEST_F(ShardedCorpusTest, ConsumersLoadOneShardAtATime) {
  auto sharded = ReadShards({{"path", std::string("/d/u.txt")}, {"shard_sentences", int64_t{7}}});
  const int64_t before = store_.gets();
  int64_t seen = 0;
  EXPECT_OK(ForEachCorpusShard(*sharded, &store_, [&](const Corpus& shard) {
    EXPECT_EQ(store_.gets() - before, seen + 1);  // this shard only, and none ahead of it
    ++seen;
    EXPECT_LE(static_cast<int64_t>(shard.sentences.size()), 7);
    return Status::Ok();
  }));
  EXPECT_EQ(seen, 4);
}

TEST_F(ShardedCorpusTest, SaveLoadRoundTripAndPieceNames) {
  auto sharded = ReadShards({{"path", std::string("/d/u.txt")}, {"shard_sentences", int64_t{7}}});
  ByteWriter w;
  sharded->Save(w);
  const std::string bytes = w.Take();
  ByteReader r(bytes);
  auto back = ShardedCorpus::Load(r);
  ByteWriter again;
  back->Save(again);
  EXPECT_EQ(again.Take(), bytes);
  ASSERT_EQ(back->PieceNames().size(), 4u);
  EXPECT_EQ(back->PieceNames()[2], sharded->shards[2].piece);
  EXPECT_EQ(store_.size(), 4u);
}

TEST_F(ShardedCorpusTest, LoadRejectsCountsThatAreNotFixedSizeShards) {
  ShardedCorpus bad;
  bad.columns = {"word"};
  bad.shard_sentences = 4;
  bad.shards = {{"a.b", 3, 9}, {"a.c", 4, 9}};  // a short shard before the last
  ByteWriter w;
  bad.Save(w);
  const std::string bytes = w.Take();
  ByteReader r(bytes);
  EXPECT_THROW(ShardedCorpus::Load(r), StatusError);
}

TEST_F(ShardedCorpusTest, AMissingOrDamagedShardIsCorruptionNamingIt) {
  auto sharded = ReadShards({{"path", std::string("/d/u.txt")}, {"shard_sentences", int64_t{7}}});
  const std::string second = sharded->shards[1].piece;
  auto visit = [](const Corpus&) { return Status::Ok(); };

  Result<std::string> body = store_.Get(second);
  ASSERT_OK(body.status());
  // Another shard's body under this name: the counts differ.
  store_.Overwrite(second, *store_.Get(sharded->shards[3].piece));
  Status wrong = ForEachCorpusShard(*sharded, &store_, visit);
  EXPECT_EQ(wrong.code(), StatusCode::kCorruption);
  EXPECT_NE(wrong.message().find(second), std::string::npos) << wrong.ToString();

  store_.Overwrite(second, body->substr(0, body->size() / 2));
  Status truncated = ForEachCorpusShard(*sharded, &store_, visit);
  EXPECT_EQ(truncated.code(), StatusCode::kCorruption);
  EXPECT_NE(truncated.message().find(second), std::string::npos) << truncated.ToString();

  store_.Erase(second);
  Status missing = ForEachCorpusShard(*sharded, &store_, visit);
  EXPECT_EQ(missing.code(), StatusCode::kCorruption);
  EXPECT_NE(missing.message().find(second), std::string::npos) << missing.ToString();
}

TEST_F(ShardedCorpusTest, ReaderErrorsAreReadTexts) {
  FakeNodeContext ctx(Kind("read.text_shards"), {{"path", std::string("/d/empty.txt")}});
  ctx.AddFile("/d/empty.txt", "\n \n");
  ctx.SetPieces(&store_);
  try {
    Kind("read.text_shards").run(ctx);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    EXPECT_NE(e.status().ToString().find("/d/empty.txt"), std::string::npos) << e.status().ToString();
  }
  FakeNodeContext no_store(Kind("read.text_shards"), {{"path", std::string("/d/u.txt")}});
  AddFiles(no_store);
  EXPECT_THROW(Kind("read.text_shards").run(no_store), StatusError);
}

}  // namespace sharded_corpus_test
}  // namespace seqflow
