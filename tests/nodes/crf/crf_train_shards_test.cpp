// crf.train's kernel over streamed sentences (crf_sentences.h) read from a ShardedFeatureSet
// (nodes/features/sharded_feature_set.h) against the same sentences resident: the same weights and
// objective trace to the bit, for storage shards of 1, 7 and more sentences than the corpus,
// blocks that cut the storage shards, 1 and 2 threads, order 1 and 2, duplicates merged or not, and
// 2 and 3 ranks (threads standing for MPI processes) of which only rank 0 reads every shard.
// A missing or damaged piece is a clean error naming it.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>

#include "nodes/crf/crf_train.h"
#include "nodes/features/sharded_feature_set.h"
#include "tests/testutil/memory_piece_store.h"
#include "tests/testutil/status_matchers.h"
#include "tests/testutil/thread_process_group.h"

namespace seqflow {
namespace crf_train_shards_test {

constexpr int32_t kLabels = 3;
constexpr size_t kBlock = 64;  // streamed blocks of two compute shards: most cut a storage shard

// A dictionary of `num_attributes` attributes (the pieces' ids are checked against its size).
std::shared_ptr<const FeatureDictionary> Dictionary(int32_t num_attributes) {
  auto dictionary = std::make_shared<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile({{"U", "word[0]", ""}}, {"word"})));
  Corpus corpus;
  corpus.columns = {"word"};
  Sentence words;
  words.cols.resize(1);
  for (int32_t a = 0; a < num_attributes; ++a) words.cols[0].push_back("w" + std::to_string(a));
  corpus.sentences.push_back(std::move(words));
  ThrowIfError(dictionary->Fit(corpus, 1));
  return dictionary;
}

// A random corpus whose attributes repeat (so duplicates merge) and sometimes fire twice at a token.
FeatureSet RandomFeatureSet(std::mt19937& rng, size_t sentences, int32_t num_attributes) {
  FeatureSet set;
  set.dictionary = Dictionary(num_attributes);
  set.label_names = {"A", "B", "C"};
  std::uniform_int_distribution<int> length(1, 6), per_token(1, 4), attribute(0, num_attributes - 1),
      label(0, kLabels - 1), twice(0, 9);
  for (size_t n = 0; n < sentences; ++n) {
    SentenceFeatures s;
    s.offsets.push_back(0);
    std::vector<int32_t> y;
    for (int t = 0, T = length(rng); t < T; ++t) {
      for (int i = 0, m = per_token(rng); i < m; ++i) {
        const int32_t a = attribute(rng);
        s.ids.push_back(a);
        if (twice(rng) == 0) s.ids.push_back(a);
      }
      s.offsets.push_back(static_cast<int32_t>(s.ids.size()));
      y.push_back(label(rng));
    }
    set.sentences.push_back(std::move(s));
    set.labels.push_back(std::move(y));
  }
  return set;
}

// `whole`'s sentences stored as shards of `shard_sentences` in `store`.
ShardedFeatureSet Shard(const FeatureSet& whole, size_t shard_sentences, PieceStore* store) {
  ShardedFeatureSet set;
  set.dictionary = whole.dictionary;
  set.label_names = whole.label_names;
  set.labeled = true;
  set.shard_sentences = static_cast<int64_t>(shard_sentences);
  for (size_t begin = 0; begin < whole.sentences.size(); begin += shard_sentences) {
    const auto b = static_cast<std::ptrdiff_t>(begin),
               e = static_cast<std::ptrdiff_t>(std::min(whole.sentences.size(), begin + shard_sentences));
    FeatureShard shard{{whole.sentences.begin() + b, whole.sentences.begin() + e},
                       {whole.labels.begin() + b, whole.labels.begin() + e}};
    set.shards.push_back(ValueOrThrow(StoreFeatureShard(shard, store)));
  }
  return set;
}

struct Trained {
  Eigen::VectorXd weights;
  std::vector<LbfgsIteration> trace;
};

CrfTrainOptions Options(int threads, int order, bool merge, const ProcessGroup* processes = nullptr) {
  CrfTrainOptions options;
  options.sigma2 = 0.8;
  options.order = order;
  options.merge_duplicates = merge;
  options.lbfgs.threads = threads;
  options.lbfgs.max_iterations = 12;
  options.processes = processes;
  return options;
}

Result<Trained> Train(const CrfSentences& data, int32_t num_attributes, const CrfTrainOptions& options) {
  Trained out;
  SEQFLOW_ASSIGN_OR_RETURN(CrfTrainResult result,
                           TrainCrf(data, num_attributes, kLabels, options,
                                    [&](const LbfgsIteration& it) { out.trace.push_back(it); }));
  out.weights = std::move(result.weights);
  return out;
}

