#include "nodes/crf/crf_likelihood.h"

#include <cmath>

#include "nodes/common/parallel.h"
#include "nodes/optim/blocked_sum.h"

namespace seqflow {
namespace {

constexpr size_t kSentencesPerShard = 32;
constexpr size_t kAttributesPerShard = 2048;

}  // namespace

void CrfScores(const Eigen::Ref<const Eigen::VectorXd>& w, const CrfLayout& layout, const SentenceFeatures& sentence,
               RowMatrixXd& scores) {
  const int64_t K = layout.num_labels;
  const int32_t T = sentence.size();
  scores.setZero(T, K);
  for (int32_t t = 0; t < T; ++t) {
    double* row = scores.data() + t * K;
    for (int32_t i = sentence.offsets[t]; i < sentence.offsets[t + 1]; ++i) {
      const double* wa = w.data() + sentence.ids[i] * K;
      for (int64_t k = 0; k < K; ++k) row[k] += wa[k];
    }
  }
}

CrfLikelihood::CrfLikelihood(const std::vector<SentenceFeatures>& sentences,
                             const std::vector<std::vector<int32_t>>& labels, CrfLayout layout, double sigma2,
                             int threads)
    : sentences_(sentences), labels_(labels), layout_(layout), sigma2_(sigma2), threads_(threads) {
  BuildIndex();
}

void CrfLikelihood::BuildIndex() {
  const int64_t A = layout_.num_attributes, K = layout_.num_labels;
  token_offset_.assign(sentences_.size() + 1, 0);
  for (size_t n = 0; n < sentences_.size(); ++n) token_offset_[n + 1] = token_offset_[n] + sentences_[n].size();
  token_label_.resize(token_offset_.back());
  empirical_bigrams_.setZero(K, K);
  occurrence_start_.assign(A + 1, 0);
  for (const SentenceFeatures& s : sentences_)
    for (int32_t id : s.ids) ++occurrence_start_[id + 1];
  for (int64_t a = 0; a < A; ++a) occurrence_start_[a + 1] += occurrence_start_[a];
  occurrence_token_.resize(occurrence_start_[A]);
  std::vector<int64_t> fill(occurrence_start_.begin(), occurrence_start_.end() - 1);
  for (size_t n = 0; n < sentences_.size(); ++n) {
    const SentenceFeatures& s = sentences_[n];
    const std::vector<int32_t>& y = labels_[n];
    for (int32_t t = 0; t < s.size(); ++t) {
      const int32_t token = static_cast<int32_t>(token_offset_[n] + t);
      token_label_[token] = y[t];
      for (int32_t i = s.offsets[t]; i < s.offsets[t + 1]; ++i) occurrence_token_[fill[s.ids[i]]++] = token;
      if (t > 0) empirical_bigrams_(y[t - 1], y[t]) += 1;
    }
  }
  marginals_.resize(token_offset_.back(), K);
}

double CrfLikelihood::Evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& gradient) {
  const int64_t A = layout_.num_attributes, K = layout_.num_labels;
  const Eigen::Map<const RowMatrixXd> transition = CrfTransition(w, layout_);
  const ChainTransition chain_transition(transition);
  const size_t slots = OrderedSlots(threads_);
  std::vector<RowMatrixXd> slot_bigrams(slots, RowMatrixXd::Zero(K, K));
  std::vector<double> slot_log_p(slots, 0);
  std::vector<ChainWorkspace> workspaces(slots);
  std::vector<RowMatrixXd> slot_scores(slots);
  RowMatrixXd bigrams = RowMatrixXd::Zero(K, K);
  double log_likelihood = 0;
  ParallelShardsOrdered(
      sentences_.size(), kSentencesPerShard, threads_, slots,
      [&](size_t, size_t begin, size_t end, size_t slot) {
        RowMatrixXd& scores = slot_scores[slot];
        slot_bigrams[slot].setZero();
        double log_p = 0;
        for (size_t n = begin; n < end; ++n) {
          CrfScores(w, layout_, sentences_[n], scores);
          log_p += ChainScore(scores, transition, labels_[n]);
          log_p -= ChainForwardBackward(scores, chain_transition, workspaces[slot],
                                        marginals_.data() + token_offset_[n] * K, slot_bigrams[slot].data());
        }
        slot_log_p[slot] = log_p;
      },
      [&](size_t, size_t slot) {
        log_likelihood += slot_log_p[slot];
        bigrams += slot_bigrams[slot];
      });

  gradient.resize(layout_.size());
  const double inv_sigma2 = 1.0 / sigma2_;
  ParallelShards(A, kAttributesPerShard, threads_, [&](size_t, size_t begin, size_t end) {
    for (size_t a = begin; a < end; ++a) {
      double* g = gradient.data() + a * K;
      const double* wa = w.data() + a * K;
      for (int64_t k = 0; k < K; ++k) g[k] = wa[k] * inv_sigma2;
      const int64_t last = occurrence_start_[a + 1];
      for (int64_t i = occurrence_start_[a]; i < last; ++i) {
        const int32_t token = occurrence_token_[i];
        if (i + 4 < last) __builtin_prefetch(marginals_.data() + static_cast<int64_t>(occurrence_token_[i + 4]) * K);
        const double* p = marginals_.data() + static_cast<int64_t>(token) * K;
        for (int64_t k = 0; k < K; ++k) g[k] += p[k];
        g[token_label_[token]] -= 1;
      }
    }
  });
  const int64_t tr = layout_.transition_offset();
  Eigen::Map<RowMatrixXd>(gradient.data() + tr, K, K) = bigrams - empirical_bigrams_ + transition * inv_sigma2;
  return -log_likelihood + 0.5 * inv_sigma2 * ParallelSquaredNorm(w, threads_);
}

}  // namespace seqflow
