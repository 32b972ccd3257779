#include "nodes/hmm/forward_backward.h"

#include <cmath>

#include "engine/base/bytes.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/distributed_shards.h"
#include "nodes/common/parallel.h"
#include "nodes/hmm/viterbi.h"

namespace seqflow {
namespace {

// Sentences per shard: the unit of parallel work and of the fixed reduction order.

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
  Eigen::MatrixXd xi_sum;        // [K x K] xi's lanes summed: what the reduce adds
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
  shard->xi_sum.resize(K, K);
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) shard->xi_sum(i, j) = SumLanes(shard->xi[static_cast<size_t>(i) * K + j]);
  }
}

// A shard's counts as another process's rank 0 receives them (distributed_shards.h).
std::string EncodeShard(const ShardCounts& shard) {
  ByteWriter w;
  w.F64s(shard.xi_sum.data(), static_cast<size_t>(shard.xi_sum.size()));
  w.F64s(shard.initial.data(), static_cast<size_t>(shard.initial.size()));
  w.I32s(shard.symbols.data(), shard.symbols.size());
  w.F64s(shard.gammas.data(), static_cast<size_t>(shard.gammas.size()));
  w.F64(shard.log_likelihood);
  w.I64(shard.tokens);
  return w.Take();
}

Status DecodeShard(const std::string& bytes, int K, ShardCounts* shard) {
  try {
    ByteReader r(bytes);
    std::vector<double> xi = r.F64s(), initial = r.F64s();
    shard->symbols = r.I32s();
    std::vector<double> gammas = r.F64s();
    shard->log_likelihood = r.F64();
    shard->tokens = r.I64();
    r.ExpectEnd();
    const size_t n = shard->symbols.size();
    if (xi.size() != static_cast<size_t>(K) * K || initial.size() != static_cast<size_t>(K) ||
        gammas.size() != n * static_cast<size_t>(K))
      return Status::Internal("E-step shard from another process has the wrong shape");
    shard->xi_sum = Eigen::Map<const Eigen::MatrixXd>(xi.data(), K, K);
    shard->initial = Eigen::Map<const Eigen::VectorXd>(initial.data(), K);
    shard->gammas = Eigen::Map<const RowMajorMatrix>(gammas.data(), static_cast<Eigen::Index>(n), K);
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("E-step shard from another process: " + e.status().message());
  }
}

std::string EncodeCounts(const ExpectedCounts& counts) {
  ByteWriter w;
  w.F64s(counts.initial.data(), static_cast<size_t>(counts.initial.size()));
  w.F64s(counts.transition.data(), static_cast<size_t>(counts.transition.size()));
  w.F64s(counts.emission.data(), static_cast<size_t>(counts.emission.size()));
  w.F64(counts.log_likelihood);
  w.I64(counts.tokens);
  return w.Take();
}

Status DecodeCounts(const std::string& bytes, ExpectedCounts* counts) {
  try {
    ByteReader r(bytes);
    std::vector<double> initial = r.F64s(), transition = r.F64s(), emission = r.F64s();
    counts->log_likelihood = r.F64();
    counts->tokens = r.I64();
    r.ExpectEnd();
    if (initial.size() != static_cast<size_t>(counts->initial.size()) ||
        transition.size() != static_cast<size_t>(counts->transition.size()) ||
        emission.size() != static_cast<size_t>(counts->emission.size()))
      return Status::Internal("E-step counts from rank 0 have the wrong shape");
    counts->initial = Eigen::Map<const Eigen::VectorXd>(initial.data(), counts->initial.size());
    counts->transition =
        Eigen::Map<const Eigen::MatrixXd>(transition.data(), counts->transition.rows(), counts->transition.cols());
    counts->emission =
        Eigen::Map<const Eigen::MatrixXd>(emission.data(), counts->emission.rows(), counts->emission.cols());
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("E-step counts from rank 0: " + e.status().message());
  }
}

void AddShard(const ShardCounts& shard, ExpectedCounts* total) {
  const int K = static_cast<int>(total->initial.size());
  total->initial += shard.initial;
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) total->transition(i, j) += shard.xi_sum(i, j);
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
  // One process: nothing can fail.
  return CorpusExpectedCounts(hmm, sentences, threads, nullptr).value();
}

Result<ExpectedCounts> CorpusExpectedCounts(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& sentences,
                                            int threads, const ProcessGroup* group) {
  const FbModel model(hmm);
  ExpectedCounts total = ExpectedCounts::Zero(model.K, hmm.num_symbols());
  const size_t slots = OrderedSlots(threads);
  std::vector<ShardCounts> buffers(slots + 1);  // the last receives other processes' shards
  DistributedShardsFns fns;
  fns.map = [&](size_t, size_t begin, size_t end, size_t slot) {
    CountShard(model, sentences, begin, end, &buffers[slot]);
  };
  fns.encode = [&](size_t slot) { return EncodeShard(buffers[slot]); };
  fns.decode = [&](const std::string& bytes, size_t slot) { return DecodeShard(bytes, model.K, &buffers[slot]); };
  fns.reduce = [&](size_t, size_t slot) { AddShard(buffers[slot], &total); };
  SEQFLOW_RETURN_IF_ERROR(DistributedShardsOrdered(group, sentences.size(), kExpectedCountShardSentences, threads, slots, fns));
  if (GroupSize(group) > 1) {
    std::string bytes = group->rank() == 0 ? EncodeCounts(total) : std::string();
    SEQFLOW_RETURN_IF_ERROR(group->Broadcast(0, &bytes));
    if (group->rank() != 0) SEQFLOW_RETURN_IF_ERROR(DecodeCounts(bytes, &total));
  }
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

ExpectedCounts LabeledSentenceCounts(int num_states, int num_symbols, const std::vector<std::vector<int32_t>>& words,
                                     const std::vector<std::vector<int32_t>>& labels) {
  ExpectedCounts counts = ExpectedCounts::Zero(num_states, num_symbols);
  for (size_t s = 0; s < labels.size(); ++s) {
    const std::vector<int32_t>& y = labels[s];
    if (y.empty()) continue;
    counts.initial[y[0]] += 1;
    for (size_t t = 0; t < y.size(); ++t) {
      counts.emission(y[t], words[s][t]) += 1;
      if (t + 1 < y.size()) counts.transition(y[t], y[t + 1]) += 1;
    }
    counts.tokens += static_cast<int64_t>(y.size());
  }
  return counts;
}

}  // namespace seqflow
