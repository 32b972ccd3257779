// Σ_{x∈U} Cov_{P(y|x,θ)}[Count(x, y)] on the free parameters of a PomLayout — the matrix of
// Haffari & Sarkar (2008) Eq. 8 before the factor H — dense or as a product with a vector.
//
// Construction runs scaled forward-backward on every unlabeled sentence once and keeps the
// tables (sentence_lattice.h: 2 T K doubles per sentence), from which come
//   expected_counts = Σ_x E[Count] (so EM_1 = expected_counts / |U|), log P(U), the mean
//   per-token posterior entropy, and then, without re-running forward-backward,
//   Apply(u)  = Σ_x Cov[Count] u   matrix-free: tangent-linear forward-backward, O(T K²) per
//               sentence (the directional derivative of the expected counts along log θ += u);
//               with transitions frozen, kLanes sentences at a time (tangent_lanes.h), each
//               shard's sentences sorted by length and packed into lanes at construction;
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

#include "nodes/homotopy/pom_layout.h"
#include "nodes/homotopy/sentence_lattice.h"
#include "nodes/homotopy/tangent_lanes.h"

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
  PomLayout layout_;
  HmmParams hmm_;
  const IdSentences* unlabeled_;
  int threads_;
  std::vector<SentenceLattice> lattices_;  // [|U|], empty sentences left default
  // [shards] the live sentences of each shard, longest first, in lanes; empty when the
  // transition block is free (Apply then runs sentence by sentence).
  std::vector<std::vector<LatticeBatch<kLanes>>> batches_;
  Eigen::VectorXd expected_counts_;
  double log_likelihood_ = 0;
  double mean_token_entropy_ = 0;
};

}  // namespace seqflow
