#include "nodes/hmm/viterbi.h"

#include "nodes/chain/viterbi_lanes.h"

namespace seqflow {

ChainTables HmmChainTables(const HmmParams& hmm) {
  ChainTables tables;
  tables.kind = ChainScoreKind::kProbabilities;
  tables.transition = hmm.transition;
  tables.initial = hmm.initial;
  tables.table = hmm.emission.data();
  tables.columns = hmm.emission.cols();
  return tables;
}

std::vector<int32_t> Viterbi(const HmmParams& hmm, std::span<const int32_t> obs, double* log_prob) {
  const ChainViterbiModel model = ChainViterbiLogModel(HmmChainTables(hmm));
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

std::vector<std::vector<int32_t>> ViterbiCorpus(const HmmParams& hmm,
                                                const std::vector<std::vector<int32_t>>& sentences, int threads) {
  return ChainViterbiCorpus(HmmChainTables(hmm), sentences, threads);
}

}  // namespace seqflow
