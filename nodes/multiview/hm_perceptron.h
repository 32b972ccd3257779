// The multi-view hidden Markov perceptron of Brefeld, Büscher & Scheffer (2005, §4, Table 1), and
// with one view the hidden Markov perceptron of Collins (2002) / Altun et al. (2003).
//
// Each view v has the linear decision function f^v(x, y) = <w^v, Φ^v(x, y)> with
//   Φ^v(x, y) = Σ_t ( e_{y_t} ⊗ ψ^v(x_t)  +  [t > 0] e_{y_{t-1}} ⊗ e_{y_t} ),
// i.e. observation weights W[a, k] for each attribute a of view v and label k, and a [K x K]
// transition block T^v. The kernel of Eq. 7 is linear here (k(x, x') = <ψ(x), ψ(x')> on Boolean
// attributes), so the dual perceptron (Eq. 11-13, updates of α_i(y)) and the primal one (updates
// of w) give the same decision functions: α_i(y) += c is w += c Φ(x_i, y). We keep w.
//
// Per epoch, every sequence in turn (labeled first, then unlabeled, in corpus order), both views
// decode it by Viterbi (Eq. 14), and then
//   labeled, ŷ^v ≠ y:        w^v += Φ^v(x, y) − Φ^v(x, ŷ^v)                        (Eq. 15)
//   unlabeled, ŷ^1 ≠ ŷ^2:    w^v += C_u (Φ^v(x, ŷ^{v̄}) − Φ^v(x, ŷ^v)),  v = 1, 2     (Eq. 16)
// with both decodes taken before either update. C_u is constant, or rises exponentially from
// C_u · c_u_start to C_u at epoch `ramp` (§6: "an exponential scheme to increase C_u to its maximal
// value in the 30th iteration"). The views' attributes are disjoint, so one [A x K] matrix holds
// both W^1 and W^2 (row a belongs to view[a]); the joint decision (Eq. 17) scores a token with the
// whole row sum and uses T^1 + T^2. With views = 1 every attribute is in one view (the baseline on
// the concatenated views) and unlabeled sequences cannot disagree, so they are ignored.
// Averaging (Collins 2002) returns the mean of w after each sequence visit, kept lazily.
// Thread safety: pure functions.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {

enum class UnlabeledWeightSchedule { kConstant, kExponential };

// How the weight C_u of unlabeled examples grows over the epochs; the perceptron's and the
// HM-SVM's (hm_svm.h).
struct UnlabeledWeightGrowth {
  UnlabeledWeightSchedule schedule = UnlabeledWeightSchedule::kConstant;
  int ramp = 30;            // kExponential: the epoch at which C_u reaches its maximum
  double c_u_start = 1e-3;  // kExponential: C_u(1) = c_u · c_u_start
};

struct HmPerceptronOptions {
  int views = 2;  // 1: single view on the concatenated attributes
  int epochs = 30;
  double c_u = 0.1;  // weight of an unlabeled disagreement, 0 <= C_u <= 1
  UnlabeledWeightGrowth growth;
  bool averaged = true;
};

// The sequences to train on: attribute ids per token (FeatureDictionary::Extract), gold labels of
// the labeled ones, and view[a] ∈ {0, 1} of each attribute (ignored when views = 1).
struct HmPerceptronData {
  const std::vector<SentenceFeatures>* labeled = nullptr;
  const std::vector<std::vector<int32_t>>* labels = nullptr;
  const std::vector<SentenceFeatures>* unlabeled = nullptr;
  const std::vector<int32_t>* view = nullptr;  // [A]
  int32_t num_labels = 0;
};

struct HmPerceptronWeights {
  RowMatrixXd observation;              // [A x K]; row a is in view view[a]
  std::vector<RowMatrixXd> transition;  // [views] of [K x K], row = previous label
};

struct HmPerceptronEpoch {
  int epoch = 0;
  double c_u = 0;
  int64_t labeled_errors = 0;  // (sequence, view) pairs decoded wrongly
  int64_t disagreements = 0;   // unlabeled sequences the views labeled differently
};

struct HmPerceptronResult {
  HmPerceptronWeights weights;
  std::vector<HmPerceptronEpoch> epochs;
};

// Status::Invalid on malformed data: views not 1 or 2, no labels or labeled sentences, labels not
// matching a sentence's length or out of range, an empty sentence, an attribute id outside view.
Status CheckSequenceData(const HmPerceptronData& data, int views);

// Whether epochs[i].epoch is i + 1 throughout: the epochs' counts of a state read back.
template <class Epoch>
bool EpochsNumberedFromOne(const std::vector<Epoch>& epochs) {
  for (size_t i = 0; i < epochs.size(); ++i)
    if (epochs[i].epoch != static_cast<int>(i) + 1) return false;
  return true;
}

// C_u of epoch t (1-based): c_u grown as `growth` says.
double UnlabeledWeight(double c_u, const UnlabeledWeightGrowth& growth, int epoch);

// Per token t, the sum over the attributes of x_t of W[a, :]: [T x K] into `scores`, by the CRF's
// gather (CrfScores: cloned per instruction set, a token's row summed in registers).
void ObservationScores(const RowMatrixXd& observation, const SentenceFeatures& x, RowMatrixXd* scores);

// Per token t, the sum over the attributes of x_t in view v of W[a, :]: [T x K] into `scores`.
// view_of = nullptr puts every attribute in view 0. The same bits as ObservationScores on
// ViewSentences' x (each entry summed from 0 in attribute order).
void ViewScores(const RowMatrixXd& observation, const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v,
                RowMatrixXd* scores);

// The sentences with only the attributes of view v (view_of[a] == v), in their order.
std::vector<SentenceFeatures> ViewSentences(const std::vector<SentenceFeatures>& sentences,
                                            const std::vector<int32_t>& view_of, int v);

// w^v += scale · (Φ^v(x, toward) − Φ^v(x, away)) on W and transition (the view's block).
// REQUIRES: toward and away have x.size() labels.
void PerceptronUpdate(const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v,
                      const std::vector<int32_t>& toward, const std::vector<int32_t>& away, double scale,
                      RowMatrixXd* observation, RowMatrixXd* transition);

// Table 1 for options.epochs epochs; after_epoch (if set) sees each epoch's counts.
// Status::Invalid on malformed data (label out of range, labels not matching a sentence's length,
// an attribute id outside view, views not 1 or 2); Status::Cancelled between epochs.
// Checkpoints (KernelCheckpoints) after each epoch: w, the average's U, the visit count and the
// epochs' counts. Resumed from the state of epoch e, it runs epochs e + 1.. to the same bits as a
// run never interrupted; the state the last epoch ended in (keep_final) continues to a run with
// more epochs (C_u's schedule does not depend on the number of epochs). A state of other data,
// views or averaging, or past options.epochs, is Status::Invalid.
Result<HmPerceptronResult> TrainHmPerceptron(const HmPerceptronData& data, const HmPerceptronOptions& options,
                                             const std::function<void(const HmPerceptronEpoch&)>& after_epoch,
                                             const CancelToken& cancel, const KernelCheckpoints& checkpoints = {});

}  // namespace seqflow
