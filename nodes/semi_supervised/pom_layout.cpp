#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Copies a [rows x cols] matrix row-major into flat[offset ...].
void PutRows(const Eigen::MatrixXd& m, int offset, Eigen::VectorXd* flat) {
  Eigen::Map<RowMajor>(flat->data() + offset, m.rows(), m.cols()) = m;
}

Eigen::MatrixXd GetRows(const Eigen::VectorXd& flat, int offset, int rows, int cols) {
  return Eigen::Map<const RowMajor>(flat.data() + offset, rows, cols);
}

}  // namespace

PomLayout::PomLayout(int num_states, int num_symbols, FreeBlocks free) : K_(num_states), V_(num_symbols), free_(free) {
  int next = 0;
  if (free_.initial) {
    initial_offset_ = next;
    multinomials_.push_back({next, K_});
    next += K_;
  }
  if (free_.transition) {
    transition_offset_ = next;
    for (int i = 0; i < K_; ++i, next += K_) multinomials_.push_back({next, K_});
  }
  if (free_.emission) {
    emission_offset_ = next;
    for (int i = 0; i < K_; ++i, next += V_) multinomials_.push_back({next, V_});
  }
  P_ = next;
}

Eigen::VectorXd PomLayout::Gather(const Eigen::VectorXd& initial, const Eigen::MatrixXd& transition,
                                  const Eigen::MatrixXd& emission) const {
  Eigen::VectorXd flat(P_);
  if (free_.initial) flat.segment(initial_offset_, K_) = initial;
  if (free_.transition) PutRows(transition, transition_offset_, &flat);
  if (free_.emission) PutRows(emission, emission_offset_, &flat);
  return flat;
}

Eigen::VectorXd PomLayout::Gather(const HmmParams& hmm) const {
  return Gather(hmm.initial, hmm.transition, hmm.emission);
}

Eigen::VectorXd PomLayout::Gather(const ExpectedCounts& counts) const {
  return Gather(counts.initial, counts.transition, counts.emission);
}

void PomLayout::Scatter(const Eigen::VectorXd& flat, Eigen::VectorXd* initial, Eigen::MatrixXd* transition,
                        Eigen::MatrixXd* emission) const {
  *initial = free_.initial ? Eigen::VectorXd(flat.segment(initial_offset_, K_)) : Eigen::VectorXd::Zero(K_);
  *transition = free_.transition ? GetRows(flat, transition_offset_, K_, K_) : Eigen::MatrixXd::Zero(K_, K_);
  *emission = free_.emission ? GetRows(flat, emission_offset_, K_, V_) : Eigen::MatrixXd::Zero(K_, V_);
}

Eigen::VectorXd PomLayout::Normalize(const Eigen::VectorXd& theta_tilde) const {
  Eigen::VectorXd theta = theta_tilde;
  for (const MultinomialRange& m : multinomials_)
    theta.segment(m.offset, m.size) /= theta.segment(m.offset, m.size).sum();
  return theta;
}

HmmParams PomLayout::ToHmm(const Eigen::VectorXd& theta_tilde, const HmmParams& frozen) const {
  const Eigen::VectorXd theta = Normalize(theta_tilde);
  HmmParams hmm = frozen;
  if (free_.initial) hmm.initial = theta.segment(initial_offset_, K_);
  if (free_.transition) hmm.transition = GetRows(theta, transition_offset_, K_, K_);
  if (free_.emission) hmm.emission = GetRows(theta, emission_offset_, K_, V_);
  return hmm;
}

}  // namespace seqflow
