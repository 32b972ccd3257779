// Fitting the hybrid model: Γ by Eq. 3 on held-out labeled data (LOP-CRF when there are no
// HMMs) and the whole HySOL procedure of Suzuki, Fujino & Isozaki (2007), Figure 1:
//   Θ(0): each HMM's MAP estimate on the labeled data the experts were trained on;
//   Γ(0): Eq. 3 under Θ(0);
//   repeat: 4.1 Θ by EM on the unlabeled data under R (Eq. 4/5, Γ fixed),
//           4.2 Γ by Eq. 3 on the held-out data (Θ fixed),
//   until ‖Θ(t+1) − Θ(t)‖ / ‖Θ(t)‖ < tolerance or max_iterations; in the second case the
//   result is the pair (Θ(t), Γ(t)), t >= 1, with the highest G(Θ|Γ) (§5.2).
// Γ lives in [0, 1] (§2) and is fitted by bound-constrained L-BFGS; the Dirichlet prior with
// ξ = 1 + ξ' adds ξ' Σ log γ (ξ' = 0: no prior). Θ's prior is Dirichlet with η = 1 + η'.
// Pure functions over HybridCorpus inputs (no I/O).
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/process_group.h"
#include "engine/base/state_pieces.h"
#include "engine/base/status.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/crf/hybrid_chain.h"
#include "nodes/optim/objective.h"

namespace seqflow {

// −(Eq. 3) as a function of Γ, with its gradient, for the box minimiser.
class CombinationObjective final : public Objective {
 public:
  // The references must outlive the objective.
  CombinationObjective(const HybridCorpus& heldout, const ExpertTransitions& experts, const GenerativeParams& theta,
                       double xi_prime, int threads, const ProcessGroup* processes = nullptr)
      : heldout_(heldout),
        experts_(experts),
        theta_(theta),
        xi_prime_(xi_prime),
        threads_(threads),
        processes_(processes),
        gathered_(GatherEmissions(heldout, theta)) {}

  double Evaluate(const Eigen::VectorXd& gamma, Eigen::VectorXd& gradient) override;

 private:
  const HybridCorpus& heldout_;
  const ExpertTransitions& experts_;
  const GenerativeParams& theta_;
  double xi_prime_;
  int threads_;
  const ProcessGroup* processes_;
  const RowMatrixXd gathered_;  // GatherEmissions(heldout_, theta_)
};

struct CombinationFit {
  Eigen::VectorXd gamma;
  double objective = 0;  // Σ_n log R(y_n | x_n) + ξ' Σ log γ at gamma
  int iterations = 0;
};

// argmax over γ ∈ [0, 1]^(I+J) of Eq. 3, from `start`. Status::Numerical when the objective is
// not finite or the optimiser fails.
Result<CombinationFit> FitCombinationWeights(const HybridCorpus& heldout, const ExpertTransitions& experts,
                                             const GenerativeParams& theta, const Eigen::VectorXd& start,
                                             double xi_prime, int threads, const ProcessGroup* processes = nullptr);

struct HysolOptions {
  double xi_prime = 1.0;       // Γ prior
  double eta_prime = 1e-4;     // Θ prior
  int max_iterations = 10;     // outer alternations (Fig. 1, step 4)
  double tolerance = 1e-4;     // on the relative change of Θ
  int em_iterations = 20;      // EM iterations per step 4.1
  double em_tolerance = 1e-6;  // relative increase of G(Θ|Γ) that ends step 4.1
  int threads = 1;
  const ProcessGroup* processes = nullptr;  // MPI ranks sharing the E-step; null: this process
  // When set, scores each Γ step's pair (Θ(t), Γ(t)), kept as that step's `score`: test F1 per
  // iteration is the paper's Fig. 2. Its error ends the procedure.
  std::function<Result<double>(const GenerativeParams& theta, const Eigen::VectorXd& gamma)> score;
};

// One record of the procedure: an EM iteration of step 4.1, the Γ fit of step 4.2, or, when the
// alternation did not converge, the final choice of the pair with the highest G.
struct HysolStep {
  int iteration = 0;          // outer iteration t (0: the start; "select": the t chosen)
  std::string step;           // "em", "gamma" or "select"
  int em_iteration = 0;       // 1-based within step 4.1
  double generative = 0;      // G(Θ|Γ) of Eq. 4 (with prior) at the Θ this EM iteration starts from,
                              // or at the selected pair
  double heldout_before = 0;  // Eq. 3 before the Γ fit: Γ(t) under the new Θ (the uniform Γ at t = 0)
  double heldout = 0;         // Eq. 3 after the Γ fit
  double theta_change = 0;    // relative Θ change of this outer iteration (gamma steps)
  Eigen::VectorXd gamma;
  double score = std::numeric_limits<double>::quiet_NaN();  // gamma steps: HysolOptions::score
};

struct HysolResult {
  Eigen::VectorXd gamma;
  GenerativeParams theta;
  std::vector<HysolStep> trace;
  int iterations = 0;          // outer alternations run
  int selected_iteration = 0;  // the t whose (Θ(t), Γ(t)) is returned: `iterations` when converged
  bool converged = false;
};

// Called after every step (progress, traces).
using HysolProgress = std::function<void(const HysolStep&)>;

// Checkpoints (KernelCheckpoints) between outer alternations: the state after iteration t (Θ, Γ,
// the trace, the best pair so far and the experts' log-partitions) is offered after every
// iteration that did not converge; given back, the procedure continues with iteration t + 1 to
// the same bits as a run never interrupted (`progress` sees only the steps after the state's).

// Errors: Status::Numerical when G(Θ|Γ) or a Γ fit is not finite; Status::Cancelled when `cancel`
// is requested (checked after every step).
// REQUIRES: `labeled` and `heldout` carry gold labels; all three corpora have the same I experts
// and J symbol columns; vocabulary_sizes = V_j.
// `unlabeled` may be streamed (UnlabeledHybrid): its blocks are built once for the experts'
// log-partitions, where a block that cannot be built ends the procedure with its Status, and again
// at every E-step.
// Its checkpoint state's Θ tables are views of the live ones (StatePieces): a save copies none.
Result<HysolResult> TrainHysol(const HybridCorpus& labeled, const HybridCorpus& heldout,
                               const UnlabeledHybrid& unlabeled, const ExpertTransitions& experts,
                               const std::vector<int64_t>& vocabulary_sizes, const HysolOptions& options,
                               const HysolProgress& progress, const CancelToken& cancel = {},
                               const KernelCheckpoints& checkpoints = {});

}  // namespace seqflow
