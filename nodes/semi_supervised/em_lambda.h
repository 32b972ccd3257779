// The EM_λ operator of Haffari & Sarkar (2008, §3.2) on the free parameters of an HMM.
//
// With L labeled sentences (x, y), U unlabeled sentences x and the free parameters Θ̃ of a
// PomLayout (θ = Θ̃ normalised per multinomial, frozen blocks fixed):
//   EM_0      = (1/|L|) (Σ_{(x,y)∈L} Count(x, y) + ε_block)                   labeled counts plus
//               the add-ε pseudo-counts, so the λ = 0 fixed point θ = EM_0 / row sums is the
//               smoothed supervised estimate (EstimateSupervisedHmm);
//   EM_1(Θ̃)   = (1/|U|) Σ_{x∈U} E_{P(y|x,θ)}[Count(x, y)]                    forward-backward;
//   EM_λ(Θ̃)   = (1 − λ) EM_0 + λ EM_1(Θ̃)                                     Eq. 5–6.
// Fixed points Θ̃ = EM_λ(Θ̃) are the zeros of F(Θ̃, λ) = Θ̃ − EM_λ(Θ̃) (Eq. 7) and the stationary
// points of the objective EM_λ ascends,
//   L_λ(θ) = (1 − λ) Σ_ω EM_0(ω) log θ(ω) + (λ/|U|) Σ_{x∈U} log P(x | θ).
// Its first term is (1−λ)/|L| Σ_L log P(x, y) on the free blocks plus the log-Dirichlet prior
// ε Σ log θ of the pseudo-counts, so L_λ is the paper's objective made MAP by the smoothing;
// the labeled terms of frozen blocks are constants and left out. It is L_λ, not the
// unsmoothed objective, that each EM_λ iteration never decreases (EM as minorise-maximise).
//
// Pure functions: no I/O; threads only through CorpusExpectedCounts (fixed shards reduced in
// order), so results are bit-identical for any thread count. threads <= 0 means all cores.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/process_group.h"
#include "engine/base/status.h"
#include "nodes/hmm/hmm_params.h"
#include "nodes/hmm/supervised.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

// EM_0 [P] from labeled sentences and the per-block add-ε smoothing.
// REQUIRES: words.size() == labels.size() >= 1, matching sentence lengths, ids in range.
Eigen::VectorXd Em0(const PomLayout& layout, const IdSentences& words, const IdSentences& labels,
                    const HmmSmoothing& smoothing);

struct Em1Result {
  Eigen::VectorXd em1;             // [P] EM_1 = mean expected counts on the free parameters
  double mean_log_likelihood = 0;  // (1/|U|) Σ_{x∈U} log P(x | θ)
};

// EM_1 at the model `hmm`. REQUIRES: unlabeled non-empty; hmm of the layout's sizes.
Em1Result Em1(const PomLayout& layout, const HmmParams& hmm, const IdSentences& unlabeled, int threads);
// The same with the E-step spread over the processes of `group` (the same bits for any number).
Result<Em1Result> Em1(const PomLayout& layout, const HmmParams& hmm, const IdSentences& unlabeled, int threads,
                      const ProcessGroup* group);

// L_λ(θ) from EM_0, the model and its mean unlabeled log-likelihood (see the header comment).
double LambdaObjective(const PomLayout& layout, const Eigen::VectorXd& em0, const HmmParams& hmm, double lambda,
                       double mean_log_likelihood);

struct EmLambdaOptions {
  int max_iter = 100;
  // Stop when the objective changes by less than tol (1 + |L_λ|); 0 runs max_iter updates.
  double tol = 1e-6;
  int threads = 1;
  const ProcessGroup* processes = nullptr;  // MPI ranks sharing the E-step; null: this process
};

struct EmLambdaResult {
  HmmParams model;                // θ after the last update
  Eigen::VectorXd theta_tilde;    // [P] Θ̃ = the last EM_λ output (the start's θ if none ran)
  std::vector<double> objective;  // L_λ(θ_i) for i = 0 .. iterations; never decreases
  int iterations = 0;             // EM_λ updates made
  bool converged = false;
};

// Iterates Θ̃ ← EM_λ(Θ̃) from `start` (whose frozen blocks stay fixed). A cancelled token
// (checked before every E-step) is Status::Cancelled. `after_update` sees the state after each
// update (iterations ≥ 1); given back as `resume_from`, such a state continues the iteration to
// the same bits as a run that was never interrupted (the model is rebuilt from Θ̃ as each
// update builds it). The state after the last update of a run with a smaller max_iter or a
// larger tol continues likewise to this run's bits; a state past where these options stop is
// Invalid.
// REQUIRES: 0 <= lambda <= 1; em0 from Em0 on the same layout; start has positive
// probabilities where EM_0 > 0; unlabeled non-empty when lambda > 0.
Result<EmLambdaResult> RunEmLambda(const HmmParams& start, double lambda, const Eigen::VectorXd& em0,
                                   const IdSentences& unlabeled, const PomLayout& layout,
                                   const EmLambdaOptions& options, const CancelToken& cancel = {},
                                   const EmLambdaResult* resume_from = nullptr,
                                   const std::function<void(const EmLambdaResult&)>& after_update = {});

}  // namespace seqflow
