// Choosing λ from what was observed along a path (Haffari & Sarkar 2008, §5.2; Ji et al.).
//
//   monotone     the last point before the first change of monotonicity: the first point whose
//                det(I − λ∇EM_1) sign differs from the start's or whose dλ/ds < 0 (Corduneanu &
//                Jaakkola 2002); the last point when the path never turns.
//   min_eig      the point where λ∇EM_1 − I is closest to singular: argmin |λ μ_max − 1| over
//                points with λ > 0 up to the monotone point. (Read literally, "the lowest minimum
//                eigenvalue" is always −1 here: ∇EM_1 = Cov·H has a null space, so the smallest
//                eigenvalue of λ∇EM_1 − I is −1 at every λ. The singularity reading is the one
//                that makes the criterion informative.)
//   first_singularity  the point nearest the first zero of det(I − λ∇EM_1): of the two points
//                bracketing the first change of monotonicity (as monotone finds it), the one with
//                the smaller |λ μ_max − 1|; the last point when the path never turns. On a path
//                tracked through its folds (em_lambda_curve.h) the bracket is the fold itself.
//   max_entropy  argmax of the posterior label entropy on the unlabeled data (Ji et al. 2007).
//   max_sequence_entropy  argmax of the point metric "sequence_entropy", H(y | x) per token on the
//                unlabeled data (sequence_entropy.h; homotopy.em_lambda_path records it); points
//                without it never win.
//   fixed        the point whose λ is nearest the given λ.
//   mle          fixed at λ = |U| / (|L| + |U|).
//   best_score   argmax of a per-point score the caller computed (held-out F1, accuracy or
//                log-likelihood for the Held-out and Oracle rows of Table 1).
//   last_lambda_zero  the first point of the final segment P_F (Ji, Watson & Carin §IV-C: the
//                last return of the path near λ = 0, from where it tracks to λ = 1).
// P_F is marked by a point metric "final_segment" = 1 (the probability-one path sets it); on a
// path that marks it, max_entropy (Eq. 20), fixed and mle look only at P_F. Unmarked paths are
// one segment: P_F is the whole path.
// Ties go to the earlier point (the smaller allocation to unlabeled data).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "nodes/semi_supervised/homotopy_path.h"

namespace seqflow {

enum class Criterion {
  kMonotone,
  kMinEig,
  kMaxEntropy,
  kFixed,
  kMle,
  kBestScore,
  kLastLambdaZero,
  kFirstSingularity,
  kMaxSequenceEntropy
};

// Accepts "monotone", "min_eig", "max_entropy", "fixed", "mle", "last_lambda_zero",
// "first_singularity", "max_sequence_entropy" (others are the caller's).
Result<Criterion> ParseCriterion(std::string_view name);

// The index of the chosen point. `lambda` is read by kFixed; `scores` (one per point) by
// kBestScore. REQUIRES: points non-empty; scores.size() == points.size() for kBestScore.
size_t SelectPoint(const std::vector<HomotopyPoint>& points, Criterion criterion, double lambda,
                   const std::vector<double>& scores = {});

// The index of P_F's first point: the first point whose metric "final_segment" is 1, else 0.
size_t FinalSegmentStart(const std::vector<HomotopyPoint>& points);

}  // namespace seqflow
