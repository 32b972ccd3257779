#include "nodes/features/context_cca.h"

#include <cmath>

#include "nodes/common/random.h"

namespace seqflow {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Sparse = Eigen::SparseMatrix<double>;

// y = Ω x in one pass over Ω's non-zeros: each adds a contiguous row of x to a row of y (Eigen's
// column-major sparse x dense product makes one pass over Ω per column of x instead).
void Times(const Sparse& omega, const RowMatrix& x, RowMatrix* y) {
  y->setZero(omega.rows(), x.cols());
  for (Eigen::Index w = 0; w < omega.outerSize(); ++w)
    for (Sparse::InnerIterator it(omega, w); it; ++it) y->row(it.row()) += it.value() * x.row(w);
}

// z = Ωᵀ q, each row of z a fixed-order sum over one column of Ω.
void TransposeTimes(const Sparse& omega, const RowMatrix& q, RowMatrix* z) {
  z->setZero(omega.cols(), q.cols());
  for (Eigen::Index w = 0; w < omega.outerSize(); ++w) {
    auto zw = z->row(w);
    for (Sparse::InnerIterator it(omega, w); it; ++it) zw += it.value() * q.row(it.row());
  }
}

// One Cholesky QR step, y := y R⁻¹ with RᵀR = yᵀy; false (y untouched) when yᵀy is too badly
// conditioned for it: a pivot under 1e-6 of the largest (cond(y) > 1e6) or not positive definite.
bool CholeskyQrStep(RowMatrix& y) {
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(y.cols(), y.cols());
  gram.selfadjointView<Eigen::Lower>().rankUpdate(y.transpose());  // half the flops of yᵀy
  Eigen::LLT<Eigen::MatrixXd> llt(gram);
  if (llt.info() != Eigen::Success) return false;
  const Eigen::MatrixXd r = llt.matrixU();
  const Eigen::VectorXd pivots = r.diagonal();
  if (!pivots.allFinite() || !(pivots.minCoeff() > 1e-6 * pivots.maxCoeff())) return false;
  r.triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(y);
  return true;
}

// An orthonormal basis of y's columns, in place. CholeskyQR2 (two Cholesky QR steps: the second
// restores orthogonality to rounding) costs two Gram products and two triangular solves, about
// half of Householder QR with its Q formed; Householder QR when y is ill-conditioned. Either
// spans the same columns (their bases differ by column signs, fixed at the end by FixSigns).
void Orthonormalize(RowMatrix& y) {
  RowMatrix copy = y;
  if (CholeskyQrStep(y) && CholeskyQrStep(y)) return;
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(copy);
  y = qr.householderQ() * Eigen::MatrixXd::Identity(copy.rows(), copy.cols());
}

// Each column's entry of largest magnitude (the first of ties) made positive: singular vectors
// are defined up to sign, and this makes the projection independent of the basis path above.
void FixSigns(Eigen::MatrixXd& p) {
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    Eigen::Index at = 0;
    p.col(j).cwiseAbs().maxCoeff(&at);
    if (p(at, j) < 0) p.col(j) = -p.col(j);
  }
}

}  // namespace

Result<ContextCca> ComputeContextCca(const MomentCounts& moments, const ContextCcaOptions& options,
                                     const CancelToken& cancel) {
  const Eigen::Index c = moments.num_contexts(), v = moments.num_symbols;
  if (options.dims < 1 || options.dims > std::min(c, v))
    return Status::Invalid("CCA dims must be in [1, " + std::to_string(std::min(c, v)) + "], got " +
                           std::to_string(options.dims));
  if (moments.cooccurrence.nonZeros() == 0) return Status::Invalid("CCA of empty moments");
  const Sparse& m = moments.cooccurrence;
  Eigen::VectorXd context_counts = Eigen::VectorXd::Zero(c), word_counts = Eigen::VectorXd::Zero(v);
  for (Eigen::Index w = 0; w < v; ++w)
    for (Sparse::InnerIterator it(m, w); it; ++it) {
      context_counts[it.row()] += it.value();
      word_counts[w] += it.value();
    }
  auto inverse_sqrt = [](const Eigen::VectorXd& x) {
    return x.unaryExpr([](double d) { return d > 0 ? 1 / std::sqrt(d) : 0.0; }).eval();
  };
  const Eigen::VectorXd dc = inverse_sqrt(context_counts), dw = inverse_sqrt(word_counts);
  const Sparse omega = dc.asDiagonal() * m * dw.asDiagonal();

  const Eigen::Index l = std::min<Eigen::Index>(options.dims + options.oversample, std::min(c, v));
  Rng rng(options.seed);
  // Column-major draw order, as the test matrix has always been drawn.
  const Eigen::MatrixXd draw = Eigen::MatrixXd::NullaryExpr(v, l, [&] { return 2 * Uniform01(rng) - 1; });
  // Subspace iteration (Halko et al. 2011, Alg. 4.3/4.4) orthonormalizing the smaller of the two
  // sides at every step and the larger one only once, for Q: the basis of the smaller side keeps
  // the iterates well conditioned, and an orthonormalization costs O(rows l²), so the feature
  // contexts (C several times V) are orthonormalized once instead of 1 + power_iterations times.
  const bool contexts_smaller = c <= v;
  RowMatrix z = draw, q;
  Times(omega, z, &q);  // C x l
  if (contexts_smaller) Orthonormalize(q);
  for (int i = 0; i < options.power_iterations; ++i) {
    SEQFLOW_RETURN_IF_ERROR(cancel.Check("CCA"));
    TransposeTimes(omega, q, &z);  // V x l
    if (!contexts_smaller) Orthonormalize(z);
    Times(omega, z, &q);
    if (contexts_smaller) Orthonormalize(q);
  }
  if (!contexts_smaller) Orthonormalize(q);
  TransposeTimes(omega, q, &z);
  // B = Qᵀ Ω (l x V) has the left singular vectors of B Bᵀ = Zᵀ Z (l x l): its eigenvectors, with
  // singular values the square roots of its eigenvalues, instead of a Jacobi SVD of the wide B.
  const Eigen::MatrixXd small = z.transpose() * z;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(small);
  if (eigen.info() != Eigen::Success || !eigen.eigenvalues().allFinite())
    return Status::Numerical("CCA: non-finite singular values");
  ContextCca out;
  // Eigenvalues ascend: the top D are the last, reversed.
  out.correlations = eigen.eigenvalues().tail(options.dims).reverse().cwiseMax(0.0).cwiseSqrt();
  const Eigen::MatrixXd u = eigen.eigenvectors().rightCols(options.dims).rowwise().reverse();
  out.context_projection = dc.asDiagonal() * (q * u);
  FixSigns(out.context_projection);
  return out;
}

}  // namespace seqflow
