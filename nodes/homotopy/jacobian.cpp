#include "nodes/homotopy/jacobian.h"

namespace seqflow {

Eigen::VectorXd ApplyH(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& v) {
  Eigen::VectorXd hv(v.size());
  for (const MultinomialRange& m : layout.multinomials()) {
    const auto t = theta_tilde.segment(m.offset, m.size);
    const auto vm = v.segment(m.offset, m.size);
    hv.segment(m.offset, m.size) = (vm.array() / t.array() - vm.sum() / t.sum()).matrix();
  }
  return hv;
}

Eigen::MatrixXd MultiplyH(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::MatrixXd& m) {
  Eigen::MatrixXd out(m.rows(), m.cols());
  for (const MultinomialRange& r : layout.multinomials()) {
    const auto t = theta_tilde.segment(r.offset, r.size);
    const auto block = m.middleCols(r.offset, r.size);
    const Eigen::VectorXd row_sums = block.rowwise().sum() / t.sum();
    out.middleCols(r.offset, r.size) = block * t.cwiseInverse().asDiagonal();
    out.middleCols(r.offset, r.size).colwise() -= row_sums;
  }
  return out;
}

namespace {

// x ← Π_m x on every block of x's rows: x_m −= q_m (q_mᵀ x_m), q_m = (Θ̃_m / Σ Θ̃_m)^½.
void ProjectRows(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, Eigen::MatrixXd* x) {
  for (const MultinomialRange& m : layout.multinomials()) {
    const auto t = theta_tilde.segment(m.offset, m.size);
    const Eigen::VectorXd q = (t / t.sum()).cwiseSqrt();
    auto rows = x->middleRows(m.offset, m.size);
    const Eigen::RowVectorXd qx = q.transpose() * rows;
    rows.noalias() -= q * qx;
  }
}

}  // namespace

Eigen::VectorXd ApplyG(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& v) {
  Eigen::MatrixXd x = v;
  ProjectRows(layout, theta_tilde, &x);
  return x.col(0).cwiseQuotient(theta_tilde.cwiseSqrt());
}

Eigen::VectorXd ApplyGt(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& v) {
  Eigen::MatrixXd x = v.cwiseQuotient(theta_tilde.cwiseSqrt());
  ProjectRows(layout, theta_tilde, &x);
  return x.col(0);
}

Eigen::MatrixXd SymmetrizeDense(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::MatrixXd& c) {
  const Eigen::VectorXd d = theta_tilde.cwiseSqrt().cwiseInverse();
  Eigen::MatrixXd s = d.asDiagonal() * c * d.asDiagonal();
  ProjectRows(layout, theta_tilde, &s);  // Π M
  s.transposeInPlace();                  // M Π, as M is symmetric
  ProjectRows(layout, theta_tilde, &s);  // Π M Π
  return s;
}

EmJacobian::EmJacobian(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& theta_tilde,
                       const IdSentences& unlabeled, int threads)
    : theta_tilde_(theta_tilde),
      covariance_(layout, layout.ToHmm(theta_tilde, frozen), unlabeled, threads),
      em1_(covariance_.expected_counts() / static_cast<double>(unlabeled.size())) {}

double EmJacobian::mean_log_likelihood() const {
  return covariance_.log_likelihood() / static_cast<double>(covariance_.num_sentences());
}

Eigen::VectorXd EmJacobian::Apply(const Eigen::VectorXd& v) const {
  return covariance_.Apply(ApplyH(layout(), theta_tilde_, v)) / static_cast<double>(covariance_.num_sentences());
}

Eigen::VectorXd EmJacobian::ApplySymmetric(const Eigen::VectorXd& v) const {
  const Eigen::VectorXd cgv = covariance_.Apply(ApplyG(layout(), theta_tilde_, v));
  return ApplyGt(layout(), theta_tilde_, cgv) / static_cast<double>(covariance_.num_sentences());
}

Eigen::MatrixXd EmJacobian::Dense() const {
  return MultiplyH(layout(), theta_tilde_, covariance_.Dense()) / static_cast<double>(covariance_.num_sentences());
}

}  // namespace seqflow
