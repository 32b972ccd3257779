// A shard boundary inside the data: hmm.em, hmm.em_sweep, moments.collect, crf.hysol and
// decode.tag_shards read a ShardedCorpus shard by shard and give byte-equal artifacts to the
// unsharded Corpus for storage shard sizes 1, 7, 1000, on 1 and 2 threads; on two ranks, hmm.em
// and moments.collect load only the shards their E-step or count shards need.
#include <gtest/gtest.h>

#include <thread>

#include "engine/api/registry.h"
#include "nodes/io/corpus.h"
#include "nodes/io/sharded_corpus.h"
#include "nodes/registry.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/memory_piece_store.h"
#include "tests/testutil/state_fingerprint.h"
#include "tests/testutil/thread_process_group.h"

namespace seqflow {
namespace sharded_unlabeled_test {

using testutil::FakeNodeContext;
using testutil::MemoryPieceStore;

constexpr const char* kWords[] = {"the", "a", "dog", "cat", "runs", "sleeps", "big", "red", ".", "and"};

// Seeded sentences over kWords; labeled ones tag determiners D, nouns N, verbs V, others O.
std::string UnlabeledText(int sentences) {
  std::string text;
  uint64_t state = 12345;
  for (int s = 0; s < sentences; ++s) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const int length = 1 + static_cast<int>((state >> 33) % 9);
    for (int t = 0; t < length; ++t) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      text += std::string(t ? " " : "") + kWords[(state >> 35) % 10];
    }
    text += s % 13 == 0 ? " unseen\n" : "\n";
  }
  return text;
}

std::string LabeledConll() {
  return "the D\ndog N\nruns V\n. O\n\na D\ncat N\nsleeps V\n\nthe D\nbig O\nred O\ncat N\nand O\na D\ndog N\n"
         "runs V\n\n";
}

class ShardedUnlabeledTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterAllNodes(registry_);
    labeled_ = Run<Corpus>("read.conll", {{"path", std::string("/d/l.conll")}, {"encoding", std::string("runs")}}, {});
    vocab_ = Run<Artifact>("features.vocab", {{"min_count", int64_t{1}}}, {{"data", labeled_}});
    start_ = Run<Artifact>("hmm.supervised", {}, {{"data", labeled_}, {"vocab", vocab_}});
    whole_ = Run<Corpus>("read.text", {{"path", std::string("/d/u.txt")}}, {});
  }
  template <class T>
  std::shared_ptr<const T> Run(const std::string& kind, std::map<std::string, ParamValue> params,
                               std::vector<std::pair<std::string, ArtifactPtr>> inputs, int threads = 1) {
    const KindSpec* spec = registry_.FindKind(kind);
    EXPECT_NE(spec, nullptr) << kind;
    FakeNodeContext ctx(*spec, std::move(params), threads);
    ctx.AddFile("/d/l.conll", LabeledConll());
    ctx.AddFile("/d/u.txt", UnlabeledText(61));
    ctx.AddFile("/d/big.txt", UnlabeledText(5000));
    ctx.AddFile("/d/two_blocks.txt", UnlabeledText(9000));
    ctx.SetPieces(&store_);
    for (auto& [port, artifact] : inputs) ctx.AddInput(port, artifact);
    auto out = std::dynamic_pointer_cast<const T>(spec->run(ctx));
    EXPECT_NE(out, nullptr) << kind;
    return out;
  }
  ArtifactPtr Sharded(int64_t size) {
    return Run<ShardedCorpus>("read.text_shards", {{"path", std::string("/d/u.txt")}, {"shard_sentences", size}}, {});
  }
  static std::string Bytes(const Artifact& a) {
    ByteWriter w;
    a.Save(w);
    return w.Take();
  }
  // The bytes of `kind`'s artifact with `unlabeled` on its port, for each thread count.
  std::string EmBytes(const std::string& kind, std::map<std::string, ParamValue> params, ArtifactPtr unlabeled,
                      int threads) {
    return Bytes(*Run<Artifact>(kind, std::move(params),
                                {{"start", start_}, {"labeled", labeled_}, {"unlabeled", unlabeled}}, threads));
  }

  // A CRF expert over `templates` trained on the labeled sentences.
  ArtifactPtr Expert(std::vector<std::string> templates) {
    ArtifactPtr features = Run<Artifact>(
        "features.templates", {{"set", std::string("none")}, {"templates", std::move(templates)}}, {{"data", labeled_}});
    return Run<Artifact>("crf.train", {{"max_iterations", int64_t{20}}}, {{"data", features}});
  }

  Registry registry_;
  MemoryPieceStore store_;
  std::shared_ptr<const Corpus> labeled_, whole_;
  ArtifactPtr vocab_, start_;
};

