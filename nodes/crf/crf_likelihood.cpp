#include "nodes/crf/crf_likelihood.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "engine/base/bytes.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/distributed_shards.h"
#include "nodes/common/isa.h"
#include "nodes/common/lanes.h"
#include "nodes/common/parallel.h"

namespace seqflow {
namespace {

constexpr size_t kSentencesPerShard = 32;
constexpr size_t kAttributesPerShard = 2048;

// Issues prefetches for every cache line of attribute a's weight row: the rows are scattered over
// a model far larger than the caches, and a row of K doubles spans several lines.
inline void PrefetchRow(const double* w, int64_t K, int32_t a) {
  const char* row = reinterpret_cast<const char*>(w + a * K);
  for (int64_t byte = 0; byte < K * 8; byte += 64) __builtin_prefetch(row + byte);
  __builtin_prefetch(row + K * 8 - 1);
}

constexpr int32_t kPrefetchAhead = 8;  // attributes; 3 to 16 measured the same

using V = Lanes<8>;

// A row of K = 8 (NB - 1) + Tail labels held in native pieces of N bytes (nodes/common/lanes.h):
// W labels per piece, piece i holding labels [W i, W i + W) and zeros past K; the pieces past K
// are left out. Narrower clones would otherwise build each 64-byte vector element by element.
template <int N, int NB, int Tail>
struct RowPieces {
  using P = Piece<V, N>;
  static constexpr int kWidth = NativePieces<V, N>::kWidth;
  static constexpr int kLabels = 8 * (NB - 1) + Tail;
  static constexpr int kCount = (kLabels + kWidth - 1) / kWidth;

  // Labels in piece i (the compiler sees whole pieces as vector moves).
  static constexpr int Taken(int i) { return std::min(kWidth, kLabels - kWidth * i); }

