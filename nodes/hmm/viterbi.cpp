#include "nodes/hmm/viterbi.h"

#include <algorithm>

#include "nodes/chain/viterbi_f32_lanes.h"
#include "nodes/chain/viterbi_lanes.h"
#include "nodes/common/parallel.h"

namespace seqflow {
namespace {

constexpr size_t kShardSize = 64;

// log π and log A of the HMM as the chain kernels read them. Not FromLogPotentials: each table is
// taken by its own Eigen expression, as before the chain library, because Eigen's vectorised log
// and std::log may differ in the last bit and the decoded paths are to stay bit for bit the same.
ChainViterbiModel LogTables(const HmmParams& hmm) {
  ChainViterbiModel model;
  model.K = hmm.num_states();
  model.log_initial = hmm.initial.array().log();
  model.log_a_ext = Eigen::MatrixXd::Zero(model.K, model.K + 1);
  model.log_a_ext.leftCols(model.K) = hmm.transition.array().log();
  model.log_a_row_major = hmm.transition.transpose().array().log();
  return model;
}

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

}  // namespace

std::vector<int32_t> Viterbi(const HmmParams& hmm, std::span<const int32_t> obs, double* log_prob) {
  const ChainViterbiModel model = LogTables(hmm);
  LaneBatch<kLanes> batch;  // lane 0 only: see SingleBatch in forward_backward.cpp
  batch.obs[0] = obs;
  batch.length = static_cast<int>(obs.size());
  std::vector<int32_t> path(obs.size());
  ChainViterbiWork work;
  std::array<double, kLanes> score{};
  ChainViterbiRun(model, {hmm.emission.data(), /*take_log=*/true}, batch, &work, {path.data()}, &score);
  if (log_prob != nullptr) *log_prob = score[0];
  return path;
}

// Two passes: every sentence in float with a certificate (viterbi_f32_lanes.h), then the few
// uncertified ones (near-ties, impossible sentences; ~2% on random HMMs) in double, gathered
// across shards so that their lane batches are full.
std::vector<std::vector<int32_t>> ViterbiCorpus(const HmmParams& hmm,
                                                const std::vector<std::vector<int32_t>>& sentences, int threads) {
  const ChainViterbiModel model = LogTables(hmm);
  const Eigen::MatrixXd log_emission = hmm.emission.array().log();  // [K x V]
  const ChainViterbiTable table{log_emission.data(), /*take_log=*/false};
  const ViterbiF32Model model_f32(model, log_emission.data(), log_emission.cols());
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
  ParallelShardsOrdered(sentences.size(), kShardSize, threads, slots.size(), decode, collect);
  ParallelShardsOrdered(
      uncertified.size(), kShardSize, threads, slots.size(),
      [&](size_t, size_t begin, size_t end, size_t slot) {
        DecodeExact(model, table, sentences, uncertified, begin, end, &slots[slot].f64, &paths);
      },
      [](size_t, size_t) {});
  return paths;
}

}  // namespace seqflow
