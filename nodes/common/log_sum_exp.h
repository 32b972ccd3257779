// log(sum_i exp(x_i)) without overflow or underflow: m + log(sum_i exp(x_i - m)), m = max_i x_i.
// An all -inf input (or an empty one) gives -inf, not NaN.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <utility>
#include "nodes/common/portable_math.h"

namespace seqflow {

inline double LogSumExp(const Eigen::Ref<const Eigen::ArrayXd>& x) {
  if (x.size() == 0) return -std::numeric_limits<double>::infinity();
  const double m = x.maxCoeff();
  if (!std::isfinite(m)) return m;
  double sum = 0;
  for (double v : x) sum += Exp(v - m);
  return m + Log(sum);
}

// log(exp(a) + exp(b)).
inline double LogAddExp(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return a + Log1p(Exp(b - a));
}

}  // namespace seqflow
