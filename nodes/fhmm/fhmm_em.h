// EM_λ for the feature HMM (Marinho et al. 2016, §6.1's EM baseline with FHMM emissions): the
// E-step is the chain library's forward-backward over the unlabeled sentences (as hmm.em), and
// the M-step interpolates labeled and expected counts as hmm.em does (Haffari & Sarkar 2008,
// Eq. 5),
//   c(ω) = (1 − λ) (n_L(ω) + ε_block) / |L| + λ E_U[n(ω)] / |U|,
// normalises c on the initial and transition blocks, and for the emissions of each label h fits
// Eq. 25's log-linear weights to the expected feature means
//   μ_h = Σ_w c(h, w) φ(w) / Σ_w c(h, w),
//   θ_h = argmin log Z(θ) − θᵀμ_h + (ε/2)‖θ‖²   (loglinear_emissions.h),
// which is, up to the regularizer, the maximiser over the log-linear family of the expected
// complete-data log-likelihood Σ_w c(h, w) log p_θ(w | h): a generalised EM step, so
//   L_λ = (1 − λ)/|L| Σ_ω (n_L(ω) + ε_block) log θ(ω) + λ/|U| Σ_U log P(x)
// does not decrease as ε → 0 (emissions carry no pseudo-counts: the regularizer smooths them).
// θ is warm-started from the previous M-step's; the first M-step starts from `start_theta`.
// A label with no counts keeps a uniform emission row.
//
// Pure: no I/O; threads only through CorpusExpectedCounts (fixed shards reduced in order) and
// one fit per label, so results are bit-identical for any thread count.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <functional>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/fhmm/loglinear_emissions.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/hmm/hmm_params.h"
#include "nodes/hmm/supervised.h"

namespace seqflow {

struct FhmmEmOptions {
  int max_iter = 10;
  double tol = 1e-6;  // stop when L_λ changes by less than tol (1 + |L_λ|); 0: run max_iter
  LogLinearOptions loglinear;
  HmmSmoothing smoothing{1.0, 1.0, 0.0};  // initial and transition pseudo-counts; emission unused
  int threads = 1;
};

// μ [K x W]: each row of `emission_counts` [K x V] normalised and mapped through Φ [V x W]; a
// row with no counts gives a zero row.
Eigen::MatrixXd ExpectedFeatureMeans(const Eigen::MatrixXd& emission_counts, const Eigen::SparseMatrix<double>& phi);

// The M-step from interpolated counts: `theta` [K x W] is the warm start and receives the fitted
// weights. Numerical when a fit is not finite; Cancelled when `cancel` fires.
Result<HmmParams> FhmmMStep(const ExpectedCounts& counts, const Eigen::SparseMatrix<double>& phi,
                            const FhmmEmOptions& options, const CancelToken& cancel, Eigen::MatrixXd& theta);

// The feature HMM estimated from tagged sentences (labeled, or self-labeled as by hmm.self_train):
// initial and transitions counted with options.smoothing, each label's emissions fitted by Eq. 25
// to the feature means of its tokens (a label with no tokens: uniform row), weights from zero.
// REQUIRES: as LabeledSentenceCounts (forward_backward.h); num_symbols = phi.rows().
Result<HmmParams> EstimateTaggedFhmm(const std::vector<std::vector<int32_t>>& words,
                                     const std::vector<std::vector<int32_t>>& labels, int num_states,
                                     const Eigen::SparseMatrix<double>& phi, const FhmmEmOptions& options,
                                     const CancelToken& cancel = {});

struct FhmmEmResult {
  HmmParams model;                // after the last update
  Eigen::MatrixXd theta;          // [K x W] the last M-step's weights (start_theta if none ran)
  std::vector<double> objective;  // L_λ(θ_i), i = 0 .. iterations
  int iterations = 0;             // M-steps made
  bool converged = false;
};

// Sees the model after `iteration` M-steps (0: the start) before the next one; a non-OK status
// stops the run with it.
using FhmmEmObserver = std::function<Status(int iteration, const HmmParams& model)>;

// REQUIRES: 0 <= lambda <= 1; start of K states over V = phi.rows() symbols with positive
// emissions; labeled from LabeledSentenceCounts over num_labeled >= 1 sentences; unlabeled
// non-empty when lambda > 0; start_theta K x phi.cols().
// Checkpoints (KernelCheckpoints) after each M-step: the model and θ it made, the objectives so far
// and the count. Resumed from one, EM goes on from the next E-step to the same bits as a run never
// interrupted (`observe` sees only the iterations it runs); a state of other shapes or past
// max_iter is Status::Invalid. No keep_final: the stopping iteration's E-step is not kept.
Result<FhmmEmResult> RunFhmmEm(const HmmParams& start, const Eigen::MatrixXd& start_theta,
                               const Eigen::SparseMatrix<double>& phi, const ExpectedCounts& labeled,
                               int64_t num_labeled, const std::vector<std::vector<int32_t>>& unlabeled, double lambda,
                               const FhmmEmOptions& options, const CancelToken& cancel = {},
                               const FhmmEmObserver& observe = {}, const KernelCheckpoints& checkpoints = {});

}  // namespace seqflow
