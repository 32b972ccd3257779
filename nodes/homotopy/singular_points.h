// Where a traced EM_λ curve meets a singular point: I − λ∇EM_1 singular (Haffari & Sarkar 2008,
// §4: the path is a smooth curve only where that Jacobian is non-singular).
//
// Read from the recorded points (path_tracker.h's PathPoint): sign det(I − λ∇EM_1) flips between
// two consecutive points around one. There the curve either turns back in λ — a fold, dλ/ds
// changes sign too — or runs on through it while another curve of fixed points crosses — a
// branch point: by the implicit function theorem a point where the θ-Jacobian is singular but
// dλ/ds ≠ 0 cannot be regular, so the augmented Jacobian [Dρ; tᵀ] loses rank there, which is
// also why the normal-flow tracker's steps shrink to nothing at a branch point. A trace that
// stalled (step below min_step) at a point with |λ μ_max − 1| within `near_singular`, or that
// re-entered the curve past such a point (em_lambda_curve.h), met one there: a branch point when
// |dλ/ds| there is at least kTransversal, else a fold.
// Pure function.
#pragma once

#include <cstddef>
#include <vector>

#include "nodes/homotopy/path_tracker.h"

namespace seqflow {

struct SingularPoint {
  enum class Kind { kFold, kBranchPoint };
  Kind kind = Kind::kBranchPoint;
  double lambda = 0;   // midway between the two points around it, or the stalled point's λ
  size_t before = 0;   // the last point before it
  bool stalled = false;  // the tracker stalled at it (then stopped, or re-entered past it)
};

// |dλ/ds| below this at a singular point reads as a fold (the curve turning in λ).
inline constexpr double kTransversal = 1e-3;

// In the order of the trace. `stalled_at_end`: the trace ended because its step fell below
// min_step. Points without a spectrum (min_eig = −1, det_sign 1 throughout) show none.
std::vector<SingularPoint> FindSingularPoints(const std::vector<PathPoint>& points, bool stalled_at_end,
                                              double near_singular = 1e-6);

const char* SingularPointKindName(SingularPoint::Kind kind);  // "fold", "branch point"

}  // namespace seqflow
