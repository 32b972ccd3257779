#include "nodes/hmm/forward_backward.h"

#include <cmath>

#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/parallel.h"
#include "nodes/hmm/viterbi.h"

namespace seqflow {
namespace {

// Sentences per shard: the unit of parallel work and of the fixed reduction order.
constexpr size_t kShardSize = 64;

using RowMajorMatrix = RowMatrixXd;

// The HMM as a chain: potentials are the emission columns of the symbols, π weights position 0.
struct FbModel {
  explicit FbModel(const HmmParams& params)
      : K(params.num_states()),
        potentials{params.emission.data(), ChainPotentials::Kind::kProbabilities, params.initial.data()},
        transition(ChainLanesTransition::FromProbabilities(params.transition)) {}
  int K;
  ChainPotentials potentials;
  ChainLanesTransition transition;
};

// Both passes on a batch; returns log p(x) per lane and adds the lanes' Σ_t α_t(i) W_t+1(j) to xi
// unless it is null.
std::array<double, kLanes> RunBatch(const FbModel& model, const LaneBatch<kLanes>& batch, ChainLanesWork* work,
                                    const std::array<double*, kLanes>& gamma_rows, Lanes<kLanes>* xi) {
  return ChainLanesForwardBackward<double>(model.potentials, model.transition, batch, *work, gamma_rows, xi);
}

// One sentence in lane 0 of a full-width batch: an AVX-512 instruction costs what a scalar one
// does, and GCC compiles one-element vector types poorly.
LaneBatch<kLanes> SingleBatch(std::span<const int32_t> obs) {
  LaneBatch<kLanes> batch;
  batch.obs[0] = obs;
  batch.length = static_cast<int>(obs.size());
  return batch;
}

// Posteriors of one sentence, row-major [T x K]; returns log p(obs).
double SentencePosteriors(const FbModel& model, std::span<const int32_t> obs, ChainLanesWork* work,
                          RowMajorMatrix* gamma, Lanes<kLanes>* xi) {
  gamma->resize(static_cast<Eigen::Index>(obs.size()), model.K);
  return RunBatch(model, SingleBatch(obs), work, {gamma->data()}, xi)[0];
}

// One shard's counts. Emission counts stay as (symbol, gamma row) pairs until the ordered
// reduce, which keeps a shard's memory proportional to its tokens instead of K x V.
struct ShardCounts {
  ChainLanesWork work;
  LaneVector<Lanes<kLanes>> xi;  // [K x K] per lane, before the product with A
  Eigen::VectorXd initial;        // [K]
  std::vector<int32_t> symbols;   // [n] the shard's tokens, in batch order
  RowMajorMatrix gammas;          // [n x K] their posteriors (0 in impossible sentences)
  double log_likelihood = 0;
  int64_t tokens = 0;
};

void CountShard(const FbModel& model, const std::vector<std::vector<int32_t>>& sentences, size_t begin, size_t end,
                ShardCounts* shard) {
  const int K = model.K;
  const std::vector<size_t> order = LengthSortedOrder(sentences, begin, end);
  shard->xi.assign(static_cast<size_t>(K) * K, Lanes<kLanes>{});
  shard->initial.setZero(K);
  shard->symbols.clear();
  shard->log_likelihood = 0;
  shard->tokens = 0;
  for (size_t s : order) shard->tokens += static_cast<int64_t>(sentences[s].size());
  shard->gammas.resize(shard->tokens, K);
  for (size_t first = 0; first < order.size(); first += kLanes) {
    LaneBatch<kLanes> batch;
    std::array<double*, kLanes> rows{};
    for (int l = 0; l < kLanes && first + l < order.size(); ++l) {
      batch.obs[l] = sentences[order[first + l]];
      rows[l] = shard->gammas.row(static_cast<Eigen::Index>(shard->symbols.size())).data();
      shard->symbols.insert(shard->symbols.end(), batch.obs[l].begin(), batch.obs[l].end());
    }
    batch.length = batch.len(0);  // longest first
    const std::array<double, kLanes> log_likelihood = RunBatch(model, batch, &shard->work, rows, shard->xi.data());
    for (int l = 0; l < kLanes && rows[l] != nullptr; ++l) {
      shard->log_likelihood += log_likelihood[l];
      shard->initial += Eigen::Map<const Eigen::VectorXd>(rows[l], K);
    }
  }
}

void AddShard(const ShardCounts& shard, ExpectedCounts* total) {
  const int K = static_cast<int>(total->initial.size());
  total->initial += shard.initial;
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) total->transition(i, j) += SumLanes(shard.xi[static_cast<size_t>(i) * K + j]);
  }
  // Plain loops: at K = 12 Eigen's per-column alignment peeling costs more than the adds.
  const size_t n = shard.symbols.size();
  for (size_t r = 0; r < n; ++r) {
    if (r + 8 < n) __builtin_prefetch(total->emission.data() + static_cast<size_t>(shard.symbols[r + 8]) * K, 1);
    double* col = total->emission.data() + static_cast<size_t>(shard.symbols[r]) * K;
    const double* g = shard.gammas.data() + r * K;
    for (int i = 0; i < K; ++i) col[i] += g[i];
  }
  total->log_likelihood += shard.log_likelihood;
  total->tokens += shard.tokens;
}

}  // namespace

