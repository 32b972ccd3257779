#include "nodes/crf/crf_likelihood.h"

#include <algorithm>
#include <cmath>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "nodes/common/lanes.h"
#include "nodes/common/parallel.h"
#include "nodes/chain/forward_backward_lanes.h"

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

// rows[t] = Σ_{a ∈ attrs(t)} x_a W(a, ·), x_a = row_values[a] or 1, for rows [T x K].
void SentenceScoresScalar(const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
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

#if defined(__AVX512F__)
// The same with a token's row held in NB registers of 8 labels (K <= 8 NB) while its attributes
// are summed; the last block is loaded and stored under a mask. Sums in the same order as
// SentenceScoresScalar.
template <int NB>
void SentenceScoresBlocked(const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
                           const double* row_values) {
  const __mmask8 tail = static_cast<__mmask8>((1u << (K - 8 * (NB - 1))) - 1);
  const int32_t T = sentence.size(), end = sentence.offsets[T];
  for (int32_t i = 0; i < std::min(kPrefetchAhead, end); ++i) PrefetchRow(w, K, sentence.ids[i]);
  for (int32_t t = 0; t < T; ++t) {
    __m512d acc[NB];
    for (int b = 0; b < NB; ++b) acc[b] = _mm512_setzero_pd();
    for (int32_t i = sentence.offsets[t]; i < sentence.offsets[t + 1]; ++i) {
      if (i + kPrefetchAhead < end) PrefetchRow(w, K, sentence.ids[i + kPrefetchAhead]);
      const int32_t a = sentence.ids[i];
      const __m512d x = _mm512_set1_pd(row_values ? row_values[a] : 1.0);
      const double* wa = w + a * K;
      for (int b = 0; b + 1 < NB; ++b) acc[b] = _mm512_fmadd_pd(x, _mm512_loadu_pd(wa + 8 * b), acc[b]);
      acc[NB - 1] = _mm512_fmadd_pd(x, _mm512_maskz_loadu_pd(tail, wa + 8 * (NB - 1)), acc[NB - 1]);
    }
    double* row = rows + t * K;
    for (int b = 0; b + 1 < NB; ++b) _mm512_storeu_pd(row + 8 * b, acc[b]);
    _mm512_mask_storeu_pd(row + 8 * (NB - 1), tail, acc[NB - 1]);
  }
}
#endif

// Overwrites rows [T x K] with the sentence's scores.
void SentenceScores(const double* w, int64_t K, const SentenceFeatures& sentence, double* rows,
                    const double* row_values) {
#if defined(__AVX512F__)
  switch ((K + 7) / 8) {
    case 1:
      return SentenceScoresBlocked<1>(w, K, sentence, rows, row_values);
    case 2:
      return SentenceScoresBlocked<2>(w, K, sentence, rows, row_values);
    case 3:
      return SentenceScoresBlocked<3>(w, K, sentence, rows, row_values);
    case 4:
      return SentenceScoresBlocked<4>(w, K, sentence, rows, row_values);
    default:
      break;
  }
#endif
  SentenceScoresScalar(w, K, sentence, rows, row_values);
}

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

// Gradient rows [begin, end) into g; returns ½ Σ ‖w_a‖² / δ² over them.
double GatherGradientRowsScalar(const GatherInputs& in, int64_t begin, int64_t end, double* gradient) {
  const int64_t K = in.K, stop = in.occurrence_start[end];
  std::vector<double> sum(K);
  double squared = 0;
  for (int64_t a = begin; a < end; ++a) {
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int64_t i = in.occurrence_start[a]; i < in.occurrence_start[a + 1]; ++i) {
      PrefetchOccurrence(in, i, stop);
      const int32_t token = in.occurrence_token[i];
      const float* p = in.marginals + static_cast<int64_t>(token) * K;
      for (int64_t k = 0; k < K; ++k) sum[k] += p[k];
      sum[in.token_label[token]] -= 1;
    }
    const double x = in.row_values ? in.row_values[a] : 1.0;
    double* g = gradient + a * K;
    const double* wa = in.w + a * K;
    for (int64_t k = 0; k < K; ++k) g[k] = x * sum[k] + wa[k] * in.inv_sigma2, squared += wa[k] * wa[k];
  }
  return 0.5 * in.inv_sigma2 * squared;
}

