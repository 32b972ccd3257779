#include "nodes/common/random.h"

#include <cmath>
#include "nodes/common/portable_math.h"

namespace seqflow {

Rng ShardRng(uint64_t seed, uint64_t shard) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(shard),
                    static_cast<uint32_t>(shard >> 32), 0x5eedu};
  return Rng(seq);
}

double Uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int SampleCategorical(const Eigen::Ref<const Eigen::VectorXd>& p, Rng& rng) {
  const double u = Uniform01(rng) * p.sum();
  double cumulative = 0;
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    cumulative += p[i];
    if (u < cumulative) return static_cast<int>(i);
  }
  // Rounding can leave u just above the last partial sum: take the last positive entry.
  for (Eigen::Index i = p.size() - 1; i > 0; --i) {
    if (p[i] > 0) return static_cast<int>(i);
  }
  return 0;
}

Eigen::MatrixXd RandomStochasticRows(int rows, int cols, Rng& rng, double floor) {
  Eigen::MatrixXd m(rows, cols);
  for (int r = 0; r < rows; ++r) {
    // Normalised exponentials are a flat Dirichlet draw; 1 - u keeps the log argument in (0, 1].
    for (int c = 0; c < cols; ++c) m(r, c) = -Log(1.0 - Uniform01(rng));
    m.row(r) /= m.row(r).sum();
  }
  if (floor > 0) m = (1.0 - floor) * m.array() + floor / cols;
  return m;
}

}  // namespace seqflow
