#include "nodes/homotopy/singular_points.h"

#include <cmath>

namespace seqflow {
namespace {

bool NearSingular(const PathPoint& p, double near_singular) { return std::abs(p.min_eig) <= near_singular; }

SingularPoint Stalled(const PathPoint& p, size_t index) {
  return SingularPoint{std::abs(p.dlambda_ds) >= kTransversal ? SingularPoint::Kind::kBranchPoint
                                                              : SingularPoint::Kind::kFold,
                       p.lambda, index, true};
}

}  // namespace

std::vector<SingularPoint> FindSingularPoints(const std::vector<PathPoint>& points, bool stalled_at_end,
                                              double near_singular) {
  std::vector<SingularPoint> found;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const PathPoint& a = points[i];
    const PathPoint& b = points[i + 1];
    if (b.reentry) {
      // The tracker stalled at `a` and re-entered past it.
      if (a.det_sign != b.det_sign || NearSingular(a, near_singular)) found.push_back(Stalled(a, i));
    } else if (a.det_sign != b.det_sign) {
      const bool turned = (a.dlambda_ds > 0) != (b.dlambda_ds > 0);
      found.push_back(SingularPoint{turned ? SingularPoint::Kind::kFold : SingularPoint::Kind::kBranchPoint,
                                    0.5 * (a.lambda + b.lambda), i, false});
    }
  }
  if (stalled_at_end && !points.empty() && NearSingular(points.back(), near_singular))
    found.push_back(Stalled(points.back(), points.size() - 1));
  return found;
}

const char* SingularPointKindName(SingularPoint::Kind kind) {
  return kind == SingularPoint::Kind::kFold ? "fold" : "branch point";
}

}  // namespace seqflow