TEST_F(ShardedUnlabeledTest, HmmEmIsByteEqualForEveryShardSizeAndThreadCount) {
  const std::map<std::string, ParamValue> params = {{"lambda", std::string("0.7")}, {"max_iter", int64_t{6}}};
  const std::string expected = EmBytes("hmm.em", params, whole_, 1);
  ASSERT_EQ(EmBytes("hmm.em", params, whole_, 2), expected);
  for (int64_t size : {1, 7, 1000}) {
    ArtifactPtr sharded = Sharded(size);
    for (int threads : {1, 2})
      EXPECT_EQ(EmBytes("hmm.em", params, sharded, threads), expected) << "shard size " << size << ", threads " << threads;
  }
  // The data matter: a model without the unseen word's sentences differs.
  auto fewer = Run<ShardedCorpus>("read.text_shards", {{"path", std::string("/d/u.txt")},
                                                      {"shard_sentences", int64_t{7}},
                                                      {"max_sentences", int64_t{60}}}, {});
  EXPECT_NE(EmBytes("hmm.em", params, fewer, 1), expected);
}

TEST_F(ShardedUnlabeledTest, HmmEmSweepIsByteEqual) {
  const std::map<std::string, ParamValue> params = {{"lambdas", std::vector<double>{0.2, 0.9}},
                                                    {"max_iter", int64_t{3}}};
  const std::string expected = EmBytes("hmm.em_sweep", params, whole_, 1);
  for (int64_t size : {1, 7, 1000})
    for (int threads : {1, 2})
      EXPECT_EQ(EmBytes("hmm.em_sweep", params, Sharded(size), threads), expected) << "shard size " << size;
}

TEST_F(ShardedUnlabeledTest, MomentsCollectIsByteEqual) {
  auto collect = [&](ArtifactPtr data, int threads) {
    return Bytes(*Run<Artifact>("moments.collect", {}, {{"vocab", vocab_}, {"data", data}}, threads));
  };
  const std::string expected = collect(whole_, 1);
  for (int64_t size : {1, 7, 1000})
    for (int threads : {1, 2}) EXPECT_EQ(collect(Sharded(size), threads), expected) << "shard size " << size;
  // Two inputs, one of each kind, in order: the concatenation.
  const KindSpec& kind = *registry_.FindKind("moments.collect");
  FakeNodeContext both(kind, {}, 2);
  both.SetPieces(&store_);
  both.AddInput("vocab", vocab_);
  both.AddInput("data", Sharded(7));
  both.AddInput("data", whole_);
  FakeNodeContext twice(kind, {}, 2);
  twice.AddInput("vocab", vocab_);
  twice.AddInput("data", whole_);
  twice.AddInput("data", whole_);
  EXPECT_EQ(Bytes(*kind.run(both)), Bytes(*kind.run(twice)));
}

// hmm.em on two ranks over 5,000 sentences in shards of 32: the E-step's shards of 64 sentences
// alternate between the ranks, so each loads every other pair of storage shards, and both end with
// the one-process bytes.
TEST_F(ShardedUnlabeledTest, HmmEmUnderTwoRanksLoadsOnlyEachRanksShards) {
  const std::map<std::string, ParamValue> big = {{"path", std::string("/d/big.txt")},
                                                 {"shard_sentences", int64_t{32}}};
  const std::map<std::string, ParamValue> params = {{"lambda", std::string("0.7")}, {"max_iter", int64_t{2}}};
  ArtifactPtr whole = Run<Corpus>("read.text", {{"path", std::string("/d/big.txt")}}, {});
  const std::string expected = EmBytes("hmm.em", params, whole, 1);
  ArtifactPtr sharded = Run<ShardedCorpus>("read.text_shards", big, {});
  const size_t shards = std::dynamic_pointer_cast<const ShardedCorpus>(sharded)->shards.size();
  ASSERT_EQ(shards, 157u);
  const KindSpec& kind = *registry_.FindKind("hmm.em");
  testutil::ThreadRanks ranks(2);
  MemoryPieceStore stores[2];
  std::string bytes[2];
  for (int r = 0; r < 2; ++r) {
    FakeNodeContext writer(*registry_.FindKind("read.text_shards"), big);
    writer.AddFile("/d/big.txt", UnlabeledText(5000));
    writer.SetPieces(&stores[r]);
    registry_.FindKind("read.text_shards")->run(writer);
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      const testutil::ThreadRanks::Rank group = ranks.Of(r);
      FakeNodeContext ctx(kind, params, 1);
      ctx.SetPieces(&stores[r]);
      ctx.SetProcesses(&group);
      ctx.AddInput("start", start_);
      ctx.AddInput("labeled", labeled_);
      ctx.AddInput("unlabeled", sharded);
      bytes[r] = Bytes(*kind.run(ctx));
    });
  for (std::thread& t : threads) t.join();
  // E-step shard g (sentences [64 g, 64 g + 64): storage shards 2 g and 2 g + 1) is rank g % 2's:
  // rank 0 has g = 0, 2, ..., 78 (the last holds storage shard 156 alone), rank 1 g = 1, ..., 77.
  EXPECT_EQ(stores[0].gets(), 79);
  EXPECT_EQ(stores[1].gets(), 78);
  EXPECT_EQ(bytes[0], expected);
  EXPECT_EQ(bytes[1], expected);
}

