#include "nodes/homotopy/select_point.h"

#include <cmath>

namespace seqflow {
namespace {

size_t MonotoneIndex(const std::vector<HomotopyPoint>& points) {
  for (size_t i = 1; i < points.size(); ++i)
    if (points[i].det_sign != points[0].det_sign || points[i].dlambda_ds < 0) return i - 1;
  return points.size() - 1;
}

size_t FirstSingularityIndex(const std::vector<HomotopyPoint>& points) {
  const size_t before = MonotoneIndex(points);
  if (before + 1 >= points.size()) return before;
  return std::abs(points[before + 1].min_eig) < std::abs(points[before].min_eig) ? before + 1 : before;
}

size_t MinEigIndex(const std::vector<HomotopyPoint>& points) {
  size_t end = MonotoneIndex(points), best = 0;
  double best_gap = INFINITY;
  for (size_t i = 0; i <= end; ++i) {
    if (points[i].lambda <= 0) continue;
    double gap = std::abs(points[i].min_eig);
    if (gap < best_gap) {
      best_gap = gap;
      best = i;
    }
  }
  return best;
}

size_t ArgMax(const std::vector<double>& values, size_t first = 0) {
  size_t best = first;
  for (size_t i = first + 1; i < values.size(); ++i)
    if (values[i] > values[best]) best = i;
  return best;
}

size_t NearestLambda(const std::vector<HomotopyPoint>& points, double lambda) {
  size_t best = FinalSegmentStart(points);
  for (size_t i = best + 1; i < points.size(); ++i)
    if (std::abs(points[i].lambda - lambda) < std::abs(points[best].lambda - lambda)) best = i;
  return best;
}

}  // namespace

size_t FinalSegmentStart(const std::vector<HomotopyPoint>& points) {
  for (size_t i = 0; i < points.size(); ++i) {
    const auto it = points[i].metrics.find("final_segment");
    if (it != points[i].metrics.end() && it->second == 1.0) return i;
  }
  return 0;
}

Result<Criterion> ParseCriterion(std::string_view name) {
  if (name == "monotone") return Criterion::kMonotone;
  if (name == "min_eig") return Criterion::kMinEig;
  if (name == "max_entropy") return Criterion::kMaxEntropy;
  if (name == "fixed") return Criterion::kFixed;
  if (name == "mle") return Criterion::kMle;
  if (name == "last_lambda_zero") return Criterion::kLastLambdaZero;
  if (name == "first_singularity") return Criterion::kFirstSingularity;
  if (name == "max_sequence_entropy") return Criterion::kMaxSequenceEntropy;
  return Status::Invalid("unknown criterion '" + std::string(name) + "'");
}

size_t SelectPoint(const std::vector<HomotopyPoint>& points, Criterion criterion, double lambda,
                   const std::vector<double>& scores) {
  switch (criterion) {
    case Criterion::kMonotone:
      return MonotoneIndex(points);
    case Criterion::kMinEig:
      return MinEigIndex(points);
    case Criterion::kFirstSingularity:
      return FirstSingularityIndex(points);
    case Criterion::kMaxEntropy: {
      std::vector<double> entropy;
      for (const auto& p : points) entropy.push_back(p.entropy);
      return ArgMax(entropy, FinalSegmentStart(points));
    }
    case Criterion::kMaxSequenceEntropy: {
      std::vector<double> entropy;
      for (const auto& p : points) {
        const auto it = p.metrics.find("sequence_entropy");
        entropy.push_back(it == p.metrics.end() ? -INFINITY : it->second);
      }
      return ArgMax(entropy, FinalSegmentStart(points));
    }
    case Criterion::kLastLambdaZero:
      return FinalSegmentStart(points);
    case Criterion::kFixed:
    case Criterion::kMle:
      return NearestLambda(points, lambda);
    case Criterion::kBestScore:
      return ArgMax(scores);
  }
  return 0;
}

}  // namespace seqflow
