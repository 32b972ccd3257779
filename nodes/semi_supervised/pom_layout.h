// The free parameters of an HMM viewed as a product of multinomials (Haffari & Sarkar 2008, §3.1).
//
// An HMM with K states and V symbols has 1 + 2K multinomials: the initial distribution (one
// multinomial of size K), the transition rows (K multinomials of size K) and the emission rows
// (K multinomials of size V). Each of the three blocks is either free or frozen. The free
// parameters are the unnormalised vector Θ̃ ∈ R^P_+ that stacks the free blocks in the order
// initial, transition, emission, each block row-major:
//   initial    Θ̃[o_I + i]          i < K
//   transition Θ̃[o_A + i K + j]    i, j < K     (row i is the multinomial of state i)
//   emission   Θ̃[o_B + i V + w]    i < K, w < V (row i is the multinomial of state i)
// θ_m = Θ̃_m / Σ_α Θ̃_m(α) per multinomial m; a frozen block keeps the fixed probabilities of a
// reference HmmParams. Flattening counts with the same map gives Count(x, y) on the free
// parameters, which is what EM_λ and the covariances of Eq. 8 are indexed by.
//
// Value type; cheap to copy; immutable after construction, so shareable between threads.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "nodes/hmm/forward_backward.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

// Sentences of symbol (or label) ids.
using IdSentences = std::vector<std::vector<int32_t>>;

// Which HMM blocks are free (estimated); the others are frozen at a reference model.
struct FreeBlocks {
  bool initial = true;
  bool transition = true;
  bool emission = true;
};

// One multinomial: the entries [offset, offset + size) of Θ̃.
struct MultinomialRange {
  int offset = 0;
  int size = 0;
};

class PomLayout {
 public:
  // REQUIRES: num_states >= 1, num_symbols >= 1.
  PomLayout(int num_states, int num_symbols, FreeBlocks free);

  int num_states() const { return K_; }
  int num_symbols() const { return V_; }
  const FreeBlocks& free() const { return free_; }
  int num_params() const { return P_; }  // P

  // Index in Θ̃ of one event, or -1 when its block is frozen.
  int InitialIndex(int i) const { return free_.initial ? initial_offset_ + i : -1; }
  int TransitionIndex(int i, int j) const { return free_.transition ? transition_offset_ + i * K_ + j : -1; }
  int EmissionIndex(int i, int w) const { return free_.emission ? emission_offset_ + i * V_ + w : -1; }

  // The free multinomials in Θ̃ order.
  const std::vector<MultinomialRange>& multinomials() const { return multinomials_; }

  // The free blocks of (initial [K], transition [K x K], emission [K x V]) stacked into [P].
  Eigen::VectorXd Gather(const Eigen::VectorXd& initial, const Eigen::MatrixXd& transition,
                         const Eigen::MatrixXd& emission) const;
  Eigen::VectorXd Gather(const HmmParams& hmm) const;
  Eigen::VectorXd Gather(const ExpectedCounts& counts) const;

  // The inverse of Gather: [P] into zero-filled [K], [K x K], [K x V] (frozen blocks stay 0).
  void Scatter(const Eigen::VectorXd& flat, Eigen::VectorXd* initial, Eigen::MatrixXd* transition,
               Eigen::MatrixXd* emission) const;

  // The model θ(Θ̃): free rows of Θ̃ normalised, frozen blocks copied from `frozen`.
  // REQUIRES: theta_tilde.size() == P with every multinomial's sum > 0; frozen has K states
  // and V symbols (only its frozen blocks are read).
  HmmParams ToHmm(const Eigen::VectorXd& theta_tilde, const HmmParams& frozen) const;

  // Θ̃ with every multinomial divided by its sum (θ on the free parameters).
  Eigen::VectorXd Normalize(const Eigen::VectorXd& theta_tilde) const;

 private:
  int K_;
  int V_;
  FreeBlocks free_;
  int initial_offset_ = 0;
  int transition_offset_ = 0;
  int emission_offset_ = 0;
  int P_ = 0;
  std::vector<MultinomialRange> multinomials_;
};

}  // namespace seqflow