// Two ranks (threads standing for mpirun's processes) over 5,000 sentences in shards of 1,000:
// the kernel's compute shards of 2,048 sentences go to ranks 0, 1, 0, so rank 0 needs storage
// shards 0, 1, 2, 4 and rank 1 shards 2, 3, 4 — and each reads only those — and both end with the
// one-process bytes.
TEST_F(ShardedUnlabeledTest, MomentsCollectUnderTwoRanksLoadsOnlyEachRanksShards) {
  const std::map<std::string, ParamValue> big = {{"path", std::string("/d/big.txt")},
                                                 {"shard_sentences", int64_t{1000}}};
  ArtifactPtr whole = Run<Corpus>("read.text", {{"path", std::string("/d/big.txt")}}, {});
  const std::string expected = Bytes(*Run<Artifact>("moments.collect", {}, {{"vocab", vocab_}, {"data", whole}}));
  ArtifactPtr sharded = Run<ShardedCorpus>("read.text_shards", big, {});
  ASSERT_EQ(std::dynamic_pointer_cast<const ShardedCorpus>(sharded)->shards.size(), 5u);
  const KindSpec& kind = *registry_.FindKind("moments.collect");
  testutil::ThreadRanks ranks(2);
  MemoryPieceStore stores[2];
  std::string bytes[2];
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    FakeNodeContext writer(*registry_.FindKind("read.text_shards"), big);
    writer.AddFile("/d/big.txt", UnlabeledText(5000));
    writer.SetPieces(&stores[r]);
    registry_.FindKind("read.text_shards")->run(writer);
  }
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      const testutil::ThreadRanks::Rank group = ranks.Of(r);
      FakeNodeContext ctx(kind, {}, 2);
      ctx.SetPieces(&stores[r]);
      ctx.SetProcesses(&group);
      ctx.AddInput("vocab", vocab_);
      ctx.AddInput("data", sharded);
      bytes[r] = Bytes(*kind.run(ctx));
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(stores[0].gets(), 4);
  EXPECT_EQ(stores[1].gets(), 3);
  EXPECT_EQ(bytes[0], expected);
  EXPECT_EQ(bytes[1], expected);
}