#if defined(__AVX512F__)
// The same with an attribute's sum held in NB registers of 8 labels (K <= 8 NB), the float rows
// widened as they are loaded and the last block masked. Sums in the same order as the scalar code.
template <int NB>
double GatherGradientRowsBlocked(const GatherInputs& in, int64_t begin, int64_t end, double* gradient) {
  const int64_t K = in.K, stop = in.occurrence_start[end];
  const __mmask8 tail = static_cast<__mmask8>((1u << (K - 8 * (NB - 1))) - 1);
  const __m512d inv_sigma2 = _mm512_set1_pd(in.inv_sigma2);
  __m512d squared = _mm512_setzero_pd();
  alignas(64) double sum[8 * NB];
  for (int64_t a = begin; a < end; ++a) {
    __m512d acc[NB];
    for (int b = 0; b < NB; ++b) acc[b] = _mm512_setzero_pd();
    const int64_t first = in.occurrence_start[a], last = in.occurrence_start[a + 1];
    for (int64_t i = first; i < last; ++i) {
      PrefetchOccurrence(in, i, stop);
      const float* p = in.marginals + static_cast<int64_t>(in.occurrence_token[i]) * K;
      for (int b = 0; b + 1 < NB; ++b) acc[b] = _mm512_add_pd(acc[b], _mm512_cvtps_pd(_mm256_loadu_ps(p + 8 * b)));
      acc[NB - 1] = _mm512_add_pd(acc[NB - 1], _mm512_cvtps_pd(_mm256_maskz_loadu_ps(tail, p + 8 * (NB - 1))));
    }
    for (int b = 0; b < NB; ++b) _mm512_store_pd(sum + 8 * b, acc[b]);
    for (int64_t i = first; i < last; ++i) sum[in.token_label[in.occurrence_token[i]]] -= 1;
    const __m512d x = _mm512_set1_pd(in.row_values ? in.row_values[a] : 1.0);
    double* g = gradient + a * K;
    const double* wa = in.w + a * K;
    for (int b = 0; b < NB; ++b) {
      const __mmask8 m = b + 1 < NB ? static_cast<__mmask8>(0xff) : tail;
      const __m512d wb = _mm512_maskz_loadu_pd(m, wa + 8 * b);
      _mm512_mask_storeu_pd(g + 8 * b, m,
                            _mm512_fmadd_pd(x, _mm512_load_pd(sum + 8 * b), _mm512_mul_pd(wb, inv_sigma2)));
      squared = _mm512_fmadd_pd(wb, wb, squared);
    }
  }
  return 0.5 * in.inv_sigma2 * _mm512_reduce_add_pd(squared);
}
#endif

double GatherGradientRows(const GatherInputs& in, int64_t begin, int64_t end, double* gradient) {
#if defined(__AVX512F__)
  switch ((in.K + 7) / 8) {
    case 1:
      return GatherGradientRowsBlocked<1>(in, begin, end, gradient);
    case 2:
      return GatherGradientRowsBlocked<2>(in, begin, end, gradient);
    case 3:
      return GatherGradientRowsBlocked<3>(in, begin, end, gradient);
    case 4:
      return GatherGradientRowsBlocked<4>(in, begin, end, gradient);
    default:
      break;
  }
#endif
  return GatherGradientRowsScalar(in, begin, end, gradient);
}

}  // namespace

void CrfScores(const Eigen::Ref<const Eigen::VectorXd>& w, const CrfLayout& layout, const SentenceFeatures& sentence,
               RowMatrixXd& scores, const double* row_values) {
  scores.resize(sentence.size(), layout.num_labels);
  SentenceScores(w.data(), layout.num_labels, sentence, scores.data(), row_values);
}