ExpectedCounts ExpectedCounts::Zero(int K, int V) {
  ExpectedCounts c;
  c.initial = Eigen::VectorXd::Zero(K);
  c.transition = Eigen::MatrixXd::Zero(K, K);
  c.emission = Eigen::MatrixXd::Zero(K, V);
  return c;
}

void ExpectedCounts::Add(const ExpectedCounts& other, double weight) {
  initial += weight * other.initial;
  transition += weight * other.transition;
  emission += weight * other.emission;
  log_likelihood += other.log_likelihood;
  tokens += other.tokens;
}

double ForwardBackward(const HmmParams& hmm, std::span<const int32_t> obs, Eigen::MatrixXd* gamma) {
  const FbModel model(hmm);
  ChainLanesWork work;
  RowMajorMatrix rows;
  const double ll = SentencePosteriors(model, obs, &work, &rows, nullptr);
  if (gamma != nullptr) *gamma = rows;
  return ll;
}

double AccumulateExpectedCounts(const HmmParams& hmm, std::span<const int32_t> obs, double weight,
                                ExpectedCounts* counts) {
  const FbModel model(hmm);
  const int K = model.K;
  const int T = static_cast<int>(obs.size());
  ChainLanesWork work;
  RowMajorMatrix gamma;
  LaneVector<Lanes<kLanes>> xi(static_cast<size_t>(K) * K, Lanes<kLanes>{});
  const double ll = SentencePosteriors(model, obs, &work, &gamma, xi.data());
  counts->log_likelihood += ll;
  counts->tokens += T;
  if (!std::isfinite(ll)) return ll;
  counts->initial += weight * gamma.row(0).transpose();
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) counts->transition(i, j) += weight * hmm.transition(i, j) * xi[i * K + j][0];
  }
  for (int t = 0; t < T; ++t) counts->emission.col(obs[t]) += weight * gamma.row(t).transpose();
  return ll;
}

ExpectedCounts CorpusExpectedCounts(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& sentences,
                                    int threads) {
  const FbModel model(hmm);
  ExpectedCounts total = ExpectedCounts::Zero(model.K, hmm.num_symbols());
  std::vector<ShardCounts> slots(OrderedSlots(threads));
  ParallelShardsOrdered(
      sentences.size(), kShardSize, threads, slots.size(),
      [&](size_t, size_t begin, size_t end, size_t slot) { CountShard(model, sentences, begin, end, &slots[slot]); },
      [&](size_t, size_t slot) { AddShard(slots[slot], &total); });
  // xi(i, j) = A(i, j) sum_t alpha_t(i) W_t+1(j): the common factor A(i, j) is applied once.
  total.transition = total.transition.cwiseProduct(hmm.transition);
  return total;
}

std::vector<int32_t> PosteriorDecode(const HmmParams& hmm, std::span<const int32_t> obs, Eigen::MatrixXd* gamma) {
  const FbModel model(hmm);
  ChainLanesWork work;
  RowMajorMatrix rows;
  SentencePosteriors(model, obs, &work, &rows, nullptr);
  if (gamma != nullptr) *gamma = rows;
  return ArgMaxRows(rows.data(), static_cast<int>(rows.rows()), model.K);
}

std::vector<std::vector<int32_t>> PosteriorDecodeCorpus(const HmmParams& hmm,
                                                        const std::vector<std::vector<int32_t>>& sentences, int threads,
                                                        std::vector<Eigen::MatrixXd>* gammas) {
  std::vector<std::vector<double>> rows;
  std::vector<std::vector<int32_t>> labels =
      ChainPosteriorCorpus(HmmChainTables(hmm), sentences, threads, gammas != nullptr ? &rows : nullptr);
  if (gammas == nullptr) return labels;
  const int K = hmm.num_states();
  gammas->resize(sentences.size());
  for (size_t s = 0; s < sentences.size(); ++s)
    (*gammas)[s] = Eigen::Map<const RowMajorMatrix>(rows[s].data(), static_cast<Eigen::Index>(sentences[s].size()), K);
  return labels;
}

}  // namespace seqflow
