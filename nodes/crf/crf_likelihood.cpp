#include "nodes/crf/crf_likelihood.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "engine/base/bytes.h"
#include "engine/base/isa.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/distributed_shards.h"
#include "nodes/common/lanes.h"
#include "nodes/common/parallel.h"
#include "nodes/crf/attribute_occurrences.h"
#include "nodes/crf/crf_row_pieces.h"

namespace seqflow {
namespace {

constexpr size_t kSentencesPerShard = kCrfShardSentences;
constexpr size_t kAttributesPerShard = 2048;

using crf_rows::DispatchBlocks;
using crf_rows::RowPieces;
using FloatRows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Issues prefetches for every cache line of attribute a's weight row: the rows are scattered over
// a model far larger than the caches, and a row of K doubles spans several lines.
inline void PrefetchRow(const double* w, int64_t K, int32_t a) {
  const char* row = reinterpret_cast<const char*>(w + a * K);
  for (int64_t byte = 0; byte < K * 8; byte += 64) __builtin_prefetch(row + byte);
  __builtin_prefetch(row + K * 8 - 1);
}

constexpr int32_t kPrefetchAhead = 8;  // attributes; 3 to 16 measured the same

// rows[t] = Σ_{a ∈ attrs(t)} x_a W(a, ·), x_a = row_values[a] or 1, for rows [T x K]; each entry
// summed from 0 in attribute order, so every form below gives the same bits.
void SentenceScoresRows(const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
                        const double* row_values) {
  const int32_t T = sentence.size(), end = sentence.offsets[T];
  for (int32_t i = 0; i < std::min(kPrefetchAhead, end); ++i) PrefetchRow(w, K, sentence.ids[i]);
  std::fill(rows, rows + T * K, 0.0);
  for (int32_t t = 0; t < T; ++t) {
    double* row = rows + t * K;
    for (int32_t i = sentence.offsets[t]; i < sentence.offsets[t + 1]; ++i) {
      if (i + kPrefetchAhead < end) PrefetchRow(w, K, sentence.ids[i + kPrefetchAhead]);
      const int32_t a = sentence.ids[i];
      const double x = row_values ? row_values[a] : 1.0;
      const double* wa = w + a * K;
      for (int64_t k = 0; k < K; ++k) row[k] += x * wa[k];
    }
  }
}

// The same with a token's row held in registers (RowPieces) while its attributes are summed.
template <int N, int NB, int Tail>
void SentenceScoresBlocked(const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
                           const double* row_values) {
  using Row = RowPieces<N, NB, Tail>;
  const int32_t T = sentence.size(), end = sentence.offsets[T];
  for (int32_t i = 0; i < std::min(kPrefetchAhead, end); ++i) PrefetchRow(w, K, sentence.ids[i]);
  for (int32_t t = 0; t < T; ++t) {
    typename Row::P acc[Row::kCount] = {};
    for (int32_t i = sentence.offsets[t]; i < sentence.offsets[t + 1]; ++i) {
      if (i + kPrefetchAhead < end) PrefetchRow(w, K, sentence.ids[i + kPrefetchAhead]);
      const int32_t a = sentence.ids[i];
      const double x = row_values ? row_values[a] : 1.0;
      const double* wa = w + a * K;
      Row::ForEach([&](auto p) { acc[p] += x * Row::template Load<decltype(p)::value>(wa); });
    }
    Row::ForEach([&](auto p) { Row::template Store<decltype(p)::value>(acc[p], rows + t * K); });
  }
}

template <int N>
void SentenceScoresKernel(const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
                          const double* row_values) {
  const bool blocked = DispatchBlocks(K, [&](auto nb, auto tail) {
    SentenceScoresBlocked<N, decltype(nb)::value, decltype(tail)::value>(w, K, sentence, rows, row_values);
  });
  if (!blocked) SentenceScoresRows(w, K, sentence, rows, row_values);
}

// Overwrites rows [T x K] with the sentence's scores.
SEQFLOW_ISA_WIDTH_CLONES(void, SentenceScores,
                         (const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
                          const double* row_values),
                         SentenceScoresKernel, (w, K, sentence, rows, row_values))


// What pass 1 reads besides the block: the weights' transition forms, for one Evaluate.
struct ChainWeights {
  const Eigen::VectorXd& w;
  const CrfLayout& layout;
  const double* row_values;  // [A] or null (all 1)
  Eigen::Map<const RowMatrixXd> transition;
  ChainLanesTransition chain_transition;
  Eigen::VectorXd trigram;  // order 2
  SecondOrderTransition trigram_transition;
  bool second_order() const { return layout.order == 2; }
  int64_t transition_cells() const {
    return second_order() ? TrigramSize(static_cast<int>(layout.num_labels)) : layout.num_labels * layout.num_labels;
  }
};

ChainWeights ChainWeightsOf(const Eigen::VectorXd& w, const CrfLayout& layout, const double* row_values) {
  const Eigen::Map<const RowMatrixXd> transition = CrfTransition(w, layout);
  ChainWeights c{w, layout, row_values, transition, ChainLanesTransition::FromLogPotentials(transition), {}, {}};
  if (c.second_order()) {
    c.trigram = CrfTrigramPotentials(w, layout);
    c.trigram_transition = SecondOrderTransition::FromLogPotentials(c.trigram, static_cast<int>(layout.num_labels));
  }
  return c;
}

}  // namespace

// Sentences of the data from a multiple of kSentencesPerShard on, as both passes read them.
struct CrfBlock {
  FeatureShard owned;  // a streamed block's sentences
  const std::vector<SentenceFeatures>* sentences = nullptr;  // owned's, or the resident data's
  const std::vector<std::vector<int32_t>>* labels = nullptr;
  std::vector<int64_t> token_offset;  // [size() + 1] first block token of each sentence
  AttributeOccurrences occurrences;   // block tokens where each row fires (where the fold runs)
  FloatRows marginals;                // [block tokens x K] pass 1's output. Single precision halves
                                      // what pass 2 gathers, its dominant cost; each marginal keeps
                                      // 7 digits, far below the gradient's tolerance.
  size_t size() const { return sentences->size(); }
  // The first and one-past-last block token of compute shard `shard` (of the block's).
  std::pair<int64_t, int64_t> ShardTokens(size_t shard) const {
    const size_t begin = shard * kSentencesPerShard, end = std::min(size(), begin + kSentencesPerShard);
    return {token_offset[begin], token_offset[end]};
  }
};

namespace {

// Offsets, the inverted index when `indexed`, and the marginal buffer ([tokens x K]; none for
// K = 0) of a block's sentences.
void PrepareBlock(CrfBlock& block, int64_t num_rows, int64_t K, bool indexed) {
  block.token_offset.assign(block.size() + 1, 0);
  for (size_t n = 0; n < block.size(); ++n)
    block.token_offset[n + 1] = block.token_offset[n] + (*block.sentences)[n].size();
  if (indexed) block.occurrences = IndexOccurrences(*block.sentences, num_rows);
  block.marginals.resize(block.token_offset.back(), K);
}

// A compute shard's log-likelihood part, transition counts and marginal rows, for rank 0.
std::string EncodeShard(const CrfBlock& block, size_t shard, double log_p, const Eigen::VectorXd& counts) {
  const auto [first, last] = block.ShardTokens(shard);
  ByteWriter w;
  w.U64(shard);
  w.F64(log_p);
  w.F64s(counts.data(), static_cast<size_t>(counts.size()));
  w.Str(std::string_view(reinterpret_cast<const char*>(block.marginals.row(first).data()),
                         static_cast<size_t>((last - first) * block.marginals.cols()) * sizeof(float)));
  return w.Take();
}

// Rank 0: a shard another rank sent; its marginals go into the block's.
Status DecodeShard(const std::string& bytes, CrfBlock& block, size_t* shard, double* log_p, Eigen::VectorXd* counts) {
  try {
    ByteReader r(bytes);
    *shard = r.U64();
    *log_p = r.F64();
    const std::vector<double> c = r.F64s();
    const std::string rows = r.Str();
    r.ExpectEnd();
    if (*shard >= NumShards(block.size(), kSentencesPerShard) || c.size() != static_cast<size_t>(counts->size()))
      return Status::Internal("CRF shard from another process has the wrong shape");
    const auto [first, last] = block.ShardTokens(*shard);
    if (rows.size() != static_cast<size_t>((last - first) * block.marginals.cols()) * sizeof(float))
      return Status::Internal("CRF shard from another process has the wrong number of marginals");
    *counts = Eigen::Map<const Eigen::VectorXd>(c.data(), counts->size());
    std::memcpy(block.marginals.row(first).data(), rows.data(), rows.size());
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("CRF shard from another process: " + e.status().message());
  }
}

// Pass 1 over a block's compute shards: their marginals into the block's buffer, their log p(y|x)
// and transition counts added to the totals in global shard order. The scores of a whole shard go
// into one table that the batches gather their lanes from; the batches (runs of kLanes sentences
// of similar length) run in a fixed order within the shard, so log Z sums and bigram counts do not
// depend on the thread that runs the shard.
Status ForwardBackwardBlock(CrfBlock& block, const ChainWeights& cw, int threads, const ProcessGroup* processes,
                            double* log_likelihood, Eigen::VectorXd* counts) {
  const int64_t K = cw.layout.num_labels;
  const std::vector<SentenceFeatures>& sentences = *block.sentences;
  const std::vector<std::vector<int32_t>>& labels = *block.labels;
  const int64_t cells = cw.transition_cells();
  const size_t slots = OrderedSlots(threads);
  // One more slot receives other processes' shards.
  std::vector<Eigen::VectorXd> slot_counts(slots + 1, Eigen::VectorXd::Zero(cells));
  std::vector<double> slot_log_p(slots + 1, 0);
  std::vector<size_t> slot_shard(slots + 1, 0);
  std::vector<ChainLanesWork> workspaces(cw.second_order() ? 0 : slots);
  std::vector<SecondOrderWork> second_order_workspaces(cw.second_order() ? slots : 0);
  std::vector<std::vector<double>> slot_scores(slots);  // [shard tokens x K] row-major
  std::vector<std::vector<int32_t>> slot_row_ids(slots);
  std::vector<LaneVector<Lanes<kLanes>>> slot_xi(slots, LaneVector<Lanes<kLanes>>(cells, Lanes<kLanes>{}));
  const ChainPotentials::Kind log_scores = ChainPotentials::Kind::kLogScores;
  DistributedShardsFns fns;
  fns.map = [&](size_t shard, size_t begin, size_t end, size_t slot) {
    slot_shard[slot] = shard;
    const int64_t base = block.token_offset[begin];
    std::vector<double>& scores = slot_scores[slot];
    scores.resize((block.token_offset[end] - base) * K);
    double log_p = 0;
    for (size_t n = begin; n < end; ++n) {
      double* rows = scores.data() + (block.token_offset[n] - base) * K;
      SentenceScores(cw.w.data(), K, sentences[n], rows, cw.row_values);
      const Eigen::Map<const RowMatrixXd> sentence_scores(rows, sentences[n].size(), K);
      log_p += cw.second_order() ? SecondOrderScore(sentence_scores, cw.trigram, labels[n])
                                 : ChainScore(sentence_scores, cw.transition, labels[n]);
    }
    const std::span<const int32_t> row_ids = ChainRowIds(block.token_offset[end] - base, &slot_row_ids[slot]);
    const ChainPotentials potentials{scores.data(), log_scores, nullptr};
    const std::vector<size_t> order = LengthSortedOrder(labels, begin, end);
    for (size_t b = 0; b < order.size(); b += kLanes) {
      LaneBatch<kLanes> batch;
      std::array<float*, kLanes> rows{};
      for (size_t l = 0; l < kLanes && b + l < order.size(); ++l) {
        const size_t n = order[b + l];
        batch.obs[l] = row_ids.subspan(block.token_offset[n] - base, sentences[n].size());
        batch.length = std::max(batch.length, batch.len(static_cast<int>(l)));
        rows[l] = block.marginals.data() + block.token_offset[n] * K;
      }
      const std::array<double, kLanes> log_z =
          cw.second_order()
              ? SecondOrderForwardBackward<float>(scores.data(), cw.trigram_transition, batch,
                                                  second_order_workspaces[slot], rows, {}, slot_xi[slot].data())
              : ChainLanesForwardBackward<float>(potentials, cw.chain_transition, batch, workspaces[slot], rows,
                                                 slot_xi[slot].data());
      for (double z : log_z) log_p -= z;
    }
    slot_counts[slot].setZero();
    if (cw.second_order()) {
      SecondOrderAddTrigrams(cw.trigram_transition, slot_xi[slot].data(), slot_counts[slot].data());
    } else {
      ChainLanesAddBigrams(cw.chain_transition, slot_xi[slot].data(), slot_counts[slot].data());
    }
    slot_log_p[slot] = log_p;
  };
  fns.encode = [&](size_t slot) { return EncodeShard(block, slot_shard[slot], slot_log_p[slot], slot_counts[slot]); };
  fns.decode = [&](const std::string& bytes, size_t slot) {
    return DecodeShard(bytes, block, &slot_shard[slot], &slot_log_p[slot], &slot_counts[slot]);
  };
  fns.reduce = [&](size_t, size_t slot) {
    *log_likelihood += slot_log_p[slot];
    *counts += slot_counts[slot];
  };
  return DistributedShardsOrdered(processes, block.size(), kSentencesPerShard, threads, slots, fns);
}

}  // namespace

Eigen::VectorXd CrfTrigramPotentials(const Eigen::Ref<const Eigen::VectorXd>& w, const CrfLayout& layout) {
  const int K = static_cast<int>(layout.num_labels);
  const Eigen::Map<const RowMatrixXd> bigram = CrfTransition(w, layout);
  Eigen::VectorXd g = w.segment(layout.trigram_offset(), TrigramSize(K));
  for (int a = 0; a <= K; ++a) {
    for (int b = 0; b < K; ++b) {
      for (int c = 0; c < K; ++c) g[TrigramIndex(K, a, b, c)] += bigram(b, c);
    }
  }
  return g;
}

void CrfScores(const Eigen::Ref<const Eigen::VectorXd>& w, const CrfLayout& layout, const SentenceFeatures& sentence,
               RowMatrixXd& scores, const double* row_values) {
  scores.resize(sentence.size(), layout.num_labels);
  SentenceScores(w.data(), layout.num_labels, sentence, scores.data(), row_values);
}

CrfLikelihood::CrfLikelihood(const std::vector<SentenceFeatures>& sentences,
                             const std::vector<std::vector<int32_t>>& labels, CrfLayout layout, double sigma2,
                             int threads, std::vector<double> row_values, const ProcessGroup* processes)
    : CrfLikelihood(CrfSentences(sentences, labels), layout, sigma2, threads, std::move(row_values), processes) {}

CrfLikelihood::CrfLikelihood(const CrfSentences& data, CrfLayout layout, double sigma2, int threads,
                             std::vector<double> row_values, const ProcessGroup* processes)
    : data_(data),
      layout_(layout),
      sigma2_(sigma2),
      threads_(threads),
      processes_(processes),
      gathers_(processes == nullptr || processes->rank() == 0),
      row_values_(std::move(row_values)) {
  const int64_t K = layout_.num_labels;
  if (!data_.streamed()) {
    resident_ = std::make_unique<CrfBlock>();
    resident_->sentences = &data_.sentences();
    resident_->labels = &data_.labels();
    PrepareBlock(*resident_, layout_.num_attributes, K, gathers_);
  }
  if (!gathers_) return;
  empirical_bigrams_.setZero(K, K);
  if (layout_.order == 2) empirical_trigrams_.setZero(TrigramSize(static_cast<int>(K)));
  // Dense while counting ([A x K], less than the weights), kept as (label, count) pairs.
  std::vector<int32_t> dense_gold(static_cast<size_t>(layout_.num_attributes * K), 0);
  status_ = ForEachBlock(true, [&](CrfBlock& block, bool, bool) {
    CountGold(block, &dense_gold);
    return Status::Ok();
  });
  KeepGold(dense_gold);
}

CrfLikelihood::~CrfLikelihood() = default;

void CrfLikelihood::CountGold(const CrfBlock& block, std::vector<int32_t>* dense_gold) {
  const int64_t K = layout_.num_labels;
  for (size_t n = 0; n < block.size(); ++n) {
    const SentenceFeatures& s = (*block.sentences)[n];
    const std::vector<int32_t>& y = (*block.labels)[n];
    for (int32_t t = 0; t < s.size(); ++t) {
      for (int32_t i = s.offsets[t]; i < s.offsets[t + 1]; ++i) ++(*dense_gold)[s.ids[i] * K + y[t]];
      if (t > 0) empirical_bigrams_(y[t - 1], y[t]) += 1;
      if (t > 0 && layout_.order == 2) {
        const int a = t == 1 ? static_cast<int>(K) : y[t - 2];
        empirical_trigrams_[TrigramIndex(static_cast<int>(K), a, y[t - 1], y[t])] += 1;
      }
    }
  }
}

void CrfLikelihood::KeepGold(const std::vector<int32_t>& dense_gold) {
  const int64_t A = layout_.num_attributes, K = layout_.num_labels;
  gold_start_.assign(A + 1, 0);
  gold_.clear();
  for (int64_t a = 0; a < A; ++a) {
    for (int64_t k = 0; k < K; ++k)
      if (const int32_t count = dense_gold[a * K + k]; count > 0) gold_.push_back({static_cast<int32_t>(k), count});
    gold_start_[a + 1] = static_cast<int64_t>(gold_.size());
  }
}

Status CrfLikelihood::ForEachBlock(bool all, const std::function<Status(CrfBlock&, bool, bool)>& visit) {
  if (resident_ != nullptr) return visit(*resident_, true, true);
  const size_t n = data_.num_sentences();
  // An empty text is one empty block, so that the gradient's rows are still written.
  const size_t step = data_.block_sentences();
  for (size_t begin = 0; begin == 0 || begin < n; begin += step) {
    const size_t end = std::min(n, begin + step);
    CrfSentences::Needed needed;
    if (!all && !gathers_)
      needed = [&](size_t b, size_t e) { return MapsAnyShardOf(processes_, b - begin, e - begin, kSentencesPerShard); };
    CrfBlock block;
    SEQFLOW_ASSIGN_OR_RETURN(block.owned, data_.Load(begin, end, needed));
    if (block.owned.sentences.size() != end - begin || block.owned.labels.size() != end - begin)
      return Status::Internal("a block of the training sentences has the wrong size");
    block.sentences = &block.owned.sentences;
    block.labels = &block.owned.labels;
    // `all` is the constructor's pass, which counts the gold features only.
    PrepareBlock(block, layout_.num_attributes, all ? 0 : layout_.num_labels, gathers_ && !all);
    SEQFLOW_RETURN_IF_ERROR(visit(block, begin == 0, end == n));
  }
  return Status::Ok();
}

Status CrfLikelihood::ShareResult(double* value, Eigen::VectorXd* gradient) const {
  if (processes_ == nullptr || processes_->size() == 1) return Status::Ok();
  std::string bytes;
  if (processes_->rank() == 0) {
    ByteWriter w;
    w.F64(*value);
    w.F64s(gradient->data(), static_cast<size_t>(gradient->size()));
    bytes = w.Take();
  }
  SEQFLOW_RETURN_IF_ERROR(processes_->Broadcast(0, &bytes));
  if (processes_->rank() == 0) return Status::Ok();
  try {
    ByteReader r(bytes);
    *value = r.F64();
    const std::vector<double> g = r.F64s();
    r.ExpectEnd();
    if (g.size() != static_cast<size_t>(gradient->size()))
      return Status::Internal("CRF gradient from rank 0 has the wrong size");
    *gradient = Eigen::Map<const Eigen::VectorXd>(g.data(), gradient->size());
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("CRF gradient from rank 0: " + e.status().message());
  }
}

double CrfLikelihood::Evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& gradient) {
  constexpr double kFailed = std::numeric_limits<double>::quiet_NaN();
  if (!status_.ok()) return kFailed;
  const int64_t A = layout_.num_attributes, K = layout_.num_labels;
  const double* values = row_values_.empty() ? nullptr : row_values_.data();
  const ChainWeights cw = ChainWeightsOf(w, layout_, values);
  gradient.resize(layout_.size());
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(cw.transition_cells());
  double log_likelihood = 0;
  const double inv_sigma2 = 1.0 / sigma2_;
  std::vector<double> shard_penalty(NumShards(A, kAttributesPerShard), 0.0);
  status_ = ForEachBlock(false, [&](CrfBlock& block, bool first, bool last) {
    SEQFLOW_RETURN_IF_ERROR(ForwardBackwardBlock(block, cw, threads_, processes_, &log_likelihood, &counts));
    if (!gathers_) return Status::Ok();
    // ∇W(a, ·) = x_a Σ_t (P_t - e_{y_t}) + W(a, ·) / δ², the fold continued from the last block.
    const GradientRowInputs in{block.marginals.data(), block.occurrences.start.data(),
                               block.occurrences.tokens.data(), gold_start_.data(), gold_.data(), values, w.data(),
                               K, inv_sigma2, first, last};
    ParallelShards(A, kAttributesPerShard, threads_, [&](size_t shard, size_t begin, size_t end) {
      shard_penalty[shard] = GradientRows(in, static_cast<int64_t>(begin), static_cast<int64_t>(end), gradient.data());
    });
    return Status::Ok();
  });
  if (!status_.ok()) return kFailed;
  double value = 0;
  if (gathers_) {
    RowMatrixXd bigrams = RowMatrixXd::Zero(K, K);
    if (cw.second_order()) {
      for (int64_t a = 0; a <= K; ++a) bigrams += Eigen::Map<const RowMatrixXd>(counts.data() + a * K * K, K, K);
    } else {
      bigrams = Eigen::Map<const RowMatrixXd>(counts.data(), K, K);
    }
    double penalty = 0.5 * inv_sigma2 * cw.transition.squaredNorm();
    for (double p : shard_penalty) penalty += p;
    const int64_t tr = layout_.transition_offset();
    Eigen::Map<RowMatrixXd>(gradient.data() + tr, K, K) = bigrams - empirical_bigrams_ + cw.transition * inv_sigma2;
    if (cw.second_order()) {
      const auto u = w.segment(layout_.trigram_offset(), counts.size());
      gradient.segment(layout_.trigram_offset(), counts.size()) = counts - empirical_trigrams_ + u * inv_sigma2;
      penalty += 0.5 * inv_sigma2 * u.squaredNorm();
    }
    value = -log_likelihood + penalty;
  }
  status_ = ShareResult(&value, &gradient);
  return status_.ok() ? value : kFailed;
}

}  // namespace seqflow