CrfLikelihood::CrfLikelihood(const std::vector<SentenceFeatures>& sentences,
                             const std::vector<std::vector<int32_t>>& labels, CrfLayout layout, double sigma2,
                             int threads, std::vector<double> row_values)
    : sentences_(sentences),
      labels_(labels),
      layout_(layout),
      sigma2_(sigma2),
      threads_(threads),
      row_values_(std::move(row_values)) {
  BuildIndex();
}

void CrfLikelihood::BuildIndex() {
  const int64_t K = layout_.num_labels;
  token_offset_.assign(sentences_.size() + 1, 0);
  for (size_t n = 0; n < sentences_.size(); ++n) token_offset_[n + 1] = token_offset_[n] + sentences_[n].size();
  token_label_.resize(token_offset_.back());
  empirical_bigrams_.setZero(K, K);
  for (size_t n = 0; n < sentences_.size(); ++n) {
    const std::vector<int32_t>& y = labels_[n];
    for (size_t t = 0; t < y.size(); ++t) {
      token_label_[token_offset_[n] + static_cast<int64_t>(t)] = y[t];
      if (t > 0) empirical_bigrams_(y[t - 1], y[t]) += 1;
    }
  }
  occurrences_ = IndexOccurrences(sentences_, layout_.num_attributes);
  marginals_.resize(token_offset_.back(), K);
}

double CrfLikelihood::Evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& gradient) {
  const int64_t A = layout_.num_attributes, K = layout_.num_labels;
  const Eigen::Map<const RowMatrixXd> transition = CrfTransition(w, layout_);
  const ChainLanesTransition chain_transition = ChainLanesTransition::FromLogPotentials(transition);
  const size_t slots = OrderedSlots(threads_);
  std::vector<RowMatrixXd> slot_bigrams(slots, RowMatrixXd::Zero(K, K));
  std::vector<double> slot_log_p(slots, 0);
  std::vector<ChainLanesWork> workspaces(slots);
  std::vector<std::vector<double>> slot_scores(slots);  // [shard tokens x K] row-major
  std::vector<std::vector<int32_t>> slot_row_ids(slots);
  std::vector<std::vector<Lanes<kLanes>>> slot_xi(slots, std::vector<Lanes<kLanes>>(K * K, Lanes<kLanes>{}));
  RowMatrixXd bigrams = RowMatrixXd::Zero(K, K);
  double log_likelihood = 0;
  const double* values = row_values_.empty() ? nullptr : row_values_.data();
  // The scores of a whole shard go into one table that the batches gather their lanes from; the
  // batches (runs of kLanes sentences of similar length) run in a fixed order within the shard, so
  // log Z sums and bigram counts do not depend on the thread that runs the shard.
  ParallelShardsOrdered(
      sentences_.size(), kSentencesPerShard, threads_, slots,
      [&](size_t, size_t begin, size_t end, size_t slot) {
        const int64_t base = token_offset_[begin];
        std::vector<double>& scores = slot_scores[slot];
        scores.resize((token_offset_[end] - base) * K);
        double log_p = 0;
        for (size_t n = begin; n < end; ++n) {
          double* rows = scores.data() + (token_offset_[n] - base) * K;
          SentenceScores(w.data(), K, sentences_[n], rows, values);
          log_p += ChainScore(Eigen::Map<const RowMatrixXd>(rows, sentences_[n].size(), K), transition, labels_[n]);
        }
        const std::span<const int32_t> row_ids =
            ChainRowIds(token_offset_[end] - base, &slot_row_ids[slot]);
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
          const std::array<double, kLanes> log_z = ChainLanesForwardBackward<float>(
              potentials, chain_transition, batch, workspaces[slot], rows, slot_xi[slot].data());
          for (double z : log_z) log_p -= z;
        }
        slot_bigrams[slot].setZero();
        ChainLanesAddBigrams(chain_transition, slot_xi[slot].data(), slot_bigrams[slot].data());
        slot_log_p[slot] = log_p;
      },
      [&](size_t, size_t slot) {
        log_likelihood += slot_log_p[slot];
        bigrams += slot_bigrams[slot];
      });

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
  return -log_likelihood + penalty;
}

}  // namespace seqflow
