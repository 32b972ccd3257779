// Draws for the generators, on top of nodes/common/random.h (whose Uniform01 is the one
// portable mapping of the mt19937_64 stream to numbers). Large tables are sampled from a
// prebuilt cdf by binary search, where SampleCategorical would scan thousands of words.
// Thread safety: as the Rng passed in (one per thread or stream).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "nodes/common/random.h"

namespace seqflow {

// Running sums of `weights`: the cdf that SampleFromCdf takes.
inline std::vector<double> CumulativeSums(const std::vector<double>& weights) {
  std::vector<double> cdf(weights.size());
  double total = 0;
  for (size_t i = 0; i < weights.size(); ++i) cdf[i] = total += weights[i];
  return cdf;
}

// Index i drawn with probability (cdf[i] - cdf[i-1]) / cdf.back(); zero-width entries are
// never drawn. REQUIRES: cdf non-empty, non-decreasing, cdf.back() > 0.
inline size_t SampleFromCdf(const std::vector<double>& cdf, Rng& rng) {
  const double u = Uniform01(rng) * cdf.back();
  auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<size_t>(it - cdf.begin()), cdf.size() - 1);
}

// Uniform in [0, n). REQUIRES: n > 0.
inline size_t UniformIndex(size_t n, Rng& rng) {
  return std::min(n - 1, static_cast<size_t>(Uniform01(rng) * static_cast<double>(n)));
}

inline bool Bernoulli(double p, Rng& rng) { return Uniform01(rng) < p; }

}  // namespace seqflow
