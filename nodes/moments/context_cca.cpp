#include "nodes/moments/context_cca.h"

#include <cmath>

#include "nodes/common/random.h"

namespace seqflow {

Result<ContextCca> ComputeContextCca(const MomentCounts& moments, const ContextCcaOptions& options,
                                     const CancelToken& cancel) {
  const Eigen::Index c = moments.num_contexts(), v = moments.num_symbols;
  if (options.dims < 1 || options.dims > std::min(c, v))
    return Status::Invalid("CCA dims must be in [1, " + std::to_string(std::min(c, v)) + "], got " +
                           std::to_string(options.dims));
  if (moments.cooccurrence.nonZeros() == 0) return Status::Invalid("CCA of empty moments");
  const Eigen::SparseMatrix<double>& m = moments.cooccurrence;
  Eigen::VectorXd context_counts = Eigen::VectorXd::Zero(c), word_counts = Eigen::VectorXd::Zero(v);
  for (Eigen::Index w = 0; w < v; ++w)
    for (Eigen::SparseMatrix<double>::InnerIterator it(m, w); it; ++it) {
      context_counts[it.row()] += it.value();
      word_counts[w] += it.value();
    }
  auto inverse_sqrt = [](const Eigen::VectorXd& x) {
    return x.unaryExpr([](double d) { return d > 0 ? 1 / std::sqrt(d) : 0.0; }).eval();
  };
  const Eigen::VectorXd dc = inverse_sqrt(context_counts), dw = inverse_sqrt(word_counts);
  const Eigen::SparseMatrix<double> omega = dc.asDiagonal() * m * dw.asDiagonal();

  const Eigen::Index l = std::min<Eigen::Index>(options.dims + options.oversample, std::min(c, v));
  Rng rng(options.seed);
  Eigen::MatrixXd test = Eigen::MatrixXd::NullaryExpr(v, l, [&] { return 2 * Uniform01(rng) - 1; });
  Eigen::MatrixXd y = omega * test;  // C x l
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(y);
  Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(c, l);
  for (int i = 0; i < options.power_iterations; ++i) {
    SEQFLOW_RETURN_IF_ERROR(cancel.Check("CCA"));
    Eigen::MatrixXd z = omega.transpose() * q;  // V x l
    Eigen::HouseholderQR<Eigen::MatrixXd> qz(z);
    z = qz.householderQ() * Eigen::MatrixXd::Identity(v, l);
    y = omega * z;
    qr.compute(y);
    q = qr.householderQ() * Eigen::MatrixXd::Identity(c, l);
  }
  const Eigen::MatrixXd b = (omega.transpose() * q).transpose();  // l x V
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(b, Eigen::ComputeThinU);
  if (!svd.singularValues().allFinite()) return Status::Numerical("CCA: non-finite singular values");
  ContextCca out;
  out.correlations = svd.singularValues().head(options.dims);
  out.context_projection = dc.asDiagonal() * (q * svd.matrixU().leftCols(options.dims));
  return out;
}

}  // namespace seqflow
