// The Givens step of GMRES, shared by gmres.cpp and recycling_gmres.cpp: column k of the
// Hessenberg matrix, rotated by the k rotations so far and then by a new one that zeroes its
// subdiagonal entry, which also rotates the right-hand side g (whose entry k + 1 is then the
// residual norm of the least-squares problem).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace seqflow {

// The rotation [c s; −s c] that maps (a, b) to (r, 0). r = |(a, b)| scaled by the larger part
// against overflow, with sqrt (exact in IEEE) rather than libm's hypot, whose bits may depend on
// the CPU (nodes/common/portable_math.h).
inline void Givens(double a, double b, double* c, double* s) {
  const double scale = std::max(std::abs(a), std::abs(b));
  if (scale == 0) {
    *c = 1;
    *s = 0;
    return;
  }
  const double u = a / scale, v = b / scale;
  const double r = scale * std::sqrt(u * u + v * v);
  *c = a / r;
  *s = b / r;
}

// REQUIRES: h has k + 2 rows set in column k; cs, sn hold rotations 0..k-1 and have room for k.
inline void RotateHessenbergColumn(int k, Eigen::MatrixXd* h, Eigen::VectorXd* cs, Eigen::VectorXd* sn,
                                   Eigen::VectorXd* g) {
  Eigen::MatrixXd& m = *h;
  for (int i = 0; i < k; ++i) {
    const double hi = m(i, k);
    m(i, k) = (*cs)[i] * hi + (*sn)[i] * m(i + 1, k);
    m(i + 1, k) = -(*sn)[i] * hi + (*cs)[i] * m(i + 1, k);
  }
  Givens(m(k, k), m(k + 1, k), &(*cs)[k], &(*sn)[k]);
  m(k, k) = (*cs)[k] * m(k, k) + (*sn)[k] * m(k + 1, k);
  m(k + 1, k) = 0;
  (*g)[k + 1] = -(*sn)[k] * (*g)[k];
  (*g)[k] = (*cs)[k] * (*g)[k];
}

}  // namespace seqflow
