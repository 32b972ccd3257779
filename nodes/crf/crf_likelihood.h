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
//  1. over fixed compute shards of kCrfShardSentences sentences: scores, forward-backward on
//     kLanes sentences of similar length at a time (nodes/chain/forward_backward_lanes.h), token
//     marginals into a [block tokens x K] float buffer, log Z and expected bigrams reduced in
//     shard order;
//  2. over fixed shards of attributes: the rows of ∇W gathered over an inverted index of the
//     block (crf_gradient_rows.h), a left fold in token order per attribute.
// The sentences are one resident block, indexed once, or streamed (CrfSentences) in blocks of
// CrfSentences::block_sentences(), a multiple of the compute shard, loaded, evaluated and dropped in order: the
// fold continues from block to block in the gradient's rows, so every sum runs in the same order
// and a streamed evaluation gives the resident bits, for any storage shard size. Memory streamed:
// the weights and gradient, one block and the gold counts (a row's (label, count) pairs).
// The gold score is summed from the same score matrices, so no empirical-count vector of the
// model's size is kept.
// Not thread-safe (Evaluate uses `threads` threads itself).
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/process_group.h"
#include "engine/base/status.h"
#include "nodes/chain/linear_chain.h"
#include "nodes/chain/second_order_lanes.h"
#include "nodes/crf/crf_gradient_rows.h"
#include "nodes/crf/crf_sentences.h"
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

struct CrfBlock;

class CrfLikelihood final : public Objective {
 public:
  // REQUIRES: labels[n].size() == sentences[n].size() >= 1, labels in [0, num_labels), attribute
  // ids in [0, num_attributes); `row_values` empty (every attribute fires with value 1) or [A]
  // (attribute a fires with value row_values[a]; see attribute_groups.h). A resident `data` keeps
  // references to its vectors. With `processes` (MPI ranks), the forward-backward passes are
  // spread over them and reduced in one process's order (distributed_shards.h), and rank 0 alone
  // folds the marginals into the gradient and sends it to the others: the value and gradient are
  // the same bits for any number of ranks. Streamed, a rank other than 0 loads only the sentences
  // of its compute shards; rank 0 loads every block, since the fold needs every token's attributes
  // in token order. A block that cannot be loaded (by the constructor, which counts the gold
  // features in one pass, or by Evaluate) makes status() its error.
  CrfLikelihood(const CrfSentences& data, CrfLayout layout, double sigma2, int threads,
                std::vector<double> row_values = {}, const ProcessGroup* processes = nullptr);
  CrfLikelihood(const std::vector<SentenceFeatures>& sentences, const std::vector<std::vector<int32_t>>& labels,
                CrfLayout layout, double sigma2, int threads, std::vector<double> row_values = {},
                const ProcessGroup* processes = nullptr);
  ~CrfLikelihood() override;

  // NaN when a block could not be loaded (status() says why) or the processes could not exchange
  // their shards (MPI's default handler aborts first).
  double Evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& gradient) override;
  const CrfLayout& layout() const { return layout_; }
  const Status& status() const { return status_; }

 private:
  // Calls visit on each block in sentence order (the resident one, or each streamed block loaded:
  // every sentence when `all`, else those this rank's compute shards need).
  Status ForEachBlock(bool all, const std::function<Status(CrfBlock& block, bool first, bool last)>& visit);
  void CountGold(const CrfBlock& block, std::vector<int32_t>* dense_gold);
  void KeepGold(const std::vector<int32_t>& dense_gold);
  // Rank 0's value and gradient to the other ranks.
  Status ShareResult(double* value, Eigen::VectorXd* gradient) const;

  CrfSentences data_;
  CrfLayout layout_;
  double sigma2_;
  int threads_;
  const ProcessGroup* processes_;
  bool gathers_;                        // this process folds the marginals into the gradient (rank 0)
  std::vector<double> row_values_;      // [A] feature value of each attribute, or empty for all 1
  std::unique_ptr<CrfBlock> resident_;  // the resident data's one block, indexed once
  RowMatrixXd empirical_bigrams_;       // [K x K] gold label-bigram counts
  Eigen::VectorXd empirical_trigrams_;  // [(K+1) K K] gold trigram counts (order 2)
  std::vector<int64_t> gold_start_;     // [A + 1] CSR offsets into gold_
  std::vector<GoldCount> gold_;         // each row's gold (label, count) pairs
  Status status_;
};

}  // namespace seqflow
