// The hybrid chain's potentials, E-step, M-step and Γ likelihood (hybrid_chain.h).
#include "nodes/crf/hybrid_chain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "engine/base/bytes.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/chain/second_order_lanes.h"
#include "nodes/common/distributed_shards.h"
#include "nodes/common/lanes.h"
#include "nodes/common/parallel.h"
#include "nodes/common/portable_math.h"

namespace seqflow {

namespace {

constexpr size_t kShard = 64;  // sentences per parallel shard
// Blocks of UnlabeledHybrid (whose marginals the E-step holds at once) start on shard boundaries.
static_assert(kHybridBlockSentences % kShard == 0);

Eigen::Index NumExperts(const ExpertTransitions& experts) { return static_cast<Eigen::Index>(experts.size()); }

void Normalize(Eigen::Ref<Eigen::VectorXd> weights, Eigen::Ref<Eigen::VectorXd> log_out) {
  const double total = weights.sum();
  if (!(total > 0)) {
    log_out.setConstant(-Log(static_cast<double>(weights.size())));
    return;
  }
  for (Eigen::Index v = 0; v < weights.size(); ++v) log_out(v) = std::max(kLogFloor, Log(weights(v) / total));
}

// R's transitions in the form the chain library's lane kernels read: first order ([K x K]
// weights) or second order (trigram rows [(K+1) K x K]).
struct HybridLattice {
  HybridLattice(const RowMatrixXd& weights, Eigen::Index K) : second_order(weights.rows() != K) {
    if (second_order) {
      second = SecondOrderTransition::FromLogPotentials(
          Eigen::Map<const Eigen::VectorXd>(weights.data(), weights.size()), static_cast<int>(K));
    } else {
      first = ChainLanesTransition::FromLogPotentials(weights);
    }
  }
  // counts (the weights' shape, row-major) += the expected transition counts in xi; zeroes xi.
  void AddCounts(Lanes<kLanes>* xi, double* counts) const {
    if (second_order) {
      SecondOrderAddTrigrams(second, xi, counts);
    } else {
      ChainLanesAddBigrams(first, xi, counts);
    }
  }
  bool second_order;
  ChainLanesTransition first;
  SecondOrderTransition second;
};

// Σ_a of trigram rows [(K+1) K x K]: the bigram counts; a [K x K] matrix as it is.
RowMatrixXd SumOverFirstTag(const RowMatrixXd& counts, Eigen::Index K) {
  if (counts.rows() == K) return counts;
  RowMatrixXd sum = RowMatrixXd::Zero(K, K);
  for (Eigen::Index a = 0; a <= K; ++a) sum += counts.middleRows(a * K, K);
  return sum;
}

// One slot's buffers for running a shard of sentences through the chain library's lane
// forward-backward.
struct ShardLanes {
  std::vector<double> scores;     // [shard tokens x K] row-major, row r = token offsets[begin] + r
  std::vector<int32_t> row_ids;   // ChainRowIds of `scores`
  std::vector<double> log_z;      // [end - begin]
  LaneVector<Lanes<kLanes>> xi;  // [K x K] (or trigram rows) Σ_t α_{t-1} W_t per lane
  ChainLanesWork work;
  SecondOrderWork second_order_work;
};

// Runs the sentences [begin, end) through the lane forward-backward, kLanes of similar length at
// a time in a fixed order (so sums do not depend on the thread): score(n, rows) writes sentence
// n's scores [T x K] into the shard's table first; marginal_row(n) is where its marginals go
// (null: nowhere); with `bigrams`, lanes->xi receives Σ α W (zeroed here). log Z of sentence n
// lands in lanes->log_z[n - begin] (0 for an empty sentence).
template <class Score, class MarginalRow>
void RunShard(const HybridCorpus& corpus, size_t begin, size_t end, const HybridLattice& transition, bool bigrams,
              ShardLanes* lanes, Score score, MarginalRow marginal_row) {
  const Eigen::Index K = corpus.num_labels;
  const int64_t base = corpus.offsets[begin];
  const int64_t tokens = corpus.offsets[end] - base;
  lanes->scores.resize(static_cast<size_t>(tokens * K));
  for (size_t n = begin; n < end; ++n) {
    const int64_t first = corpus.offsets[n];
    score(n, Eigen::Map<RowMatrixXd>(lanes->scores.data() + (first - base) * K, corpus.offsets[n + 1] - first, K));
  }
  const std::span<const int32_t> row_ids = ChainRowIds(static_cast<size_t>(tokens), &lanes->row_ids);
  const ChainPotentials potentials{lanes->scores.data(), ChainPotentials::Kind::kLogScores, nullptr};
  lanes->log_z.assign(end - begin, 0.0);
  if (bigrams) {
    const int64_t cells = transition.second_order ? TrigramSize(static_cast<int>(K)) : K * K;
    lanes->xi.assign(static_cast<size_t>(cells), Lanes<kLanes>{});
  }
  const std::vector<size_t> order =
      LengthSortedOrder(begin, end, [&](size_t n) { return corpus.offsets[n + 1] - corpus.offsets[n]; });
  for (size_t b = 0; b < order.size(); b += kLanes) {
    LaneBatch<kLanes> batch;
    std::array<double*, kLanes> rows{};
    for (size_t l = 0; l < kLanes && b + l < order.size(); ++l) {
      const size_t n = order[b + l];
      batch.obs[l] = row_ids.subspan(corpus.offsets[n] - base, corpus.offsets[n + 1] - corpus.offsets[n]);
      batch.length = std::max(batch.length, batch.len(static_cast<int>(l)));
      rows[l] = marginal_row(n);
    }
    Lanes<kLanes>* xi = bigrams ? lanes->xi.data() : nullptr;
    const std::array<double, kLanes> log_z =
        transition.second_order
            ? SecondOrderForwardBackward<double>(lanes->scores.data(), transition.second, batch,
                                                 lanes->second_order_work, rows, {}, xi)
            : ChainLanesForwardBackward<double>(potentials, transition.first, batch, lanes->work, rows, xi);
    for (size_t l = 0; l < kLanes && b + l < order.size(); ++l) lanes->log_z[order[b + l] - begin] = log_z[l];
  }
}

// Per-slot sums of the Γ likelihood pass.
struct LikelihoodSlot {
  double value = 0;
  Eigen::VectorXd token_terms;         // [I + J] Σ_t φ_m(t, y_t) − E[φ_m(t, ·)]
  RowMatrixXd bigram_difference;       // expected − gold bigram (or trigram-row) counts
  Eigen::VectorXd initial_difference;  // gold − expected first-label counts
  ShardLanes lanes;
  RowMatrixXd marginals;      // [shard tokens x K]
  std::vector<int32_t> gold;  // one sentence's labels
  void Reset(Eigen::Index models, Eigen::Index transition_rows, Eigen::Index labels) {
    value = 0;
    token_terms.setZero(models);
    bigram_difference.setZero(transition_rows, labels);
    initial_difference.setZero(labels);
  }
};

// A slot's sums (not its scratch) as bytes, between MPI ranks.
std::string EncodeSums(const LikelihoodSlot& s) {
  ByteWriter w;
  w.F64(s.value);
  w.F64s(s.token_terms.data(), static_cast<size_t>(s.token_terms.size()));
  w.F64s(s.bigram_difference.data(), static_cast<size_t>(s.bigram_difference.size()));
  w.F64s(s.initial_difference.data(), static_cast<size_t>(s.initial_difference.size()));
  return w.Take();
}

// Into a slot Reset to the same shapes.
Status DecodeSums(const std::string& bytes, LikelihoodSlot* s) {
  try {
    ByteReader r(bytes);
    s->value = r.F64();
    const std::vector<double> terms = r.F64s(), bigrams = r.F64s(), initial = r.F64s();
    r.ExpectEnd();
    if (terms.size() != static_cast<size_t>(s->token_terms.size()) ||
        bigrams.size() != static_cast<size_t>(s->bigram_difference.size()) ||
        initial.size() != static_cast<size_t>(s->initial_difference.size()))
      return Status::Internal("Γ likelihood sums from another process have the wrong shape");
    std::copy(terms.begin(), terms.end(), s->token_terms.data());
    std::copy(bigrams.begin(), bigrams.end(), s->bigram_difference.data());
    std::copy(initial.begin(), initial.end(), s->initial_difference.data());
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("Γ likelihood sums from another process: " + e.status().message());
  }
}

// log θ_j(· → x_t^j) of token `token` (a corpus row): from its table, or from GatherEmissions.
auto EmissionRow(const HybridCorpus& corpus, const GenerativeParams& theta, const RowMatrixXd* gathered,
                 int64_t token, int j) {
  const Eigen::Index labels = corpus.num_labels;
  return gathered ? gathered->row(token).segment(j * labels, labels)
                  : theta.log_emission[j].row(corpus.symbols(token, j)).segment(0, labels);
}

// s of hybrid_chain.h for sentence n into `scores` [T x K].
void FillScores(const HybridCorpus& corpus, size_t n, const GenerativeParams& theta, const Eigen::VectorXd& gamma,
                const RowMatrixXd* gathered, Eigen::Map<RowMatrixXd> scores) {
  const int64_t begin = corpus.offsets[n];
  const Eigen::Index length = scores.rows();
  const Eigen::Index experts = static_cast<Eigen::Index>(corpus.expert_scores.size());
  scores.setZero();
  for (Eigen::Index i = 0; i < experts; ++i)
    scores += gamma(i) * corpus.expert_scores[i].middleRows(begin, length).cast<double>();
  // Each score gets the same terms in the same order either way (log π_j right after token 0's
  // emission of HMM j): the same bits. The gathered rows are read in memory order.
  const auto add_hmm = [&](int j, Eigen::Index t) {
    const double weight = gamma(experts + j);
    scores.row(t) += weight * EmissionRow(corpus, theta, gathered, begin + t, j);
    if (t == 0) scores.row(0) += weight * theta.log_initial[j].transpose();
  };
  if (gathered) {
    for (Eigen::Index t = 0; t < length; ++t)
      for (int j = 0; j < theta.num_models(); ++j) add_hmm(j, t);
  } else {
    for (int j = 0; j < theta.num_models(); ++j)
      for (Eigen::Index t = 0; t < length; ++t) add_hmm(j, t);
  }
}

// Rank 0's sums go to every rank (bit for bit), so every rank makes the same M-step.
Status ShareCounts(const ProcessGroup* processes, double* log_likelihood, RowMatrixXd* transition_counts,
                   GenerativeCounts* counts) {
  if (processes == nullptr || processes->size() == 1) return Status::Ok();
  std::string bytes;
  if (processes->rank() == 0) {
    ByteWriter w;
    w.F64(*log_likelihood);
    w.F64s(transition_counts->data(), static_cast<size_t>(transition_counts->size()));
    w.F64s(counts->initial.data(), static_cast<size_t>(counts->initial.size()));
    for (const RowMatrixXd& emission : counts->emission) w.F64s(emission.data(), static_cast<size_t>(emission.size()));
    bytes = w.Take();
  }
  SEQFLOW_RETURN_IF_ERROR(processes->Broadcast(0, &bytes));
  if (processes->rank() == 0) return Status::Ok();
  try {
    ByteReader r(bytes);
    *log_likelihood = r.F64();
    auto read_into = [&r](double* data, Eigen::Index size) {
      const std::vector<double> values = r.F64s();
      if (values.size() != static_cast<size_t>(size)) return false;
      std::copy(values.begin(), values.end(), data);
      return true;
    };
    bool shaped = read_into(transition_counts->data(), transition_counts->size()) &&
                  read_into(counts->initial.data(), counts->initial.size());
    for (RowMatrixXd& emission : counts->emission) shaped = shaped && read_into(emission.data(), emission.size());
    r.ExpectEnd();
    if (!shaped) return Status::Internal("HySOL E-step counts from rank 0 have the wrong shape");
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("HySOL E-step counts from rank 0: " + e.status().message());
  }
}

}  // namespace

Status UnlabeledHybrid::ForEachBlock(const BlockVisitor& visit) const {
  const size_t sentences = num_sentences();
  for (size_t block = 0; block < sentences; block += kHybridBlockSentences) {
    const size_t block_end = std::min(sentences, block + kHybridBlockSentences);
    if (resident_ != nullptr) {
      visit(*resident_, block, block_end);
      continue;
    }
    Result<HybridCorpus> built = build_(block, block_end);
    if (!built.ok()) return built.status();
    if (built->num_sentences() != block_end - block)
      return Status::Internal(fmt::format("a block of the unlabeled text was built with {} sentences instead of {}",
                                          built->num_sentences(), block_end - block));
    visit(*built, 0, block_end - block);
  }
  return Status::Ok();
}

RowMatrixXd HybridTransition(const ExpertTransitions& experts, const GenerativeParams& theta,
                             const Eigen::VectorXd& gamma) {
  const Eigen::Index experts_n = NumExperts(experts);
  const Eigen::Index k = experts.empty() ? theta.log_transition.at(0).rows() : experts[0].cols();
  const Eigen::Index rows = experts.empty() ? k : experts[0].rows();
  RowMatrixXd transition = RowMatrixXd::Zero(rows, k);
  for (Eigen::Index i = 0; i < experts_n; ++i) transition += gamma(i) * experts[i];
  for (int j = 0; j < theta.num_models(); ++j) {
    for (Eigen::Index a = 0; a < rows / k; ++a)
      transition.middleRows(a * k, k) += gamma(experts_n + j) * theta.log_transition[j];
  }
  return transition;
}

void HybridScores(const HybridCorpus& corpus, size_t n, const GenerativeParams& theta, const Eigen::VectorXd& gamma,
                  RowMatrixXd& scores) {
  scores.resize(corpus.offsets[n + 1] - corpus.offsets[n], corpus.num_labels);
  FillScores(corpus, n, theta, gamma, nullptr, Eigen::Map<RowMatrixXd>(scores.data(), scores.rows(), scores.cols()));
}

double HybridExpectedCounts(const UnlabeledHybrid& corpus, const ExpertTransitions& experts,
                            const GenerativeParams& theta, const Eigen::VectorXd& gamma, int threads,
                            GenerativeCounts& counts, const ProcessGroup* processes) {
  const int models = theta.num_models();
  const RowMatrixXd transition_weights = HybridTransition(experts, theta, gamma);
  const Eigen::Index labels = transition_weights.cols();
  const HybridLattice transition(transition_weights, labels);
  counts.initial.setZero(labels);
  counts.transition.setZero(labels, labels);
  RowMatrixXd transition_counts = RowMatrixXd::Zero(transition_weights.rows(), labels);
  counts.emission.resize(models);
  for (int j = 0; j < models; ++j) counts.emission[j].setZero(theta.log_emission[j].rows(), labels);

  // One more slot than the threads use receives other processes' shards.
  const size_t slots = OrderedSlots(threads);
  std::vector<ShardLanes> slot_lanes(slots);
  std::vector<RowMatrixXd> slot_bigrams(slots + 1, RowMatrixXd::Zero(transition_weights.rows(), labels));
  std::vector<double> slot_log_z(slots + 1, 0.0);
  std::vector<size_t> slot_shard(slots + 1, 0);
  const bool root = processes == nullptr || processes->rank() == 0;
  double log_likelihood = 0;
  RowMatrixXd marginals;
  bool exchanged = true;
  // Sentences [block, block_end) of `data`, a block of the unlabeled text.
  auto visit = [&](const HybridCorpus& data, size_t block, size_t block_end) {
    if (!exchanged) return;  // another block failed: every rank stops alike
    const int64_t base = data.offsets[block];
    marginals.resize(data.offsets[block_end] - base, labels);
    // Rows [first, last) of `marginals` hold the block's shard `shard`.
    auto shard_rows = [&](size_t shard) {
      const size_t begin = block + shard * kShard, end = std::min(block_end, begin + kShard);
      return std::pair<int64_t, int64_t>(data.offsets[begin] - base, data.offsets[end] - base);
    };
    DistributedShardsFns fns;
    fns.map = [&](size_t shard, size_t begin, size_t end, size_t slot) {
      slot_shard[slot] = shard;
      ShardLanes& lanes = slot_lanes[slot];
      RunShard(
          data, block + begin, block + end, transition, true, &lanes,
          [&](size_t n, Eigen::Map<RowMatrixXd> rows) { FillScores(data, n, theta, gamma, nullptr, rows); },
          [&](size_t n) { return marginals.row(data.offsets[n] - base).data(); });
      for (double z : lanes.log_z) slot_log_z[slot] += z;
      transition.AddCounts(lanes.xi.data(), slot_bigrams[slot].data());
    };
    fns.encode = [&](size_t slot) {
      const auto [first, last] = shard_rows(slot_shard[slot]);
      ByteWriter w;
      w.U64(slot_shard[slot]);
      w.F64(slot_log_z[slot]);
      w.F64s(slot_bigrams[slot].data(), static_cast<size_t>(slot_bigrams[slot].size()));
      w.F64s(marginals.row(first).data(), static_cast<size_t>((last - first) * labels));
      slot_log_z[slot] = 0;
      slot_bigrams[slot].setZero();
      return w.Take();
    };
    fns.decode = [&](const std::string& bytes, size_t slot) {
      try {
        ByteReader r(bytes);
        slot_shard[slot] = r.U64();
        slot_log_z[slot] = r.F64();
        const std::vector<double> bigrams = r.F64s(), rows = r.F64s();
        r.ExpectEnd();
        if (slot_shard[slot] >= NumShards(block_end - block, kShard) ||
            bigrams.size() != static_cast<size_t>(slot_bigrams[slot].size()))
          return Status::Internal("HySOL E-step shard from another process has the wrong shape");
        const auto [first, last] = shard_rows(slot_shard[slot]);
        if (rows.size() != static_cast<size_t>((last - first) * labels))
          return Status::Internal("HySOL E-step shard from another process has the wrong number of marginals");
        slot_bigrams[slot] = Eigen::Map<const RowMatrixXd>(bigrams.data(), slot_bigrams[slot].rows(), labels);
        marginals.middleRows(first, last - first) = Eigen::Map<const RowMatrixXd>(rows.data(), last - first, labels);
        return Status::Ok();
      } catch (const StatusError& e) {
        return Status::Internal("HySOL E-step shard from another process: " + e.status().message());
      }
    };
    fns.reduce = [&](size_t, size_t slot) {
      log_likelihood += slot_log_z[slot];
      transition_counts += slot_bigrams[slot];
      slot_log_z[slot] = 0;
      slot_bigrams[slot].setZero();
    };
    if (!DistributedShardsOrdered(processes, block_end - block, kShard, threads, slots, fns).ok()) {
      exchanged = false;
      return;
    }
    if (!root) return;  // only rank 0 holds every marginal of the block
    for (size_t n = block; n < block_end; ++n)
      if (data.offsets[n + 1] > data.offsets[n]) counts.initial += marginals.row(data.offsets[n] - base).transpose();
    // One feature type per task: each emission table is summed over the tokens in order.
    ParallelShards(static_cast<size_t>(models), 1, threads, [&](size_t, size_t j_begin, size_t j_end) {
      for (size_t j = j_begin; j < j_end; ++j) {
        RowMatrixXd& emission = counts.emission[j];
        for (int64_t t = base; t < data.offsets[block_end]; ++t)
          emission.row(data.symbols(t, static_cast<Eigen::Index>(j))) += marginals.row(t - base);
      }
    });
  };
  if (!corpus.ForEachBlock(visit).ok() || !exchanged) return std::numeric_limits<double>::quiet_NaN();
  if (!ShareCounts(processes, &log_likelihood, &transition_counts, &counts).ok())
    return std::numeric_limits<double>::quiet_NaN();
  counts.transition = SumOverFirstTag(transition_counts, labels);
  return log_likelihood;
}

GenerativeCounts ObservedCounts(const HybridCorpus& corpus, const std::vector<int64_t>& vocabulary_sizes) {
  const Eigen::Index labels = corpus.num_labels;
  GenerativeCounts counts;
  counts.initial.setZero(labels);
  counts.transition.setZero(labels, labels);
  for (int64_t size : vocabulary_sizes) counts.emission.push_back(RowMatrixXd::Zero(size, labels));
  for (size_t n = 0; n < corpus.num_sentences(); ++n) {
    const int64_t begin = corpus.offsets[n];
    const int64_t end = corpus.offsets[n + 1];
    if (end == begin) continue;
    counts.initial(corpus.labels[begin]) += 1;
    for (int64_t t = begin; t < end; ++t) {
      const int32_t label = corpus.labels[t];
      if (t > begin) counts.transition(corpus.labels[t - 1], label) += 1;
      for (size_t j = 0; j < counts.emission.size(); ++j)
        counts.emission[j](corpus.symbols(t, static_cast<Eigen::Index>(j)), label) += 1;
    }
  }
  return counts;
}

GenerativeParams MaximizeGenerative(const GenerativeCounts& counts, const Eigen::VectorXd& generative_gamma,
                                    double eta_prime) {
  return MaximizeGenerativeInPlace(GenerativeCounts(counts), generative_gamma, eta_prime);
}

GenerativeParams MaximizeGenerativeInPlace(GenerativeCounts&& counts, const Eigen::VectorXd& generative_gamma,
                                           double eta_prime) {
  const Eigen::Index labels = counts.initial.size();
  GenerativeParams theta;
  for (size_t j = 0; j < counts.emission.size(); ++j) {
    const double weight = generative_gamma(static_cast<Eigen::Index>(j));
    Eigen::VectorXd pseudo = (weight * counts.initial).array() + eta_prime;
    Eigen::VectorXd log_initial(labels);
    Normalize(pseudo, log_initial);
    theta.log_initial.push_back(std::move(log_initial));

    RowMatrixXd log_transition(labels, labels);
    for (Eigen::Index k = 0; k < labels; ++k) {
      Eigen::VectorXd row = (weight * counts.transition.row(k).transpose()).array() + eta_prime;
      Eigen::VectorXd log_row(labels);
      Normalize(row, log_row);
      log_transition.row(k) = log_row.transpose();
    }
    theta.log_transition.push_back(std::move(log_transition));

    // Each column is copied out whole before its log-probabilities overwrite it.
    RowMatrixXd& emission = counts.emission[j];
    Eigen::VectorXd column(emission.rows());
    Eigen::VectorXd log_column(emission.rows());
    for (Eigen::Index k = 0; k < labels; ++k) {
      column = (weight * emission.col(k)).array() + eta_prime;
      Normalize(column, log_column);
      emission.col(k) = log_column;
    }
    theta.log_emission.push_back(std::move(emission));
  }
  counts = GenerativeCounts();
  return theta;
}

double GenerativeLogPrior(const GenerativeParams& theta, double eta_prime) {
  double total = 0;
  for (int j = 0; j < theta.num_models(); ++j)
    total += theta.log_initial[j].sum() + theta.log_transition[j].sum() + theta.log_emission[j].sum();
  return eta_prime * total;
}

double RelativeParamChange(const GenerativeParams& next, const GenerativeParams& current) {
  double difference = 0;
  double norm = 0;
  auto add = [&](const auto& a, const auto& b) {
    difference += (a.array().unaryExpr(&Exp) - b.array().unaryExpr(&Exp)).square().sum();
    norm += b.array().unaryExpr(&Exp).square().sum();
  };
  for (int j = 0; j < current.num_models(); ++j) {
    add(next.log_initial[j], current.log_initial[j]);
    add(next.log_transition[j], current.log_transition[j]);
    add(next.log_emission[j], current.log_emission[j]);
  }
  return norm > 0 ? std::sqrt(difference / norm) : 0.0;
}

double HybridConditionalLogLikelihood(const HybridCorpus& corpus, const ExpertTransitions& experts,
                                      const GenerativeParams& theta, const Eigen::VectorXd& gamma, int threads,
                                      Eigen::VectorXd* gradient, const ProcessGroup* processes,
                                      const RowMatrixXd* gathered) {
  const Eigen::Index labels = corpus.num_labels;
  const Eigen::Index experts_n = NumExperts(experts);
  const Eigen::Index models = experts_n + theta.num_models();
  const RowMatrixXd transition_weights = HybridTransition(experts, theta, gamma);
  const HybridLattice transition(transition_weights, labels);
  const Eigen::Index transition_rows = transition_weights.rows();
  const Eigen::Map<const Eigen::VectorXd> trigram(transition_weights.data(), transition_weights.size());

  const size_t slots = OrderedSlots(threads);
  std::vector<LikelihoodSlot> slot_sums(slots + 1);  // the last receives other processes' shards
  for (LikelihoodSlot& s : slot_sums) s.Reset(models, transition_rows, labels);
  LikelihoodSlot total;
  total.Reset(models, transition_rows, labels);
  DistributedShardsFns fns;
  fns.map = [&](size_t, size_t begin, size_t end, size_t slot) {
    LikelihoodSlot& sums = slot_sums[slot];
    const int64_t base = corpus.offsets[begin];
    sums.marginals.resize(corpus.offsets[end] - base, labels);
    RunShard(
        corpus, begin, end, transition, gradient != nullptr, &sums.lanes,
        [&](size_t n, Eigen::Map<RowMatrixXd> rows) { FillScores(corpus, n, theta, gamma, gathered, rows); },
        [&](size_t n) { return gradient ? sums.marginals.row(corpus.offsets[n] - base).data() : nullptr; });
    if (gradient) transition.AddCounts(sums.lanes.xi.data(), sums.bigram_difference.data());
    for (size_t n = begin; n < end; ++n) {
      const int64_t first = corpus.offsets[n];
      const Eigen::Index length = corpus.offsets[n + 1] - first;
      if (length == 0) continue;
      const Eigen::Map<const RowMatrixXd> scores(sums.lanes.scores.data() + (first - base) * labels, length,
                                                 labels);
      const auto marginals = sums.marginals.middleRows(first - base, length);
      std::vector<int32_t>& gold = sums.gold;
      gold.assign(corpus.labels.begin() + first, corpus.labels.begin() + first + length);
      sums.value += (transition.second_order ? SecondOrderScore(scores, trigram, gold)
                                             : ChainScore(scores, transition_weights, gold)) -
                    sums.lanes.log_z[n - begin];
      if (!gradient) continue;
      // The expected bigram counts were added above; subtracting the gold ones keeps
      // expected − gold here (flipped once at the end).
      for (Eigen::Index t = 0; t < length; ++t) {
        const int32_t y = gold[t];
        if (t > 0) {
          const Eigen::Index previous = t == 1 ? labels : gold[t - 2];
          sums.bigram_difference(transition.second_order ? previous * labels + gold[t - 1] : gold[t - 1], y) -= 1;
        }
        for (Eigen::Index i = 0; i < experts_n; ++i) {
          const auto row = corpus.expert_scores[i].row(first + t).cast<double>();
          sums.token_terms(i) += row(y) - row.dot(marginals.row(t));
        }
        for (int j = 0; j < theta.num_models(); ++j) {
          const auto row = EmissionRow(corpus, theta, gathered, first + t, j);
          sums.token_terms(experts_n + j) += row(y) - row.dot(marginals.row(t));
        }
      }
      sums.initial_difference(gold[0]) += 1;
      sums.initial_difference -= marginals.row(0).transpose();
    }
  };
  fns.encode = [&](size_t slot) {
    std::string bytes = EncodeSums(slot_sums[slot]);
    slot_sums[slot].Reset(models, transition_rows, labels);  // ranks other than 0 never reduce
    return bytes;
  };
  fns.decode = [&](const std::string& bytes, size_t slot) { return DecodeSums(bytes, &slot_sums[slot]); };
  fns.reduce = [&](size_t, size_t slot) {
    LikelihoodSlot& sums = slot_sums[slot];
    total.value += sums.value;
    total.token_terms += sums.token_terms;
    total.bigram_difference += sums.bigram_difference;
    total.initial_difference += sums.initial_difference;
    sums.Reset(models, transition_rows, labels);
  };
  if (!DistributedShardsOrdered(processes, corpus.num_sentences(), kShard, threads, slots, fns).ok())
    return std::numeric_limits<double>::quiet_NaN();
  if (processes != nullptr && processes->size() > 1) {
    std::string bytes = processes->rank() == 0 ? EncodeSums(total) : std::string();
    if (!processes->Broadcast(0, &bytes).ok() || !DecodeSums(bytes, &total).ok())
      return std::numeric_limits<double>::quiet_NaN();
  }
  if (gradient) {
    const RowMatrixXd transitions = -total.bigram_difference;
    const RowMatrixXd bigrams = SumOverFirstTag(transitions, labels);
    gradient->resize(models);
    for (Eigen::Index i = 0; i < experts_n; ++i)
      (*gradient)(i) = total.token_terms(i) + (transitions.array() * experts[i].array()).sum();
    for (int j = 0; j < theta.num_models(); ++j)
      (*gradient)(experts_n + j) = total.token_terms(experts_n + j) +
                                   (bigrams.array() * theta.log_transition[j].array()).sum() +
                                   total.initial_difference.dot(theta.log_initial[j]);
  }
  return total.value;
}

RowMatrixXd GatherEmissions(const HybridCorpus& corpus, const GenerativeParams& theta) {
  const Eigen::Index labels = corpus.num_labels;
  RowMatrixXd gathered(corpus.num_tokens(), theta.num_models() * labels);
  for (int64_t t = 0; t < corpus.num_tokens(); ++t)
    for (int j = 0; j < theta.num_models(); ++j)
      gathered.row(t).segment(j * labels, labels) = theta.log_emission[j].row(corpus.symbols(t, j));
  return gathered;
}

namespace {

// Σ_n log Z of sentences [begin, end) of `corpus` under one expert's scores, added to *total in
// shard order.
void AddExpertLogPartition(const HybridCorpus& corpus, size_t begin, size_t end, const HybridLattice& chain, int expert,
                           int threads, double* total) {
  const size_t slots = OrderedSlots(threads);
  std::vector<ShardLanes> slot_lanes(slots);
  std::vector<double> slot_sums(slots, 0.0);
  ParallelShardsOrdered(
      end - begin, kShard, threads, slots,
      [&](size_t, size_t shard_begin, size_t shard_end, size_t slot) {
        ShardLanes& lanes = slot_lanes[slot];
        RunShard(
            corpus, begin + shard_begin, begin + shard_end, chain, false, &lanes,
            [&](size_t n, Eigen::Map<RowMatrixXd> rows) {
              rows = corpus.expert_scores[expert].middleRows(corpus.offsets[n], rows.rows()).cast<double>();
            },
            [](size_t) { return static_cast<double*>(nullptr); });
        for (double z : lanes.log_z) slot_sums[slot] += z;
      },
      [&](size_t, size_t slot) {
        *total += slot_sums[slot];
        slot_sums[slot] = 0;
      });
}

}  // namespace

double ExpertLogPartition(const HybridCorpus& corpus, const RowMatrixXd& transition, int expert, int threads) {
  double total = 0;
  AddExpertLogPartition(corpus, 0, corpus.num_sentences(), HybridLattice(transition, corpus.num_labels), expert,
                        threads, &total);
  return total;
}

Result<Eigen::VectorXd> ExpertLogPartitions(const UnlabeledHybrid& corpus, const ExpertTransitions& experts,
                                            int threads) {
  Eigen::VectorXd totals = Eigen::VectorXd::Zero(NumExperts(experts));
  if (experts.empty()) return totals;
  std::vector<HybridLattice> chains;
  for (const RowMatrixXd& transition : experts) chains.emplace_back(transition, transition.cols());
  const Status visited = corpus.ForEachBlock([&](const HybridCorpus& data, size_t begin, size_t end) {
    for (size_t i = 0; i < experts.size(); ++i)
      AddExpertLogPartition(data, begin, end, chains[i], static_cast<int>(i), threads,
                            &totals(static_cast<Eigen::Index>(i)));
  });
  if (!visited.ok()) return visited;
  return totals;
}

}  // namespace seqflow