// The streamed form of `set` read through FeatureRanges, as crf.train's node reads it.
CrfSentences Streamed(FeatureRanges& ranges) {
  return CrfSentences(
      ranges.num_sentences(),
      [&ranges](size_t begin, size_t end, const CrfSentences::Needed& needed) {
        return ranges.Range(begin, end, needed);
      },
      kBlock);
}

void ExpectSameBits(const Trained& a, const Trained& b) {
  ASSERT_EQ(a.weights.size(), b.weights.size());
  EXPECT_EQ(std::memcmp(a.weights.data(), b.weights.data(), sizeof(double) * a.weights.size()), 0);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (size_t i = 0; i < a.trace.size(); ++i) {
    EXPECT_EQ(std::memcmp(&a.trace[i].objective, &b.trace[i].objective, sizeof(double)), 0) << "iteration " << i;
    EXPECT_EQ(std::memcmp(&a.trace[i].gradient_norm, &b.trace[i].gradient_norm, sizeof(double)), 0);
    EXPECT_EQ(a.trace[i].evaluations, b.trace[i].evaluations);
  }
}

constexpr int32_t kAttributes = 40;

TEST(CrfTrainShards, StreamedShardsGiveTheResidentBits) {
  std::mt19937 rng(2016);
  FeatureSet whole = RandomFeatureSet(rng, 300, kAttributes);
  for (int order : {1, 2})
    for (bool merge : {false, true})
      for (int threads : {1, 2}) {
        const CrfTrainOptions options = Options(threads, order, merge);
        const Trained resident = ValueOrThrow(Train(CrfSentences(whole.sentences, whole.labels), kAttributes, options));
        ASSERT_GT(resident.trace.size(), 5u);
        for (size_t shard_sentences : {size_t{1}, size_t{7}, size_t{1000}}) {
          SCOPED_TRACE(testing::Message() << "order " << order << ", merge " << merge << ", " << threads
                                          << " threads, shards of " << shard_sentences);
          testutil::MemoryPieceStore store;
          const ShardedFeatureSet sharded = Shard(whole, shard_sentences, &store);
          FeatureRanges ranges = ValueOrThrow(FeatureRanges::Of(sharded, &store));
          ExpectSameBits(ValueOrThrow(Train(Streamed(ranges), kAttributes, options)), resident);
        }
      }
}

// Ranks as threads: each with its own reader over the same pieces, counting what it loads.
TEST(CrfTrainShards, RanksGiveOneProcessesBitsAndOnlyRankZeroReadsEveryShard) {
  std::mt19937 rng(7);
  FeatureSet whole = RandomFeatureSet(rng, 400, kAttributes);
  const Trained one = ValueOrThrow(Train(CrfSentences(whole.sentences, whole.labels), kAttributes, Options(1, 1, true)));
  for (int processes : {2, 3}) {
    SCOPED_TRACE(std::to_string(processes) + " ranks");
    testutil::ThreadRanks ranks(processes);
    std::vector<testutil::MemoryPieceStore> stores(processes);
    std::vector<ShardedFeatureSet> sets;
    for (auto& store : stores) sets.push_back(Shard(whole, 16, &store));
    std::vector<Result<Trained>> results(processes, Status::Internal("not run"));
    std::vector<std::thread> threads;
    for (int r = 0; r < processes; ++r)
      threads.emplace_back([&, r] {
        testutil::ThreadRanks::Rank rank(&ranks, r);
        FeatureRanges ranges = ValueOrThrow(FeatureRanges::Of(sets[r], &stores[r]));
        results[r] = Train(Streamed(ranges), kAttributes, Options(1, 1, true, &rank));
      });
    for (std::thread& t : threads) t.join();
    for (int r = 0; r < processes; ++r) ExpectSameBits(ValueOrThrow(std::move(results[r])), one);
    for (int r = 1; r < processes; ++r) EXPECT_LT(stores[r].gets(), stores[0].gets()) << "rank " << r;
  }
}

TEST(CrfTrainShards, AMissingOrDamagedPieceIsAnErrorNamingIt) {
  std::mt19937 rng(3);
  FeatureSet whole = RandomFeatureSet(rng, 50, kAttributes);
  for (bool missing : {true, false}) {
    testutil::MemoryPieceStore store;
    const ShardedFeatureSet sharded = Shard(whole, 7, &store);
    const std::string piece = sharded.shards[3].piece;
    if (missing) {
      store.Erase(piece);
    } else {
      store.Overwrite(piece, "not a shard");
    }
    FeatureRanges ranges = ValueOrThrow(FeatureRanges::Of(sharded, &store));
    const Result<Trained> trained = Train(Streamed(ranges), kAttributes, Options(1, 1, true));
    ASSERT_FALSE(trained.ok());
    EXPECT_EQ(trained.status().code(), StatusCode::kCorruption) << trained.status().ToString();
    EXPECT_NE(trained.status().message().find(piece), std::string::npos) << trained.status().ToString();
  }
}

}  // namespace crf_train_shards_test
}  // namespace seqflow
