// Homotopy maps with known zero curves or known solutions, for the normal-flow tracker's tests and
// benchmark: HOMPACK90's Brown almost-linear test (fixed-point homotopy), a circle, an S-shaped
// curve with two turning points in λ. Each returns ρ and its dense (or matrix-free) linearisation.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <array>
#include <cmath>
#include <complex>
#include <vector>

#include "nodes/numerics/normal_flow.h"

namespace seqflow::testutil {

// Brown's almost-linear function: F_i(x) = x_i + Σ_j x_j − (n + 1) for i < n, F_n(x) = Π_j x_j − 1.
inline Eigen::VectorXd BrownF(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  Eigen::VectorXd f = x.array() + x.sum() - static_cast<double>(n + 1);
  f[n - 1] = x.prod() - 1;
  return f;
}

inline Eigen::MatrixXd BrownJacobian(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  Eigen::MatrixXd j = Eigen::MatrixXd::Ones(n, n);
  j.diagonal().array() += 1.0;
  for (Eigen::Index k = 0; k < n; ++k) {
    double p = 1;
    for (Eigen::Index m = 0; m < n; ++m) p *= m == k ? 1.0 : x[m];
    j(n - 1, k) = p;
  }
  return j;
}

// ρ(x, λ) = λ F(x) + (1 − λ)(x − a): Dρ = [λ DF + (1 − λ) I, F(x) − (x − a)].
inline Eigen::MatrixXd FixedPointJacobian(const Eigen::VectorXd& y, const Eigen::VectorXd& a) {
  const Eigen::Index n = a.size();
  const Eigen::VectorXd x = y.head(n);
  const double lambda = y[n];
  Eigen::MatrixXd d(n, n + 1);
  d.leftCols(n) = lambda * BrownJacobian(x);
  d.leftCols(n).diagonal().array() += 1 - lambda;
  d.col(n) = BrownF(x) - (x - a);
  return d;
}

inline Eigen::VectorXd FixedPointValue(const Eigen::VectorXd& y, const Eigen::VectorXd& a) {
  const Eigen::Index n = a.size();
  return y[n] * BrownF(y.head(n)) + (1 - y[n]) * (y.head(n) - a);
}

inline HomotopyMap BrownFixedPointMap(Eigen::VectorXd a) {
  return [a](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    return CurveEvaluation{FixedPointValue(y, a), DenseCurveLinearization(FixedPointJacobian(y, a))};
  };
}

// The same map through products only (Krylov back end).
inline HomotopyMap BrownFixedPointKrylovMap(Eigen::VectorXd a) {
  return [a](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    Eigen::MatrixXd d = FixedPointJacobian(y, a);
    LinearOperator apply = [d](const Eigen::VectorXd& v) -> Eigen::VectorXd { return d * v; };
    return CurveEvaluation{FixedPointValue(y, a),
                           KrylovCurveLinearization(std::move(apply), a.size(), GmresOptions{20, 200, 1e-13})};
  };
}

// HOMPACK90 driver 3's sparse test system (FIXPNS / FIXPQS / FIXPDS), F: R^8 → R^8 with a
// symmetric Jacobian of 18 stored entries (lower skyline), tracked from a = (0.5, ..., 0.5):
inline Eigen::VectorXd Driver3F(const Eigen::VectorXd& x) {
  auto p = [&](int i) { return x[i - 1]; };  // the driver's 1-based names
  Eigen::VectorXd f(8);
  f << p(1) * p(1) * p(1) + 6 * p(2) * p(3) - 1 + 2 * p(1),
      6 * p(1) * p(3) + std::pow(p(2), 4) * p(5) - 1 + 3 * p(2),
      6 * p(1) * p(2) + p(3) * p(5) - 1 + 4 * p(3),
      p(4) * p(4) * p(4) * p(8) - 1 + 2 * p(4),
      std::pow(p(2), 5) / 5 + p(3) * p(3) / 2 + p(8) * p(5) - 1 + 3 * p(5),
      p(6) * p(8) - 1 + 4 * p(6),
      p(7) * p(7) * std::pow(p(8), 3) - 1 + 2 * p(7),
      std::pow(p(4), 4) / 4 + p(5) * p(5) / 2 + p(6) * p(6) / 2 + std::pow(p(7), 3) * p(8) * p(8) - 1 + 3 * p(8);
  return f;
}

inline Eigen::SparseMatrix<double> Driver3Jacobian(const Eigen::VectorXd& x) {
  auto p = [&](int i) { return x[i - 1]; };
  std::vector<Eigen::Triplet<double>> entries;
  auto set = [&](int i, int j, double v) {  // symmetric: (i, j) and (j, i)
    entries.emplace_back(i - 1, j - 1, v);
    if (i != j) entries.emplace_back(j - 1, i - 1, v);
  };
  set(1, 1, 3 * p(1) * p(1) + 2);
  set(2, 2, 4 * std::pow(p(2), 3) * p(5) + 3);
  set(1, 3, 6 * p(2));
  set(1, 2, 6 * p(3));
  set(2, 3, 6 * p(1));
  set(3, 3, p(5) + 4);
  set(4, 4, 3 * p(4) * p(4) * p(8) + 2);
  set(5, 5, p(8) + 3);
  set(3, 5, p(3));
  set(2, 5, std::pow(p(2), 4));
  set(6, 6, p(8) + 4);
  set(7, 7, 2 * p(7) * std::pow(p(8), 3) + 2);
  set(8, 8, 2 * std::pow(p(7), 3) * p(8) + 3);
  set(7, 8, 3 * p(7) * p(7) * p(8) * p(8));
  set(6, 8, p(6));
  set(5, 8, p(5));
  set(4, 8, std::pow(p(4), 3));
  Eigen::SparseMatrix<double> j(8, 8);
  j.setFromTriplets(entries.begin(), entries.end());
  return j;
}

// ρ(x, λ) = λ F(x) + (1 − λ)(x − a) through sparse products only (Krylov back end), as FIXPNS
// works on the sparse Jacobian: Dρ v = λ DF v_x + (1 − λ) v_x + (F(x) − x + a) v_λ.
inline HomotopyMap Driver3Map(Eigen::VectorXd a) {
  return [a](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    const Eigen::VectorXd x = y.head(8);
    const double lambda = y[8];
    const Eigen::VectorXd f = Driver3F(x);
    Eigen::SparseMatrix<double> dx = lambda * Driver3Jacobian(x);
    const Eigen::VectorXd dl = f - x + a;
    LinearOperator apply = [dx = std::move(dx), dl, lambda](const Eigen::VectorXd& v) -> Eigen::VectorXd {
      return dx * v.head(8) + (1 - lambda) * v.head(8) + dl * v[8];
    };
    return CurveEvaluation{lambda * f + (1 - lambda) * (x - a),
                           KrylovCurveLinearization(std::move(apply), 8, GmresOptions{20, 200, 1e-14})};
  };
}

// ρ(x, λ) = x² + λ² − r²: the circle of radius r about the origin, from (r, 0) to (√(r² − 1), 1).
inline HomotopyMap CircleMap(double r) {
  return [r](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    Eigen::MatrixXd d(1, 2);
    d << 2 * y[0], 2 * y[1];
    return CurveEvaluation{Eigen::VectorXd::Constant(1, y.squaredNorm() - r * r), DenseCurveLinearization(d)};
  };
}

// g(x) = 10x³ − 15x² + 6x rises to 0.724 at x = (5 − √5)/10, falls to 0.276 at (5 + √5)/10 and
// rises to 1 at x = 1: ρ(x, λ) = g(x) − λ turns back in λ twice between (0, 0) and (1, 1).
inline double STurn(double x) { return ((10 * x - 15) * x + 6) * x; }
inline double STurnSlope(double x) { return (30 * x - 30) * x + 6; }

inline HomotopyMap TurningPointMap() {
  return [](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    Eigen::MatrixXd d(1, 2);
    d << STurnSlope(y[0]), -1;
    return CurveEvaluation{Eigen::VectorXd::Constant(1, STurn(y[0]) - y[1]), DenseCurveLinearization(d)};
  };
}

// A narrow bump at λ = 1: ρ(x, λ) = atan(M (x − c(λ))), c(λ) = A exp(−((λ − 1)/w)²). Away from the
// bump the curve is the λ axis, so the tracker's steps grow to HMAX and one of them steps over the
// bump; the Hermite cubic between its ends crosses λ = 1 at x ≈ 0, A away from the curve, where
// Newton on the atan at fixed λ diverges (its range is |M (x − c)| < 1.39).
inline double BumpCenter(double lambda, double height, double width) {
  const double u = (lambda - 1) / width;
  return height * std::exp(-u * u);
}

inline HomotopyMap BumpAtEndMap(double height, double width, double steepness) {
  return [=](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    const double c = BumpCenter(y[1], height, width);
    const double slope = -2 * (y[1] - 1) / (width * width) * c;
    const double u = steepness * (y[0] - c);
    const double du = steepness / (1 + u * u);
    Eigen::MatrixXd d(1, 2);
    d << du, -du * slope;
    return CurveEvaluation{Eigen::VectorXd::Constant(1, std::atan(u)), DenseCurveLinearization(d)};
  };
}


// Two quadrics in two complex unknowns (HOMPACK90's POLSYS example as we recall it; 2 real and 2
// complex-conjugate solutions, one of them at z1 ≈ 2342):
//   F_1 = −0.00098 z1² + 978000 z2² − 9.8 z1 z2 − 235 z1 + 88900 z2 − 1
//   F_2 = −0.01 z1² − 0.984 z2² − 29.7 z1 z2 + 0.00987 z1 − 0.124 z2 − 0.25
// Coefficients spanning nine decades defeat any tracker's tolerances, so, as POLSYS does
// (its SCLGNP), the unknowns z_k = 10^e_k w_k and equations 10^f_j F_j are rescaled by the
// least-squares fit that centres the scaled log10 |coefficients| on 0.
// Total-degree homotopy in projective coordinates u = (u0, u1, u2), w_k = u_k / u0 (POLSYS's
// default: paths to large solutions stay short), on the random hyperplane ξ · u = 1:
//   H_j = λ F̂_j^h(u) + (1 − λ) c_j (u_j² − b_j² u0²), j = 1, 2;   H_3 = ξ · u − 1,
// F̂^h the homogenised F̂, c, b, ξ fixed "random" complex: 4 paths from w = (±b_1, ±b_2). Real
// unknowns y = (Re u0, Im u0, Re u1, Im u1, Re u2, Im u2, λ); H is holomorphic in u, so each
// complex derivative d fills a real block [[Re d, −Im d], [Im d, Re d]].
using Complex = std::complex<double>;
using QuadricCoefficients = std::array<double, 6>;  // z1², z2², z1 z2, z1, z2, 1
inline constexpr int kQuadricPowers[6][2] = {{2, 0}, {0, 2}, {1, 1}, {1, 0}, {0, 1}, {0, 0}};

inline const std::array<QuadricCoefficients, 2>& TwoQuadrics() {
  static const std::array<QuadricCoefficients, 2> q{{{-0.00098, 978000, -9.8, -235, 88900, -1},
                                                     {-0.01, -0.984, -29.7, 0.00987, -0.124, -0.25}}};
  return q;
}

struct ScaledQuadrics {
  std::array<QuadricCoefficients, 2> coefficients;  // of F̂(w)
  std::array<double, 2> variable_scale;             // z_k = variable_scale[k] w_k
};

// Minimises Σ_j,t (log10 |a_jt| + f_j + p1 e_1 + p2 e_2)² over (f_1, f_2, e_1, e_2).
inline const ScaledQuadrics& TwoQuadricsScaled() {
  static const ScaledQuadrics scaled = [] {
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(12, 4);
    Eigen::VectorXd rhs(12);
    for (int j = 0; j < 2; ++j)
      for (int t = 0; t < 6; ++t) {
        m(6 * j + t, j) = 1;
        m(6 * j + t, 2) = kQuadricPowers[t][0];
        m(6 * j + t, 3) = kQuadricPowers[t][1];
        rhs[6 * j + t] = -std::log10(std::abs(TwoQuadrics()[j][t]));
      }
    const Eigen::VectorXd fe = m.colPivHouseholderQr().solve(rhs);
    ScaledQuadrics out;
    for (int j = 0; j < 2; ++j)
      for (int t = 0; t < 6; ++t)
        out.coefficients[j][t] = TwoQuadrics()[j][t] *
                                 std::pow(10.0, fe[j] + kQuadricPowers[t][0] * fe[2] + kQuadricPowers[t][1] * fe[3]);
    out.variable_scale = {std::pow(10.0, fe[2]), std::pow(10.0, fe[3])};
    return out;
  }();
  return scaled;
}

inline Complex QuadricValue(const QuadricCoefficients& a, Complex z1, Complex z2) {
  return a[0] * z1 * z1 + a[1] * z2 * z2 + a[2] * z1 * z2 + a[3] * z1 + a[4] * z2 + a[5];
}

inline const std::array<Complex, 2> kQuadricStartScale{Complex(0.7212, -0.3914), Complex(-0.5527, 0.8011)};  // c
inline const std::array<Complex, 2> kQuadricStartRoot{Complex(0.6133, 0.4401), Complex(-0.2905, 0.9104)};    // b
inline const std::array<Complex, 3> kQuadricHyperplane{Complex(0.4213, 0.2913), Complex(-0.3715, 0.6612),
                                                       Complex(0.5821, -0.1442)};  // ξ

// The start of path `index` in 0..3: w_j = ±b_j, λ = 0.
inline Eigen::VectorXd TwoQuadricStart(int index) {
  const Complex w1 = (index & 1 ? -1.0 : 1.0) * kQuadricStartRoot[0];
  const Complex w2 = (index & 2 ? -1.0 : 1.0) * kQuadricStartRoot[1];
  const Complex u0 = 1.0 / (kQuadricHyperplane[0] + kQuadricHyperplane[1] * w1 + kQuadricHyperplane[2] * w2);
  const Complex u1 = w1 * u0, u2 = w2 * u0;
  Eigen::VectorXd y(7);
  y << u0.real(), u0.imag(), u1.real(), u1.imag(), u2.real(), u2.imag(), 0.0;
  return y;
}

// The affine w of a point y of a path.
inline std::array<Complex, 2> TwoQuadricAffine(const Eigen::VectorXd& y) {
  const Complex u0(y[0], y[1]);
  return {Complex(y[2], y[3]) / u0, Complex(y[4], y[5]) / u0};
}

inline void SetComplexBlock(Eigen::MatrixXd& d, int row, int col, Complex v) {
  d.block<2, 2>(row, col) << v.real(), -v.imag(), v.imag(), v.real();
}

inline HomotopyMap TwoQuadricMap() {
  return [](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    const std::array<Complex, 3> u{Complex(y[0], y[1]), Complex(y[2], y[3]), Complex(y[4], y[5])};
    const double lambda = y[6];
    Eigen::VectorXd rho(6);
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(6, 7);
    for (int j = 0; j < 2; ++j) {
      const QuadricCoefficients& a = TwoQuadricsScaled().coefficients[j];
      const Complex f = a[0] * u[1] * u[1] + a[1] * u[2] * u[2] + a[2] * u[1] * u[2] + a[3] * u[1] * u[0] +
                        a[4] * u[2] * u[0] + a[5] * u[0] * u[0];
      const Complex c = kQuadricStartScale[j], b2 = kQuadricStartRoot[j] * kQuadricStartRoot[j];
      const Complex g = c * (u[j + 1] * u[j + 1] - b2 * u[0] * u[0]);
      const Complex h = lambda * f + (1 - lambda) * g;
      rho[2 * j] = h.real();
      rho[2 * j + 1] = h.imag();
      const std::array<Complex, 3> df{a[3] * u[1] + a[4] * u[2] + 2 * a[5] * u[0],
                                      2 * a[0] * u[1] + a[2] * u[2] + a[3] * u[0],
                                      2 * a[1] * u[2] + a[2] * u[1] + a[4] * u[0]};
      std::array<Complex, 3> dg{-2.0 * c * b2 * u[0], 0, 0};
      dg[j + 1] = 2.0 * c * u[j + 1];
      for (int k = 0; k < 3; ++k) SetComplexBlock(d, 2 * j, 2 * k, lambda * df[k] + (1 - lambda) * dg[k]);
      d(2 * j, 6) = (f - g).real();
      d(2 * j + 1, 6) = (f - g).imag();
    }
    const Complex plane = kQuadricHyperplane[0] * u[0] + kQuadricHyperplane[1] * u[1] + kQuadricHyperplane[2] * u[2];
    rho[4] = plane.real() - 1;
    rho[5] = plane.imag();
    for (int k = 0; k < 3; ++k) SetComplexBlock(d, 4, 2 * k, kQuadricHyperplane[k]);
    return CurveEvaluation{rho, DenseCurveLinearization(d)};
  };
}

}  // namespace seqflow::testutil
