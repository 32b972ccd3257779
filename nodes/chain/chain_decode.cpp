#include "nodes/chain/chain_decode.h"

#include <algorithm>
#include <array>

#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/chain/lane_posterior_corpus.h"
#include "nodes/chain/second_order_decode.h"
#include "nodes/chain/viterbi_f32_lanes.h"
#include "nodes/chain/viterbi_lanes.h"
#include "nodes/common/parallel.h"
#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {


// Lanes 0 .. n-1 hold sentences order[first .. first + n); sizes their paths (call before
// PathPointers).
template <int L>
LaneBatch<L> MakeBatch(const std::vector<std::vector<int32_t>>& sentences, const std::vector<size_t>& order,
                       size_t first, size_t n, std::vector<std::vector<int32_t>>* paths) {
  LaneBatch<L> batch;
  for (size_t l = 0; l < n; ++l) {
    const size_t s = order[first + l];
    batch.obs[l] = sentences[s];
    (*paths)[s].resize(sentences[s].size());
    batch.length = std::max(batch.length, batch.len(static_cast<int>(l)));
  }
  return batch;
}

template <int L>
std::array<int32_t*, L> PathPointers(const std::vector<size_t>& order, size_t first, size_t n,
                                     std::vector<std::vector<int32_t>>* paths) {
  std::array<int32_t*, L> out{};
  for (size_t l = 0; l < n; ++l) out[l] = (*paths)[order[first + l]].data();
  return out;
}

// Decodes sentences[order[k]] for k in [begin, end) in double, kLanes at a time.
void DecodeExact(const ChainViterbiModel& model, const ChainViterbiTable& table,
                 const std::vector<std::vector<int32_t>>& sentences, const std::vector<size_t>& order, size_t begin,
                 size_t end, ChainViterbiWork* work, std::vector<std::vector<int32_t>>* paths) {
  for (size_t first = begin; first < end; first += kLanes) {
    const size_t n = std::min<size_t>(kLanes, end - first);
    const auto batch = MakeBatch<kLanes>(sentences, order, first, n, paths);
    std::array<double, kLanes> scores;
    ChainViterbiRun(model, table, batch, work, PathPointers<kLanes>(order, first, n, paths), &scores);
  }
}

// Log-scores: every sentence in double lanes, longest first within each shard.
std::vector<std::vector<int32_t>> ViterbiScores(const ChainTables& tables,
                                                const std::vector<std::vector<int32_t>>& sentences, int threads) {
  const ChainViterbiModel model = ChainViterbiLogModel(tables);
  const ChainViterbiTable table{tables.table, /*take_log=*/false};
  std::vector<std::vector<int32_t>> paths(sentences.size());
  std::vector<ChainViterbiWork> slots(OrderedSlots(threads));
  ParallelShardsOrdered(
      sentences.size(), kDecodeShardSize, threads, slots.size(),
      [&](size_t, size_t begin, size_t end, size_t slot) {
        const std::vector<size_t> order = LengthSortedOrder(sentences, begin, end);
        DecodeExact(model, table, sentences, order, 0, order.size(), &slots[slot], &paths);
      },
      [](size_t, size_t) {});
  return paths;
}