  // Piece i of a row of T (double or float).
  template <int I, class T>
  static P Load(const T* row) {
    P v = {};
    for (int j = 0; j < Taken(I); ++j) v[j] = row[kWidth * I + j];
    return v;
  }
  template <int I>
  static void Store(const P& v, double* row) {
    for (int j = 0; j < Taken(I); ++j) row[kWidth * I + j] = v[j];
  }
  // f(integral_constant<int, i>) for every piece i.
  template <class F>
  static void ForEach(F&& f) {
    [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }
    (std::make_integer_sequence<int, kCount>{});
  }
};

// Calls f(integral_constant NB, integral_constant Tail) for K = 8 (NB - 1) + Tail, NB <= 4, and
// returns false for a larger K.
template <class F>
inline bool DispatchBlocks(int64_t K, F&& f) {
  const int nb = static_cast<int>((K + 7) / 8);
  if (nb > 4) return false;
  const int tail = static_cast<int>(K - 8 * (nb - 1));
  auto with_nb = [&](auto blocks) {
    if (tail == 8) return f(blocks, std::integral_constant<int, 8>{});
    DispatchTail<8>(tail, [&](auto t) { f(blocks, t); });
  };
  switch (nb) {
    case 1:
      with_nb(std::integral_constant<int, 1>{});
      break;
    case 2:
      with_nb(std::integral_constant<int, 2>{});
      break;
    case 3:
      with_nb(std::integral_constant<int, 3>{});
      break;
    default:
      with_nb(std::integral_constant<int, 4>{});
      break;
  }
  return true;
}

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

// What pass 2 reads: the float marginals, the inverted index, the gold labels and the weights.
struct GatherInputs {
  const float* marginals;           // [tokens x K]
  const int64_t* occurrence_start;  // [A + 1]
  const int32_t* occurrence_token;
  const int32_t* token_label;
  const double* row_values;  // [A] or null (all 1)
  const double* w;
  int64_t K;
  double inv_sigma2;
};

// Prefetches the marginal row of the occurrence `ahead` places on, across attribute boundaries:
// most attributes fire once, so prefetching within one attribute's list would never fire.
inline void PrefetchOccurrence(const GatherInputs& in, int64_t i, int64_t end) {
  constexpr int64_t kAhead = 8;
  if (i + kAhead < end) __builtin_prefetch(in.marginals + static_cast<int64_t>(in.occurrence_token[i + kAhead]) * in.K);
}

// Gradient rows [begin, end) into g; returns ½ Σ ‖w_a‖² / δ² over them. In every form: an
// attribute's marginal sums are summed from 0 in occurrence order and the gold counts subtracted
// after, and ‖w‖² is summed in 8 partial sums (label k into sum k mod 8, attribute by attribute)
// added in order at the end, so the forms give the same bits.
double GatherGradientRowsScalar(const GatherInputs& in, int64_t begin, int64_t end, double* gradient) {
  const int64_t K = in.K, stop = in.occurrence_start[end];
  std::vector<double> sum(K);
  double squared[8] = {};
  for (int64_t a = begin; a < end; ++a) {
    std::fill(sum.begin(), sum.end(), 0.0);
    const int64_t first = in.occurrence_start[a], last = in.occurrence_start[a + 1];
    for (int64_t i = first; i < last; ++i) {
      PrefetchOccurrence(in, i, stop);
      const float* p = in.marginals + static_cast<int64_t>(in.occurrence_token[i]) * K;
      for (int64_t k = 0; k < K; ++k) sum[k] += p[k];
    }
    for (int64_t i = first; i < last; ++i) sum[in.token_label[in.occurrence_token[i]]] -= 1;
    const double x = in.row_values ? in.row_values[a] : 1.0;
    double* g = gradient + a * K;
    const double* wa = in.w + a * K;
    for (int64_t k = 0; k < K; ++k) {
      g[k] = x * sum[k] + wa[k] * in.inv_sigma2;
      squared[k % 8] += wa[k] * wa[k];
    }
  }
  double total = 0;
  for (double s : squared) total += s;
  return 0.5 * in.inv_sigma2 * total;
}

// The same with an attribute's sum held in registers (RowPieces); ‖w‖²'s partial sum k mod 8 is
// element k mod W of piece (k / W) mod (8 / W) of `squared`.
template <int N, int NB, int Tail>
double GatherGradientRowsBlocked(const GatherInputs& in, int64_t begin, int64_t end, double* gradient) {
  using Row = RowPieces<N, NB, Tail>;
  using P = typename Row::P;
  constexpr int kSquaredPieces = 8 / Row::kWidth;
  const int64_t K = in.K, stop = in.occurrence_start[end];
  P squared[kSquaredPieces] = {};
  for (int64_t a = begin; a < end; ++a) {
    P acc[Row::kCount] = {};
    const int64_t first = in.occurrence_start[a], last = in.occurrence_start[a + 1];
    for (int64_t i = first; i < last; ++i) {
      PrefetchOccurrence(in, i, stop);
      const float* p = in.marginals + static_cast<int64_t>(in.occurrence_token[i]) * K;
      Row::ForEach([&](auto q) { acc[q] += Row::template Load<decltype(q)::value>(p); });
    }
    for (int64_t i = first; i < last; ++i) {
      const int32_t label = in.token_label[in.occurrence_token[i]];
      acc[label / Row::kWidth][label % Row::kWidth] -= 1;
    }
    const double x = in.row_values ? in.row_values[a] : 1.0;
    double* g = gradient + a * K;
    const double* wa = in.w + a * K;
    Row::ForEach([&](auto q) {
      const P wq = Row::template Load<decltype(q)::value>(wa);
      Row::template Store<decltype(q)::value>(x * acc[q] + wq * in.inv_sigma2, g);
      squared[q % kSquaredPieces] += wq * wq;
    });
  }
  double total = 0;
  for (int q = 0; q < kSquaredPieces; ++q)
    for (int l = 0; l < Row::kWidth; ++l) total += squared[q][l];
  return 0.5 * in.inv_sigma2 * total;
}

template <int N>
double GatherGradientRowsKernel(const GatherInputs& in, int64_t begin, int64_t end, double* gradient) {
  double penalty = 0;
  const bool blocked = DispatchBlocks(in.K, [&](auto nb, auto tail) {
    penalty = GatherGradientRowsBlocked<N, decltype(nb)::value, decltype(tail)::value>(in, begin, end, gradient);
  });
  return blocked ? penalty : GatherGradientRowsScalar(in, begin, end, gradient);
}

SEQFLOW_ISA_WIDTH_CLONES(double, GatherGradientRows,
                         (const GatherInputs& in, int64_t begin, int64_t end, double* gradient),
                         GatherGradientRowsKernel, (in, begin, end, gradient))

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
    : sentences_(sentences),
      labels_(labels),
      layout_(layout),
      sigma2_(sigma2),
      threads_(threads),
      processes_(processes),
      row_values_(std::move(row_values)) {
  BuildIndex();
}

void CrfLikelihood::BuildIndex() {
  const int64_t K = layout_.num_labels;
  token_offset_.assign(sentences_.size() + 1, 0);
  for (size_t n = 0; n < sentences_.size(); ++n) token_offset_[n + 1] = token_offset_[n] + sentences_[n].size();
  token_label_.resize(token_offset_.back());
  empirical_bigrams_.setZero(K, K);
  if (layout_.order == 2) empirical_trigrams_.setZero(TrigramSize(static_cast<int>(K)));
  for (size_t n = 0; n < sentences_.size(); ++n) {
    const std::vector<int32_t>& y = labels_[n];
    for (size_t t = 0; t < y.size(); ++t) {
      token_label_[token_offset_[n] + static_cast<int64_t>(t)] = y[t];
      if (t > 0) empirical_bigrams_(y[t - 1], y[t]) += 1;
      if (t > 0 && layout_.order == 2) {
        const int a = t == 1 ? static_cast<int>(K) : y[t - 2];
        empirical_trigrams_[TrigramIndex(static_cast<int>(K), a, y[t - 1], y[t])] += 1;
      }
    }
  }
  occurrences_ = IndexOccurrences(sentences_, layout_.num_attributes);
  marginals_.resize(token_offset_.back(), K);
}

std::pair<int64_t, int64_t> CrfLikelihood::ShardTokens(size_t shard) const {
  const size_t begin = shard * kSentencesPerShard, end = std::min(sentences_.size(), begin + kSentencesPerShard);
  return {token_offset_[begin], token_offset_[end]};
}

std::string CrfLikelihood::EncodeShard(size_t shard, double log_p, const Eigen::VectorXd& counts) const {
  const auto [first, last] = ShardTokens(shard);
  ByteWriter w;
  w.U64(shard);
  w.F64(log_p);
  w.F64s(counts.data(), static_cast<size_t>(counts.size()));
  w.Str(std::string_view(reinterpret_cast<const char*>(marginals_.row(first).data()),
                         static_cast<size_t>((last - first) * marginals_.cols()) * sizeof(float)));
  return w.Take();
}

Status CrfLikelihood::DecodeShard(const std::string& bytes, size_t* shard, double* log_p, Eigen::VectorXd* counts) {
  try {
    ByteReader r(bytes);
    *shard = r.U64();
    *log_p = r.F64();
    const std::vector<double> c = r.F64s();
    const std::string rows = r.Str();
    r.ExpectEnd();
    if (*shard >= NumShards(sentences_.size(), kSentencesPerShard) || c.size() != static_cast<size_t>(counts->size()))
      return Status::Internal("CRF shard from another process has the wrong shape");
    const auto [first, last] = ShardTokens(*shard);
    if (rows.size() != static_cast<size_t>((last - first) * marginals_.cols()) * sizeof(float))
      return Status::Internal("CRF shard from another process has the wrong number of marginals");
    *counts = Eigen::Map<const Eigen::VectorXd>(c.data(), counts->size());
    std::memcpy(marginals_.row(first).data(), rows.data(), rows.size());
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("CRF shard from another process: " + e.status().message());
  }
}

// Rank 0 holds the sums and every token's marginals; the other ranks receive them, so that every
// rank gathers the same gradient.
Status CrfLikelihood::ShareTotals(double* log_likelihood, Eigen::VectorXd* counts) {
  if (processes_ == nullptr || processes_->size() == 1) return Status::Ok();
  std::string bytes;
  if (processes_->rank() == 0) {
    ByteWriter w;
    w.F64(*log_likelihood);
    w.F64s(counts->data(), static_cast<size_t>(counts->size()));
    w.Str(std::string_view(reinterpret_cast<const char*>(marginals_.data()),
                           static_cast<size_t>(marginals_.size()) * sizeof(float)));
    bytes = w.Take();
  }
  SEQFLOW_RETURN_IF_ERROR(processes_->Broadcast(0, &bytes));
  if (processes_->rank() == 0) return Status::Ok();
  try {
    ByteReader r(bytes);
    *log_likelihood = r.F64();
    const std::vector<double> c = r.F64s();
    const std::string rows = r.Str();
    r.ExpectEnd();
    if (c.size() != static_cast<size_t>(counts->size()) ||
        rows.size() != static_cast<size_t>(marginals_.size()) * sizeof(float))
      return Status::Internal("CRF totals from rank 0 have the wrong shape");
    *counts = Eigen::Map<const Eigen::VectorXd>(c.data(), counts->size());
    std::memcpy(marginals_.data(), rows.data(), rows.size());
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("CRF totals from rank 0: " + e.status().message());
  }
}

double CrfLikelihood::Evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& gradient) {
  const int64_t A = layout_.num_attributes, K = layout_.num_labels;
  const Eigen::Map<const RowMatrixXd> transition = CrfTransition(w, layout_);
  const ChainLanesTransition chain_transition = ChainLanesTransition::FromLogPotentials(transition);
  const bool second_order = layout_.order == 2;
  const int64_t transition_cells = second_order ? TrigramSize(static_cast<int>(K)) : K * K;
  const Eigen::VectorXd trigram = second_order ? CrfTrigramPotentials(w, layout_) : Eigen::VectorXd();
  const SecondOrderTransition trigram_transition =
      second_order ? SecondOrderTransition::FromLogPotentials(trigram, static_cast<int>(K)) : SecondOrderTransition();
  const size_t slots = OrderedSlots(threads_);
  // [K x K] bigram counts, or [(K+1) K K] trigram counts for order 2; one more slot receives
  // other processes' shards.
  std::vector<Eigen::VectorXd> slot_counts(slots + 1, Eigen::VectorXd::Zero(transition_cells));
  std::vector<double> slot_log_p(slots + 1, 0);
  std::vector<size_t> slot_shard(slots + 1, 0);
  std::vector<ChainLanesWork> workspaces(second_order ? 0 : slots);
  std::vector<SecondOrderWork> second_order_workspaces(second_order ? slots : 0);
  std::vector<std::vector<double>> slot_scores(slots);  // [shard tokens x K] row-major
  std::vector<std::vector<int32_t>> slot_row_ids(slots);
  std::vector<LaneVector<Lanes<kLanes>>> slot_xi(slots, LaneVector<Lanes<kLanes>>(transition_cells, Lanes<kLanes>{}));
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(transition_cells);
  double log_likelihood = 0;
  const double* values = row_values_.empty() ? nullptr : row_values_.data();
  // The scores of a whole shard go into one table that the batches gather their lanes from; the
  // batches (runs of kLanes sentences of similar length) run in a fixed order within the shard, so
  // log Z sums and bigram counts do not depend on the thread that runs the shard.
  DistributedShardsFns fns;
  fns.map = [&](size_t shard, size_t begin, size_t end, size_t slot) {
    slot_shard[slot] = shard;
    const int64_t base = token_offset_[begin];
    std::vector<double>& scores = slot_scores[slot];
    scores.resize((token_offset_[end] - base) * K);
    double log_p = 0;
    for (size_t n = begin; n < end; ++n) {
      double* rows = scores.data() + (token_offset_[n] - base) * K;
      SentenceScores(w.data(), K, sentences_[n], rows, values);
      const Eigen::Map<const RowMatrixXd> sentence_scores(rows, sentences_[n].size(), K);
      log_p += second_order ? SecondOrderScore(sentence_scores, trigram, labels_[n])
                            : ChainScore(sentence_scores, transition, labels_[n]);
    }
    const std::span<const int32_t> row_ids = ChainRowIds(token_offset_[end] - base, &slot_row_ids[slot]);
    const ChainPotentials potentials{scores.data(), ChainPotentials::Kind::kLogScores, nullptr};
    const std::vector<size_t> order = LengthSortedOrder(labels_, begin, end);
    for (size_t b = 0; b < order.size(); b += kLanes) {
      LaneBatch<kLanes> batch;
      std::array<float*, kLanes> rows{};
      for (size_t l = 0; l < kLanes && b + l < order.size(); ++l) {
        const size_t n = order[b + l];
        batch.obs[l] = row_ids.subspan(token_offset_[n] - base, sentences_[n].size());
        batch.length = std::max(batch.length, batch.len(static_cast<int>(l)));
        rows[l] = marginals_.data() + token_offset_[n] * K;
      }
      const std::array<double, kLanes> log_z =
          second_order
              ? SecondOrderForwardBackward<float>(scores.data(), trigram_transition, batch,
                                                  second_order_workspaces[slot], rows, {}, slot_xi[slot].data())
              : ChainLanesForwardBackward<float>(potentials, chain_transition, batch, workspaces[slot], rows,
                                                 slot_xi[slot].data());
      for (double z : log_z) log_p -= z;
    }
    slot_counts[slot].setZero();
    if (second_order) {
      SecondOrderAddTrigrams(trigram_transition, slot_xi[slot].data(), slot_counts[slot].data());
    } else {
      ChainLanesAddBigrams(chain_transition, slot_xi[slot].data(), slot_counts[slot].data());
    }
    slot_log_p[slot] = log_p;
  };
  fns.encode = [&](size_t slot) { return EncodeShard(slot_shard[slot], slot_log_p[slot], slot_counts[slot]); };
  fns.decode = [&](const std::string& bytes, size_t slot) {
    return DecodeShard(bytes, &slot_shard[slot], &slot_log_p[slot], &slot_counts[slot]);
  };
  fns.reduce = [&](size_t, size_t slot) {
    log_likelihood += slot_log_p[slot];
    counts += slot_counts[slot];
  };
  const Status spread =
      DistributedShardsOrdered(processes_, sentences_.size(), kSentencesPerShard, threads_, slots, fns);
  if (!spread.ok() || !ShareTotals(&log_likelihood, &counts).ok()) return std::numeric_limits<double>::quiet_NaN();
  RowMatrixXd bigrams = RowMatrixXd::Zero(K, K);
  if (second_order) {
    for (int64_t a = 0; a <= K; ++a) bigrams += Eigen::Map<const RowMatrixXd>(counts.data() + a * K * K, K, K);
  } else {
    bigrams = Eigen::Map<const RowMatrixXd>(counts.data(), K, K);
  }

  gradient.resize(layout_.size());
  const double inv_sigma2 = 1.0 / sigma2_;
  std::vector<double> shard_penalty(NumShards(A, kAttributesPerShard), 0.0);
  // ∇W(a, ·) = x_a Σ_t (P_t - e_{y_t}) + W(a, ·) / δ².
  const GatherInputs in{marginals_.data(),
                        occurrences_.start.data(),
                        occurrences_.tokens.data(),
                        token_label_.data(),
                        row_values_.empty() ? nullptr : row_values_.data(),
                        w.data(),
                        K,
                        inv_sigma2};
  ParallelShards(A, kAttributesPerShard, threads_, [&](size_t shard, size_t begin, size_t end) {
    shard_penalty[shard] =
        GatherGradientRows(in, static_cast<int64_t>(begin), static_cast<int64_t>(end), gradient.data());
  });
  double penalty = 0.5 * inv_sigma2 * transition.squaredNorm();
  for (double p : shard_penalty) penalty += p;
  const int64_t tr = layout_.transition_offset();
  Eigen::Map<RowMatrixXd>(gradient.data() + tr, K, K) = bigrams - empirical_bigrams_ + transition * inv_sigma2;
  if (second_order) {
    const auto u = w.segment(layout_.trigram_offset(), counts.size());
    gradient.segment(layout_.trigram_offset(), counts.size()) = counts - empirical_trigrams_ + u * inv_sigma2;
    penalty += 0.5 * inv_sigma2 * u.squaredNorm();
  }
  return -log_likelihood + penalty;
}

}  // namespace seqflow
