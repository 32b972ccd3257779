// Sequence classification with one discrete HMM per class and class priors (Ji, Watson & Carin,
// Eq. 11–12):
//   p(x | θ^y) = Σ_s π^y_s1 Π_t a^y_{s_t s_t+1} Π_t b^y_{s_t}(x_t)          (forward algorithm)
//   p(y | x, Θ) = w^y p(x | θ^y) / Σ_y' w^y' p(x | θ^y'),  Θ = {w^y, θ^y}   (Bayes, in log space)
// and the parameter layout that the EM_λ operator (classifier_em.h) and the homotopy work on:
// Θ̃ ∈ R^P stacks, per class y, the block [w̃^y, π̃^y (K), Ã^y (K x K row-major), B̃^y (K x V
// row-major)], P = C (1 + K + K² + K V); Θ is Θ̃ normalised per multinomial (the priors w̃ over
// the classes, each π̃, each row of Ã and of B̃; Eq. 17).
//
// Pure functions: no I/O. Likelihoods run on the chain library (nodes/hmm/forward_backward.h);
// the corpus functions use `threads` in fixed shards, so results do not depend on the count.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "engine/base/status.h"
#include "nodes/hmm/hmm_params.h"
#include "nodes/io/class_sequences.h"

namespace seqflow {


struct HmmClassifier {
  Eigen::VectorXd prior;         // [C] w^y, sums to 1
  std::vector<HmmParams> classes;  // C HMMs of the same K and V

  int num_classes() const { return static_cast<int>(classes.size()); }
  int num_states() const { return classes.empty() ? 0 : classes[0].num_states(); }
  int num_symbols() const { return classes.empty() ? 0 : classes[0].num_symbols(); }
};

// Θ̃ ↔ Θ for C classes of K-state HMMs over V symbols. Value type.
class ClassifierLayout {
 public:
  ClassifierLayout(int num_classes, int num_states, int num_symbols);

  int num_classes() const { return C_; }
  int num_states() const { return K_; }
  int num_symbols() const { return V_; }
  int block_size() const { return 1 + K_ + K_ * K_ + K_ * V_; }  // one class
  int num_params() const { return C_ * block_size(); }
  int prior_index(int y) const { return y * block_size(); }
  int initial_offset(int y) const { return prior_index(y) + 1; }
  int transition_offset(int y) const { return initial_offset(y) + K_; }
  int emission_offset(int y) const { return transition_offset(y) + K_ * K_; }

  // Θ̃ of a classifier (its probabilities, already normalised). REQUIRES: the layout's sizes.
  Eigen::VectorXd Stack(const HmmClassifier& model) const;
  // Θ = Θ̃ normalised per multinomial. Numerical when a multinomial's sum is not positive.
  Result<HmmClassifier> Normalize(const Eigen::VectorXd& theta_tilde) const;

 private:
  int C_, K_, V_;
};

// [N x C] log p(x_i | θ^y); -inf where a sequence has probability 0 under a class.
// REQUIRES: symbols < num_symbols; sequences non-empty.
Eigen::MatrixXd ClassLogLikelihoods(const HmmClassifier& model, const SymbolSequences& sequences, int threads);

// [N x C] p(y | x_i, Θ) from the log-likelihoods (Eq. 12). A row with no finite log-likelihood
// (impossible under every class) is Numerical, naming the sequence.
Result<Eigen::MatrixXd> ClassPosteriors(const Eigen::VectorXd& prior, const Eigen::MatrixXd& log_likelihoods);

// argmax_y of each row (ties to the lower class).
std::vector<int32_t> ArgmaxClasses(const Eigen::MatrixXd& posteriors);

// (1/N) Σ_i −Σ_y p(y|x_i) log p(y|x_i), nats (Eq. 20).
double MeanClassEntropy(const Eigen::MatrixXd& posteriors);

}  // namespace seqflow
