// Emissions of the anchor HMM (Marinho et al. 2016, Algorithm 1, lines 5-9):
//   R̂[:, h] = Σ_{w ∈ A(h)} M[:, w] / Σ_{w ∈ A(h)} n_w                              (Eq. 12)
//   γ_w = argmin_{γ ∈ simplex} (1 - λ_w) ||Q̂[:, w] - R̂ γ||² + λ_w ||γ - γ'_w||²     (Eq. 14, 26)
//   O[h, w] = γ_w[h] p̂_w / Σ_w' γ_w'[h] p̂_w'                                       (Eq. 15-16)
// with M, n_w and Q̂ from moment_counts.h and γ'_w = n_L(w, ·) / n_L(w) the labeled posterior.
// A label with no anchors takes R̂[:, h] from its labeled tokens' contexts instead (the same
// expectation E[ψ(Z) | H = h], estimated from the few labeled tokens), when those are given; a
// label with neither (a label of the tag set the labeled sample never shows) is left out of the
// QPs and gets a uniform emission row.
// As in the paper's λ = 1 setting, λ_w = λ for words seen in the labeled data and 0 for the rest.
// Departures, both needed for a usable HMM on little data: a word never seen in the unlabeled
// text but seen labeled takes γ_w = γ'_w (no moments to fit); p̂_w counts labeled and unlabeled
// tokens together; and each emission row is mixed with the uniform distribution by
// `emission_floor` so no symbol has probability 0 under every state.
//
// QPs run over fixed shards of symbols (deterministic for any thread count), each started from
// γ'_w when known, else from the uniform point.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/features/moment_counts.h"
#include "nodes/optim/simplex_qp.h"

namespace seqflow {

struct AnchorEmissionOptions {
  double lambda = 1.0;  // Eq. 26's supervised interpolation, for words seen labeled
  double emission_floor = 1e-6;
  SimplexQpOptions qp;
  int threads = 0;
};

struct AnchorEmissions {
  Eigen::MatrixXd context_label;  // [C x K] R̂
  Eigen::MatrixXd posterior;      // [K x V] γ
  Eigen::MatrixXd emission;       // [K x V] O
  int64_t qps = 0;
  int64_t qp_iterations = 0;
  int64_t not_converged = 0;
  int64_t absent_labels = 0;  // labels with neither anchors nor labeled tokens: uniform emission rows
};

// The labeled data the estimate reads besides the moments.
struct LabeledMoments {
  Eigen::MatrixXd word_label;     // [V x K] n_L(w, h)
  // [C x K] Σ ψ(z) over the labeled tokens of h (those word_label counts); may be empty (0 x 0)
  Eigen::MatrixXd context_label;
};

// REQUIRES: word_label is V x K with V = moments.num_symbols; anchors has K lists of symbols in
// [0, V); label_names has K entries. Invalid naming a label whose anchors never occur in the
// unlabeled text, or that has no anchors and no labeled context; Numerical naming a label whose
// emission mass is zero or when a QP fails.
// With `context_projection` (C x D, e.g. context_cca.h's P_C) the least squares of Eq. 14/26 are
// taken between projected contexts, ||P_Cᵀ(q_w - R̂γ)||², as the paper's CCA features do.
Result<AnchorEmissions> EstimateAnchorEmissions(const MomentCounts& moments,
                                                const std::vector<std::vector<int32_t>>& anchors,
                                                const LabeledMoments& labeled,
                                                const std::vector<std::string>& label_names,
                                                const AnchorEmissionOptions& options, const CancelToken& cancel,
                                                const Eigen::MatrixXd* context_projection = nullptr);

// R̂ of Eq. 12 [C x K]: the mean context vector of each label's anchor tokens, or of its labeled
// tokens when it has no anchors (a zero column when it has neither). Invalid as above.
Result<Eigen::MatrixXd> ContextLabelMoments(const MomentCounts& moments,
                                            const std::vector<std::vector<int32_t>>& anchors,
                                            const LabeledMoments& labeled, const std::vector<std::string>& label_names);

// What the per-word (or per-feature) QPs of Eq. 13-14 fit with, over the K' labels that anchors
// or labeled tokens describe (R̂'s non-zero columns; the others are left out): the columns the QPs
// fit q with, R̂ itself or its projection P_Cᵀ R̂; `fit`, one row per context, so that β's data term
// (P_Cᵀ R̂)ᵀ P_Cᵀ q = (P_C P_Cᵀ R̂)ᵀ q costs a word K' numbers per non-zero context instead of D
// (P_C P_Cᵀ R̂ costs C x D x K', once); and the two QPs, over γ on the simplex, of ‖Rγ − q‖² and of
// its interpolation (1 − λ) ‖Rγ − q‖² + λ ‖γ − γ'‖² with a labeled posterior γ' (Eq. 26).
struct AnchorFit {
  std::vector<Eigen::Index> present;  // the K' labels, in order
  Eigen::MatrixXd r;                  // [C or D x K']
  Eigen::MatrixXd fit;                // [C x K']
  SimplexQp unsupervised;
  SimplexQp interpolated;
};
// `context_label`: ContextLabelMoments. Invalid, prefixed by `what`, when no label is present.
Result<AnchorFit> FitAnchors(const Eigen::MatrixXd& context_label, const AnchorEmissionOptions& options,
                             const Eigen::MatrixXd* context_projection, const std::string& what);

// Σ ψ(z) per label over labeled sentences (symbols and label ids), with moment_counts.h's
// context ids: [C x K].
Eigen::MatrixXd LabeledContextCounts(const std::vector<std::vector<int32_t>>& symbols,
                                     const std::vector<std::vector<int32_t>>& labels, int32_t num_symbols,
                                     int32_t num_labels);

}  // namespace seqflow
