// The penalised conditional log-likelihood of a first-order linear-chain CRF over attribute ×
// label features (every attribute paired with every label, as CRF++ and Wapiti do), as an
// Objective for L-BFGS:
//   f(w) = -Σ_n log p(y_n | x_n; w) + ‖w‖² / (2 δ²)
//   ∇f  = Σ_n (E_p[φ(x_n, ·)] - φ(x_n, y_n)) + w / δ².
// Parameters (CrfLayout): W [A x K] state weights, row a = attribute a, then A [K x K] label
// bigrams. The score of label k at token t is Σ_{a ∈ attrs(t)} W(a, k).
// Order 2 (Sha & Pereira 2003; nodes/chain/second_order_lanes.h) adds U [(K+1) x K x K] tag-trigram
// weights after A, the first index K being the start tag: the chain's transitions are
// G(a, b, c) = A(b, c) + U(a, b, c) between consistent tag pairs (a, b) -> (b, c), U = 0 is the
// first-order CRF, and the observation features stay on the current tag. Its gradient adds
// ∇U = E[trigram counts] - gold trigram counts + U / δ², and ∇A sums the trigram counts over a.
//
// Evaluation is two deterministic parallel passes (same bits for any thread count):
//  1. over fixed shards of sentences: scores, forward-backward on kLanes sentences of similar
//     length at a time (nodes/chain/forward_backward_lanes.h), token marginals into one [tokens x K] buffer, log Z and
//     expected bigrams reduced in shard order;
//  2. over fixed shards of attributes: ∇W(a, ·) = Σ over the tokens t where a fires (an inverted
//     index built once) of P_t - e_{y_t}, plus w / δ². Gathering per attribute instead of
//     scattering per token keeps the reduction order fixed without one gradient copy per thread.
// The gold score is summed from the same score matrices, so no empirical-count vector of the
// model's size is kept.
// Not thread-safe (Evaluate uses `threads` threads itself).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/process_group.h"
#include "engine/base/status.h"
#include "nodes/chain/linear_chain.h"
#include "nodes/chain/second_order_lanes.h"
#include "nodes/crf/attribute_occurrences.h"
#include "nodes/features/feature_templates.h"
#include "nodes/optim/objective.h"

namespace seqflow {

struct CrfLayout {
  int64_t num_attributes = 0;  // A
  int64_t num_labels = 0;      // K
  int order = 1;               // 1, or 2 for tag-pair labels with trigram weights U
  int64_t size() const { return trigram_offset() + (order == 2 ? TrigramSize(static_cast<int>(num_labels)) : 0); }
  int64_t transition_offset() const { return num_attributes * num_labels; }
  int64_t trigram_offset() const { return transition_offset() + num_labels * num_labels; }
};

// [T x K] label scores of one sentence under weights `w` (CrfLayout): Σ_{a ∈ attrs(t)} x_a W(a, ·)
// with feature values x_a = row_values[a], or 1 when row_values is null.
void CrfScores(const Eigen::Ref<const Eigen::VectorXd>& w, const CrfLayout& layout, const SentenceFeatures& sentence,
               RowMatrixXd& scores, const double* row_values = nullptr);
// The [K x K] label-bigram block of `w`.
inline Eigen::Map<const RowMatrixXd> CrfTransition(const Eigen::Ref<const Eigen::VectorXd>& w,
                                                   const CrfLayout& layout) {
  return {w.data() + layout.transition_offset(), layout.num_labels, layout.num_labels};
}

// G = A(b, c) + U(a, b, c), the second-order chain's trigram log-potentials
// [TrigramSize(K)] (second_order_lanes.h). REQUIRES: layout.order == 2.
Eigen::VectorXd CrfTrigramPotentials(const Eigen::Ref<const Eigen::VectorXd>& w, const CrfLayout& layout);

class CrfLikelihood final : public Objective {
 public:
  // REQUIRES: labels[n].size() == sentences[n].size() >= 1, labels in [0, num_labels), attribute
  // ids in [0, num_attributes); `row_values` empty (every attribute fires with value 1) or [A]
  // (attribute a fires with value row_values[a]; see attribute_groups.h). Keeps references to
  // `sentences` and `labels`. With `processes` (MPI ranks, each holding every sentence), the
  // forward-backward passes are spread over them and reduced in one process's order
  // (distributed_shards.h): the value and gradient are the same bits for any number of ranks.
  CrfLikelihood(const std::vector<SentenceFeatures>& sentences, const std::vector<std::vector<int32_t>>& labels,
                CrfLayout layout, double sigma2, int threads, std::vector<double> row_values = {},
                const ProcessGroup* processes = nullptr);

  // NaN when the processes could not exchange their shards (MPI's default handler aborts first).
  double Evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& gradient) override;
  const CrfLayout& layout() const { return layout_; }

 private:
  void BuildIndex();
  // The first and one-past-last global token of a shard of kSentencesPerShard sentences.
  std::pair<int64_t, int64_t> ShardTokens(size_t shard) const;
  // A shard's log-likelihood part, transition counts and marginal rows, for rank 0.
  std::string EncodeShard(size_t shard, double log_p, const Eigen::VectorXd& counts) const;
  // Rank 0: a shard another rank sent; its marginals go into marginals_.
  Status DecodeShard(const std::string& bytes, size_t* shard, double* log_p, Eigen::VectorXd* counts);
  Status ShareTotals(double* log_likelihood, Eigen::VectorXd* counts);

  const std::vector<SentenceFeatures>& sentences_;
  const std::vector<std::vector<int32_t>>& labels_;
  CrfLayout layout_;
  double sigma2_;
  int threads_;
  const ProcessGroup* processes_;
  std::vector<double> row_values_;     // [A] feature value of each attribute, or empty for all 1
  std::vector<int64_t> token_offset_;  // [N + 1] first global token of each sentence
  std::vector<int32_t> token_label_;   // [tokens] gold label
  AttributeOccurrences occurrences_;   // tokens where each attribute fires
  RowMatrixXd empirical_bigrams_;      // [K x K] gold label-bigram counts
  Eigen::VectorXd empirical_trigrams_;  // [(K+1) K K] gold trigram counts (order 2)
  // [tokens x K] scratch of pass 1. Single precision halves what pass 2 gathers, its dominant
  // cost; each marginal keeps 7 digits, far below the gradient's tolerance.
  Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> marginals_;
};

}  // namespace seqflow
