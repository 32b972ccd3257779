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
// somewhere). Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/multiview/example_qp.h"
#include "nodes/multiview/hm_perceptron.h"

namespace seqflow {

struct HmSvmOptions {
  int views = 2;
  int norm = 1;      // 1: linear slack penalty (Eq. 26); 2: quadratic (Eq. 27)
  double c = 1;      // C (§6: 1)
  double c_u = 0.1;  // C_u, the unlabeled examples' balancing factor
  UnlabeledWeightGrowth growth{UnlabeledWeightSchedule::kExponential};
  int r_max = 10;            // Table 3's repetitions without consensus (§6: 10)
  int epochs = 10;           // passes over all examples
  int max_working_set = 50;  // Table 2's loop stops after adding this many pseudo sequences
  ExampleQpOptions qp;
};

struct HmSvmEpoch {
  int epoch = 0;
  double c_u = 0;
  int64_t margin_violations = 0;  // (labeled example, view) pairs entering with margin < 1
  int64_t disagreements = 0;      // unlabeled examples whose views disagreed on entry
  int64_t support_sequences = 0;  // pseudo sequences with α > 0 after the epoch
};

struct HmSvmResult {
  HmPerceptronWeights weights;
  std::vector<HmSvmEpoch> epochs;
};

// argmax over labellings y ≠ avoid of Σ_t scores(t, y_t) + Σ_t transition(y_{t-1}, y_t), ties
// to the lower label as the chain library breaks them. REQUIRES: scores.rows() == avoid.size() >= 1,
// K >= 2.
std::vector<int32_t> BestOtherThan(const RowMatrixXd& scores, const RowMatrixXd& transition,
                                   const std::vector<int32_t>& avoid);

// Status::Invalid on malformed data (as TrainHmPerceptron) or options (norm not 1/2, C <= 0);
// Status::Numerical when a QP fails; Status::Cancelled between examples.
Result<HmSvmResult> TrainHmSvm(const HmPerceptronData& data, const HmSvmOptions& options,
                               const std::function<void(const HmSvmEpoch&)>& after_epoch, const CancelToken& cancel);

}  // namespace seqflow
