// The probability-one homotopy for a semi-supervised HMM classifier (Ji, Watson & Carin, Eq. 19):
//   H(λ, Θ̃) = (1 − τ)(Θ̃ − Θ̃_0) + τ [(1 − λ)(Θ̃ − EM_0(Θ)) + λ (Θ̃ − EM_1(Θ))],  τ = tanh(60 λ),
// with Θ̃_0 a fixed point of EM_0 (a supervised solution): H(0, ·) has the single zero Θ̃_0, so
// the zero curve from (Θ̃_0, 0) cannot return to λ = 0 and reaches λ = 1 (Theorem 3). Its
// derivative, [P x (P+1)]:
//   ∂H/∂Θ̃ = I − τ [(1 − λ) ∇EM_0 + λ ∇EM_1],
//   ∂H/∂λ = τ' (Θ̃_0 − (1 − λ) EM_0 − λ EM_1) − τ (EM_1 − EM_0),  τ' = 60 (1 − τ²),
// with the Jacobians of classifier_em.h. The curve is tracked by the normal-flow tracker
// (nodes/numerics/normal_flow.h, dense QR).
//
// Returns to λ ≈ 0 (§IV-C): the curve may come back near λ = 0 (to another supervised solution's
// neighbourhood) before its final departure. A recorded point whose λ is a local minimum of the
// path, below `return_threshold`, is such a return; the final segment P_F starts at the last one
// (at the start point when there is none). Each point records λ, dλ/ds, the mean class entropy on
// the unlabeled data (Eq. 20), the mean unlabeled log-likelihood, and the accuracy on the
// unlabeled data when their true classes are given.
//
// Pure function: no I/O; EM evaluations use `threads` in fixed shards (thread-count invariant).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "engine/base/status.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/hmm/classifier_em.h"
#include "nodes/numerics/normal_flow.h"

namespace seqflow {

// One departure from HOMPACK's defaults, measured on the mismatched draws: its arc tolerance 5e-5
// exceeds the smallest entries of Θ̃ (pseudo-counts ε/U ≈ 1e-5 near the boundary): corrected
// points strayed to where a scaling sum of the forward pass is negative, and at 2e-5 to 5e-5
// draw 45 still stops below HMIN near λ = 0.93; 1e-5 keeps all on the curve (1e-6, used before,
// gave the same gains in 14% more evaluations). HMAX is HOMPACK's 1: near λ ≈ 0 a returning
// stretch of the curve hairpins next to the start's own stretch, and long steps once jumped across
// (the tracker's orientation test now rejects that); with HMAX 1 a matched draw (20 per class,
// seed 1) then failed only in PathPointAtLambda (Newton at fixed λ from the chord of two far-apart
// points; it now falls back to CorrectAtLambdaBetween). At HMAX 1 all 60 mismatched and 50 matched
// paths reach λ = 1 with the gains of HMAX 0.1, in 55,792 and 26,257 evaluations (0.1: 55,073 and
// 27,849; 0.5: 59,033 and 26,362; 0.3 loses draw 45), bench/RESULTS.md.
inline NormalFlowOptions ProbabilityOneTrackerDefaults() {
  NormalFlowOptions o;
  o.arc_rel_tol = 1e-5;
  o.arc_abs_tol = 1e-5;
  o.max_steps = 5000;
  return o;
}

struct ProbabilityOneOptions {
  NormalFlowOptions tracker = ProbabilityOneTrackerDefaults();
  double tanh_scale = 60;          // the 60 of tanh(60 λ)
  double return_threshold = 0.05;  // a local minimum of λ below this is a return to λ ≈ 0
  double smoothing = 0.01;         // ε of EM_0 and EM_1 (classifier_em.h)
  double domain_slack = 1e-4;      // Θ̃ entries below −domain_slack (or λ < 0) are outside the domain
  int threads = 1;
};

struct ClassifierPathPoint {
  double s = 0;
  double lambda = 0;
  double dlambda_ds = 0;
  double entropy = 0;          // Eq. 20 on the unlabeled data, nats
  double log_likelihood = 0;   // (1/U) Σ_j log p(x_j | Θ)
  double accuracy = -1;        // on the unlabeled data; -1 without their true classes
  Eigen::VectorXd theta_tilde;  // [P]
};

struct ClassifierPath {
  std::vector<ClassifierPathPoint> points;
  NormalFlowStop stop = NormalFlowStop::kReachedEnd;
  int evaluations = 0;  // map evaluations (ρ and Dρ): HOMPACK's NFE
  int steps = 0;
  int returns = 0;                // local minima of λ below return_threshold
  size_t final_segment_start = 0;  // P_F = points[final_segment_start ..]
};

// The map (19). REQUIRES: theta0 of the layout's size with positive multinomial sums.
HomotopyMap ProbabilityOneMap(const ClassifierLayout& layout, const Eigen::VectorXd& theta0, const ClassifierData& data,
                              const ProbabilityOneOptions& options);

// Tracks (19) from (theta0, 0). `unlabeled_truth` is empty or one class per unlabeled sequence.
// Checkpoints (KernelCheckpoints) after each accepted point: the tracker's state and the points so
// far; a track resumed from one ends with the same bits as one never interrupted.
Result<ClassifierPath> TraceProbabilityOne(const ClassifierLayout& layout, const Eigen::VectorXd& theta0,
                                           const ClassifierData& data, const std::vector<int32_t>& unlabeled_truth,
                                           const ProbabilityOneOptions& options,
                                           const NormalFlowCallbacks& callbacks = {},
                                           const KernelCheckpoints& checkpoints = {});

// The point of the curve at λ on P_F: Newton at fixed λ from the linear interpolation of the first
// pair of P_F's points that brackets λ; when that does not converge (points far apart),
// CorrectAtLambdaBetween (normal_flow.h) from the same pair. REQUIRES: path reached λ = 1;
// 0 <= lambda <= 1.
Result<ClassifierPathPoint> PathPointAtLambda(const ClassifierLayout& layout, const Eigen::VectorXd& theta0,
                                              const ClassifierData& data, const std::vector<int32_t>& unlabeled_truth,
                                              const ProbabilityOneOptions& options, const ClassifierPath& path,
                                              double lambda);

// λ, entropy, log-likelihood and accuracy of Θ̃ (a point's figures).
Result<ClassifierPathPoint> DescribeClassifierPoint(const ClassifierLayout& layout, const Eigen::VectorXd& theta_tilde,
                                                    double lambda, const ClassifierData& data,
                                                    const std::vector<int32_t>& unlabeled_truth, double smoothing,
                                                    int threads);

}  // namespace seqflow
