// Parallel passes over long vectors with a reduction that does not depend on the thread count:
// [0, n) is cut into fixed blocks, each block's partial result is computed on any thread, and
// the partials are added in block order. L-BFGS over millions of weights is memory-bound, so
// its vector passes are worth spreading over the cores the caller was given.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "nodes/common/parallel.h"
#include "nodes/optim/mixed_dot.h"

namespace seqflow {

inline constexpr Eigen::Index kVectorBlock = 1 << 16;

// Σ_blocks partial(begin, end), blocks of kVectorBlock in order; partial may also write its block.
template <class Partial>
double BlockedSum(Eigen::Index n, int threads, Partial&& partial) {
  std::vector<double> sums(NumShards(static_cast<size_t>(n), kVectorBlock), 0.0);
  const int used = n < 4 * kVectorBlock ? 1 : threads;  // small vectors: threads cost more than they save
  ParallelShards(static_cast<size_t>(n), kVectorBlock, used, [&](size_t block, size_t begin, size_t end) {
    sums[block] = partial(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin));
  });
  double total = 0;
  for (double s : sums) total += s;
  return total;
}

}  // namespace seqflow

namespace seqflow {

// a·b for vectors of any scalar types (accumulated in double).
template <class A, class B>
double ParallelDot(const A& a, const B& b, int threads) {
  return BlockedSum(a.size(), threads, [&](Eigen::Index begin, Eigen::Index len) {
    return MixedDot(a.data() + begin, b.data() + begin, len);
  });
}

inline double ParallelSquaredNorm(const Eigen::VectorXd& a, int threads) { return ParallelDot(a, a, threads); }

// y += alpha x.
template <class X>
void ParallelAxpy(double alpha, const X& x, Eigen::VectorXd& y, int threads) {
  const auto* xs = x.data();
  double* ys = y.data();
  BlockedSum(x.size(), threads, [&](Eigen::Index begin, Eigen::Index len) {
    for (Eigen::Index j = begin; j < begin + len; ++j) ys[j] += alpha * static_cast<double>(xs[j]);
    return 0.0;
  });
}

}  // namespace seqflow