// Probabilities: two passes, every sentence in float with a certificate (viterbi_f32_lanes.h),
// then the few uncertified ones (near-ties, impossible sentences; ~2% on random HMMs) in double,
// gathered across shards so that their lane batches are full.
std::vector<std::vector<int32_t>> ViterbiProbabilities(const ChainTables& tables,
                                                       const std::vector<std::vector<int32_t>>& sentences,
                                                       int threads) {
  const ChainViterbiModel model = ChainViterbiLogModel(tables);
  Eigen::MatrixXd log_table = Eigen::Map<const Eigen::MatrixXd>(tables.table, model.K, tables.columns);
  LogInPlace(log_table.data(), static_cast<size_t>(log_table.size()));  // [K x columns]
  const ChainViterbiTable table{log_table.data(), /*take_log=*/false};
  const ViterbiF32Model model_f32(model, log_table.data(), log_table.cols());
  std::vector<std::vector<int32_t>> paths(sentences.size());
  struct Slot {
    ViterbiF32Work f32;
    ChainViterbiWork f64;
    std::vector<size_t> uncertified;
  };
  std::vector<Slot> slots(OrderedSlots(threads));
  std::vector<size_t> uncertified;
  auto decode = [&](size_t, size_t begin, size_t end, size_t slot) {
    const std::vector<size_t> order = LengthSortedOrder(sentences, begin, end);
    slots[slot].uncertified.clear();
    for (size_t first = 0; first < order.size(); first += kF32Lanes) {
      const size_t n = std::min<size_t>(kF32Lanes, order.size() - first);
      const auto batch = MakeBatch<kF32Lanes>(sentences, order, first, n, &paths);
      std::array<bool, kF32Lanes> certified;
      ViterbiF32Run(model_f32, batch, &slots[slot].f32, PathPointers<kF32Lanes>(order, first, n, &paths), &certified);
      for (size_t l = 0; l < n; ++l) {
        if (!certified[l]) slots[slot].uncertified.push_back(order[first + l]);
      }
    }
  };
  auto collect = [&](size_t, size_t slot) {
    uncertified.insert(uncertified.end(), slots[slot].uncertified.begin(), slots[slot].uncertified.end());
  };
  ParallelShardsOrdered(sentences.size(), kDecodeShardSize, threads, slots.size(), decode, collect);
  ParallelShardsOrdered(
      uncertified.size(), kDecodeShardSize, threads, slots.size(),
      [&](size_t, size_t begin, size_t end, size_t slot) {
        DecodeExact(model, table, sentences, uncertified, begin, end, &slots[slot].f64, &paths);
      },
      [](size_t, size_t) {});
  return paths;
}

}  // namespace

// For probabilities each table is taken by its own Eigen expression, as the HMM always did:
// Eigen's vectorised log and std::log may differ in the last bit, and the decoded paths are to
// stay bit for bit the same.
ChainViterbiModel ChainViterbiLogModel(const ChainTables& tables) {
  if (tables.kind == ChainScoreKind::kLogScores) return ChainViterbiModel::FromLogPotentials(tables.transition);
  const int K = tables.num_labels();
  ChainViterbiModel model;
  model.K = K;
  model.log_initial =
      tables.initial.size() > 0 ? Eigen::VectorXd(tables.initial.array().unaryExpr(&Log)) : Eigen::VectorXd::Zero(K);
  model.log_a_ext = Eigen::MatrixXd::Zero(K, K + 1);
  model.log_a_ext.leftCols(K) = tables.transition.array().unaryExpr(&Log);
  model.log_a_row_major = tables.transition.transpose().array().unaryExpr(&Log);
  return model;
}

std::vector<int32_t> ArgMaxRows(const double* rows, int T, int K) {
  std::vector<int32_t> out(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) {
    Eigen::Index best = 0;
    Eigen::Map<const Eigen::RowVectorXd>(rows + static_cast<size_t>(t) * K, K).maxCoeff(&best);
    out[static_cast<size_t>(t)] = static_cast<int32_t>(best);
  }
  return out;
}

std::vector<std::vector<int32_t>> ChainViterbiCorpus(const ChainTables& tables,
                                                     const std::vector<std::vector<int32_t>>& sentences, int threads) {
  if (tables.trigram.size() > 0) return SecondOrderViterbiCorpus(tables, sentences, threads);
  return tables.kind == ChainScoreKind::kProbabilities ? ViterbiProbabilities(tables, sentences, threads)
                                                       : ViterbiScores(tables, sentences, threads);
}

std::vector<std::vector<int32_t>> ChainPosteriorCorpus(const ChainTables& tables,
                                                       const std::vector<std::vector<int32_t>>& sentences, int threads,
                                                       std::vector<std::vector<double>>* marginals) {
  if (tables.trigram.size() > 0) return SecondOrderPosteriorCorpus(tables, sentences, threads, marginals);
  const int K = tables.num_labels();
  const bool probabilities = tables.kind == ChainScoreKind::kProbabilities;
  const ChainPotentials potentials{
      tables.table, probabilities ? ChainPotentials::Kind::kProbabilities : ChainPotentials::Kind::kLogScores,
      tables.initial.size() > 0 ? tables.initial.data() : nullptr};
  const ChainLanesTransition transition = probabilities ? ChainLanesTransition::FromProbabilities(tables.transition)
                                                        : ChainLanesTransition::FromLogPotentials(tables.transition);
  return LanePosteriorCorpus<ChainLanesWork>(
      sentences, K, threads, marginals,
      [&](const LaneBatch<kLanes>& batch, ChainLanesWork& work, const std::array<double*, kLanes>& rows) {
        ChainLanesForwardBackward<double>(potentials, transition, batch, work, rows, nullptr);
      });
}

}  // namespace seqflow