// crf.hysol over 9,000 unlabeled sentences (two of its streamed blocks of 8,192, the boundary inside
// a storage shard of 1,000 or 7), resident and streamed, on 1 and 2 threads: the unsharded resident
// model's bytes.
TEST_F(ShardedUnlabeledTest, HysolIsByteEqualForEveryShardSizeStreamedOrNot) {
  const std::vector<ArtifactPtr> experts = {Expert({"word[0]"}), Expert({"word[-1]|word[0]"})};
  auto hysol = [&](ArtifactPtr unlabeled, bool streamed, int threads) {
    const KindSpec& kind = *registry_.FindKind("crf.hysol");
    FakeNodeContext ctx(kind,
                        {{"set", std::string("none")},
                         {"templates", std::vector<std::string>{"word[0]", "word[-1]"}},
                         {"max_iterations", int64_t{2}},
                         {"em_iterations", int64_t{2}},
                         {"stream_unlabeled", streamed}},
                        threads);
    ctx.SetPieces(&store_);
    for (const ArtifactPtr& expert : experts) ctx.AddInput("experts", expert);
    ctx.AddInput("train", labeled_);
    ctx.AddInput("heldout", labeled_);
    ctx.AddInput("unlabeled", unlabeled);
    return Bytes(*kind.run(ctx));
  };
  ArtifactPtr whole = Run<Corpus>("read.text", {{"path", std::string("/d/two_blocks.txt")}}, {});
  const std::string expected = hysol(whole, false, 1);
  EXPECT_EQ(hysol(whole, true, 2), expected);
  for (int64_t size : {7, 1000}) {
    ArtifactPtr sharded = Run<ShardedCorpus>(
        "read.text_shards", {{"path", std::string("/d/two_blocks.txt")}, {"shard_sentences", size}}, {});
    for (bool streamed : {false, true})
      for (int threads : {1, 2})
        EXPECT_EQ(hysol(sharded, streamed, threads), expected)
            << "shard size " << size << (streamed ? ", streamed" : ", resident") << ", threads " << threads;
  }
  // The data matter: one sentence fewer gives another model.
  ArtifactPtr fewer = Run<ShardedCorpus>("read.text_shards",
                                         {{"path", std::string("/d/two_blocks.txt")},
                                          {"shard_sentences", int64_t{1000}},
                                          {"max_sentences", int64_t{8999}}},
                                         {});
  EXPECT_NE(hysol(fewer, true, 1), expected);
}

// decode.tag_shards writes decode.tag's sentences, shard by shard, for any input and output shard size.
TEST_F(ShardedUnlabeledTest, TagShardsHoldsDecodeTagsSentences) {
  const std::string expected =
      Bytes(*Run<Corpus>("decode.tag", {{"column", std::string("pos")}}, {{"model", start_}, {"data", whole_}}));
  for (int64_t in_size : {1, 7, 1000}) {
    ArtifactPtr input = in_size == 1000 ? ArtifactPtr(whole_) : Sharded(in_size);
    for (int64_t out_size : {5, 1000}) {
      auto tagged = Run<ShardedCorpus>("decode.tag_shards", {{"column", std::string("pos")}, {"shard_sentences", out_size}},
                                       {{"model", start_}, {"data", input}}, 2);
      ASSERT_EQ(tagged->shard_sentences, out_size);
      Corpus joined;
      joined.columns = tagged->columns;
      joined.source = tagged->source;
      ASSERT_TRUE(ForEachCorpusShard(*tagged, &store_, [&](const Corpus& shard) {
                    joined.sentences.insert(joined.sentences.end(), shard.sentences.begin(), shard.sentences.end());
                    return Status::Ok();
                  }).ok());
      EXPECT_EQ(Bytes(joined), expected) << "input shards " << in_size << ", output shards " << out_size;
    }
  }
}

// The EM_λ kernel (RunEmLambda) resumes from a state in memory; its bytes are hmm.em's
// (em_nodes.cpp: the updates made, Θ̃, the objectives), with no magic to refuse another format.
// The bytes of the first and the last state offered and of the final one, pinned: a state saved
// by an earlier build must still resume (tests/testutil/state_fingerprint.h).
TEST_F(ShardedUnlabeledTest, HmmEmStateBytesAreThoseOfEarlierBuilds) {
  const KindSpec& kind = *registry_.FindKind("hmm.em");
  FakeNodeContext ctx(kind, {{"lambda", std::string("0.7")}, {"max_iter", int64_t{6}}, {"tol", 0.0}});
  ctx.KeepStates();
  ctx.AddInput("start", start_);
  ctx.AddInput("labeled", labeled_);
  ctx.AddInput("unlabeled", whole_);
  kind.run(ctx);
  ASSERT_EQ(ctx.checkpoints().size(), 6u);
  const uint64_t first = testutil::StateFingerprint(ctx.checkpoints().front()),
                 last = testutil::StateFingerprint(ctx.checkpoints().back()),
                 final_state = testutil::StateFingerprint(ctx.final_state());
  EXPECT_EQ(first, 0x282deeb0097980eaULL) << std::hex << "0x" << first;
  EXPECT_EQ(last, 0x34d632a60dd28bf8ULL) << std::hex << "0x" << last;
  EXPECT_EQ(final_state, 0x34d632a60dd28bf8ULL) << std::hex << "0x" << final_state;
}

}  // namespace sharded_unlabeled_test
}  // namespace seqflow
