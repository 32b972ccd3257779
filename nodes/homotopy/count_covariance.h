// Σ_{x∈U} Cov_{P(y|x,θ)}[Count(x, y)] on the free parameters of a PomLayout — the matrix of
// Haffari & Sarkar (2008) Eq. 8 before the factor H — dense or as a product with a vector.
//
// Construction runs the chain library's scaled forward-backward (nodes/chain) once on every
// unlabeled sentence, kLanes sentences of similar length at a time, and keeps its tables
// (ChainLanesTables: 3 T K doubles per sentence, plus padding), from which come
//   expected_counts = Σ_x E[Count] (so EM_1 = expected_counts / |U|), log P(U), the mean
//   per-token posterior entropy, and then, without re-running forward-backward,
//   Apply(u)  = Σ_x Cov[Count] u   matrix-free: the chain library's tangent pass
//               (nodes/chain/tangent_lanes.h), O(T K²) per sentence — the directional derivative
//               of the expected counts along log θ += u — on the same lane batches;
//   Dense()   = Σ_x Cov[Count]     [P x P] by the §4 Z-table (covariance_ztable.h), each sentence
//               touching only the initial / transition events and the emissions of its words.
//               Memory P² doubles: for small models and emission-only models of moderate V.
// Every sum over sentences runs in fixed shards (nodes/common/parallel.h) reduced in shard
// order: results are bit-identical for any thread count.
//
// Ownership: keeps a copy of the model and a reference to `unlabeled`, which must outlive it.
// Thread safety: immutable after construction; const methods may be called concurrently (each
// call makes its own scratch space).
// REQUIRES: hmm of the layout's K and V; unlabeled non-empty, symbols in [0, V); threads <= 0
// means all cores. Empty sentences are skipped (they still count in |U| for callers).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

class CountCovariance {
 public:
  CountCovariance(const PomLayout& layout, const HmmParams& hmm, const IdSentences& unlabeled, int threads);

  const PomLayout& layout() const { return layout_; }
  const HmmParams& model() const { return hmm_; }
  size_t num_sentences() const { return unlabeled_->size(); }
  int threads() const { return threads_; }

  const Eigen::VectorXd& expected_counts() const { return expected_counts_; }  // [P] Σ_x E[Count]
  double log_likelihood() const { return log_likelihood_; }                    // Σ_x log P(x)
  double mean_token_entropy() const { return mean_token_entropy_; }            // nats per token

  // Σ_x Cov[Count] u. REQUIRES: u.size() == P.
  Eigen::VectorXd Apply(const Eigen::VectorXd& u) const;

  // Σ_x Cov[Count], [P x P], symmetric positive semi-definite.
  Eigen::MatrixXd Dense() const;

 private:
  // A run of up to kLanes live-or-dead sentences of one shard and the tables kept for it.
  struct Batch {
    LaneBatch<kLanes> lanes;  // spans into *unlabeled_
    ChainLanesTables tables;
  };
  // Where sentence s's tables are: batches_[shard][batch], lane `lane` (batch = -1: empty).
  struct Place {
    int32_t batch = -1;
    int32_t lane = 0;
  };

  PomLayout layout_;
  HmmParams hmm_;
  const IdSentences* unlabeled_;
  int threads_;
  ChainLanesTransition transition_;
  std::vector<std::vector<Batch>> batches_;  // [shards] the non-empty sentences, longest first
  std::vector<Place> places_;                // [|U|]
  Eigen::VectorXd expected_counts_;
  double log_likelihood_ = 0;
  double mean_token_entropy_ = 0;
};

}  // namespace seqflow
