// The multi-view hidden Markov SVM of Brefeld, Büscher & Scheffer (2005, §5), and with one view
// the hidden Markov SVM of Altun, Tsochantaridis & Hofmann (2003), in primal weights (the kernel
// is linear, as in hm_perceptron.h): w^v = Σ_i Σ_ȳ α_i^v(ȳ) (Φ^v(x_i, y_i) − Φ^v(x_i, ȳ)).
//
// Epochs over the examples optimise one example's multipliers at a time (Eq. 21 restricted to
// α_i, the others fixed) on a working set of pseudo sequences:
//   labeled i, each view (Table 2): add ŷ = argmax_{y ≠ y_i} f^v(x_i, y) while its margin
//     f^v(x_i, y_i) − f^v(x_i, ŷ) < 1, re-solve the QP over the set (example_qp.h: cap C for
//     the 1-norm machine, Q + I/C for the 2-norm one, Eq. 26-27), drop pseudo sequences whose α
//     is 0; a ŷ already in the set (the other examples moved w) has the QP re-solved once and
//     ends the visit, as does a new ŷ that gets α = 0 (the cap is spent);
//   unlabeled i (Table 3): its pseudo sequences are dropped first; then up to r_max times, while
//     the views' predictions ŷ¹, ŷ² differ, view v takes its peer's prediction ŷ^v̄ as the target
//     (Eq. 19), adds its own ŷ^v to its set and re-solves, with cap min{γ^v̄, 1} C_u C (1-norm) or
//     ridge 1 / (min{γ^v̄, 1} C_u C) (2-norm), γ^v̄ = the peer's margin at ŷ^v̄ (Eq. 25); a
//     repetition that moves no α ends the visit (the same weights would disagree the same way).
// C_u follows the perceptron's schedules (constant, or exponential to its maximum at epoch `ramp`,
// §6). With views = 1 every attribute is in one view and unlabeled data is ignored.
// argmax_{y ≠ y_i} is the Viterbi path when it differs from y_i, else the best of the T Viterbi
// paths that avoid y_i's label at one position t (the second-best labelling differs from y_i
// somewhere).
// Form: primal keeps w and updates it with every α; dual is the paper's, which keeps only the α and
// the ΔΦ's of the working sets and evaluates f^v(x, y) = Σ_j Σ_ȳ α_j(ȳ) ⟨ΔΦ_j(ȳ), Φ^v(x, y)⟩ (and
// ⟨w, ΔΦ⟩ in the QPs) through them: the same function (the kernel is linear), but a decode costs in
// proportion to the support set, so an epoch grows quadratically with the unlabeled pool (§6,
// Fig. 2 right). The returned weights are Σ α ΔΦ in both forms. Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/multiview/hm_perceptron.h"
#include "nodes/optim/example_qp.h"

namespace seqflow {

enum class HmSvmForm { kPrimal, kDual };

struct HmSvmOptions {
  int views = 2;
  int norm = 1;      // 1: linear slack penalty (Eq. 26); 2: quadratic (Eq. 27)
  double c = 1;      // C (§6: 1)
  double c_u = 0.1;  // C_u, the unlabeled examples' balancing factor
  UnlabeledWeightGrowth growth{UnlabeledWeightSchedule::kExponential};
  int r_max = 10;            // Table 3's repetitions without consensus (§6: 10)
  int epochs = 10;           // passes over all examples
  int max_working_set = 50;  // Table 2's loop stops after adding this many pseudo sequences
  HmSvmForm form = HmSvmForm::kPrimal;
  ExampleQpOptions qp;
};

struct HmSvmEpoch {
  int epoch = 0;
  double c_u = 0;
  int64_t margin_violations = 0;  // (labeled example, view) pairs entering with margin < 1
  int64_t disagreements = 0;      // unlabeled examples whose views disagreed on entry
  int64_t support_sequences = 0;  // pseudo sequences with α > 0 after the epoch
  int64_t unlabeled_pseudo = 0;   // pseudo sequences added to unlabeled examples' working sets
  // Per view, the mean over unlabeled examples of its margin γ^v at its own prediction, on entry
  // (its pseudo sequences dropped): the scale of f^v on the unlabeled data.
  std::array<double, 2> unlabeled_margin{0, 0};
};

struct HmSvmResult {
  HmPerceptronWeights weights;
  std::vector<HmSvmEpoch> epochs;
};

// A sparse vector of the joint feature space of one view: observation entries a·K + k, then the
// view's transitions at A·K + i·K + j. Indices sorted and distinct.
struct SparseJointFeatures {
  std::vector<int64_t> index;
  std::vector<double> value;
};

struct WeightedFeatures {
  double alpha = 0;
  const SparseJointFeatures* features = nullptr;
};

// The dual form's evaluation of f(x, ·) = Σ α ⟨ΔΦ, Φ(x, ·)⟩ over support sequences (α, ΔΦ): each
// entry (a, k) of a ΔΦ adds α · value to label k at the tokens of x that carry attribute a (found
// through per-attribute position lists), each transition entry to the transition scores; the cost
// is the support's entries (plus x's size), not the attribute space. Keeps the lists as scratch:
// not thread safe; one per thread.
class DualScorer {
 public:
  DualScorer(int64_t num_attributes, int64_t num_labels);
  // scores: [T x K] token scores, transition: [K x K]. REQUIRES: x's ids and the support's
  // observation entries < num_attributes · num_labels.
  void Score(const SentenceFeatures& x, const std::vector<WeightedFeatures>& support, RowMatrixXd* scores,
             RowMatrixXd* transition);

 private:
  int64_t A_, K_;
  // Per attribute the first of its positions in x (-1: none); per position the next one with the
  // same attribute, and its token.
  std::vector<int32_t> first_position_, next_position_, token_of_position_;
};

// argmax over labellings y ≠ avoid of Σ_t scores(t, y_t) + Σ_t transition(y_{t-1}, y_t), ties
// to the lower label as the chain library breaks them. REQUIRES: scores.rows() == avoid.size() >= 1,
// K >= 2.
std::vector<int32_t> BestOtherThan(const RowMatrixXd& scores, const RowMatrixXd& transition,
                                   const std::vector<int32_t>& avoid);

// Status::Invalid on malformed data (as TrainHmPerceptron) or options (norm not 1/2, C <= 0);
// Status::Numerical when a QP fails; Status::Cancelled between examples.
// Checkpoints (KernelCheckpoints) after each epoch: the weights, every working set (target,
// pseudo sequences, α; the ΔΦ's are recomputed from them) and the epochs' counts. Resumed from the
// state of epoch e, it runs epochs e + 1.. to the same bits as a run never interrupted; the state
// the last epoch ended in (keep_final) continues to a run with more epochs (C_u's schedule does not
// depend on the number of epochs). A state of other data, views or form, or past options.epochs,
// is Status::Invalid.
Result<HmSvmResult> TrainHmSvm(const HmPerceptronData& data, const HmSvmOptions& options,
                               const std::function<void(const HmSvmEpoch&)>& after_epoch, const CancelToken& cancel,
                               const KernelCheckpoints& checkpoints = {});

}  // namespace seqflow
