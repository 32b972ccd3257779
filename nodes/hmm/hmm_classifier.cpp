#include "nodes/hmm/hmm_classifier.h"

#include <cmath>
#include <limits>
#include <string>

#include "nodes/common/parallel.h"
#include "nodes/common/portable_math.h"
#include "nodes/hmm/forward_backward.h"

namespace seqflow {
namespace {

// Θ̃[offset, offset + size) / its sum into `out`; false when the sum is not positive and finite.
bool NormalizeRange(const Eigen::VectorXd& theta_tilde, int offset, int size, double* out) {
  const double sum = theta_tilde.segment(offset, size).sum();
  if (!(sum > 0) || !std::isfinite(sum)) return false;
  for (int i = 0; i < size; ++i) out[i] = theta_tilde[offset + i] / sum;
  return true;
}

}  // namespace

ClassifierLayout::ClassifierLayout(int num_classes, int num_states, int num_symbols)
    : C_(num_classes), K_(num_states), V_(num_symbols) {}

Eigen::VectorXd ClassifierLayout::Stack(const HmmClassifier& model) const {
  Eigen::VectorXd theta(num_params());
  for (int y = 0; y < C_; ++y) {
    const HmmParams& h = model.classes[y];
    theta[prior_index(y)] = model.prior[y];
    theta.segment(initial_offset(y), K_) = h.initial;
    for (int i = 0; i < K_; ++i) {
      theta.segment(transition_offset(y) + i * K_, K_) = h.transition.row(i).transpose();
      theta.segment(emission_offset(y) + i * V_, V_) = h.emission.row(i).transpose();
    }
  }
  return theta;
}

Result<HmmClassifier> ClassifierLayout::Normalize(const Eigen::VectorXd& theta_tilde) const {
  HmmClassifier model;
  model.prior.resize(C_);
  double prior_sum = 0;
  for (int y = 0; y < C_; ++y) prior_sum += theta_tilde[prior_index(y)];
  if (!(prior_sum > 0) || !std::isfinite(prior_sum))
    return Status::Numerical("classifier parameters: the class priors do not have a positive sum");
  for (int y = 0; y < C_; ++y) model.prior[y] = theta_tilde[prior_index(y)] / prior_sum;
  for (int y = 0; y < C_; ++y) {
    HmmParams h;
    h.initial.resize(K_);
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a(K_, K_), b(K_, V_);
    bool ok = NormalizeRange(theta_tilde, initial_offset(y), K_, h.initial.data());
    for (int i = 0; i < K_ && ok; ++i) {
      ok = NormalizeRange(theta_tilde, transition_offset(y) + i * K_, K_, a.row(i).data()) &&
           NormalizeRange(theta_tilde, emission_offset(y) + i * V_, V_, b.row(i).data());
    }
    if (!ok)
      return Status::Numerical("classifier parameters: a multinomial of class " + std::to_string(y) +
                               " does not have a positive sum");
    h.transition = a;
    h.emission = b;
    model.classes.push_back(std::move(h));
  }
  return model;
}

Eigen::MatrixXd ClassLogLikelihoods(const HmmClassifier& model, const SymbolSequences& sequences, int threads) {
  Eigen::MatrixXd ll(sequences.size(), model.num_classes());
  ParallelShards(sequences.size(), 64, threads, [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      for (int y = 0; y < model.num_classes(); ++y) ll(i, y) = ForwardBackward(model.classes[y], sequences[i], nullptr);
  });
  return ll;
}

Result<Eigen::MatrixXd> ClassPosteriors(const Eigen::VectorXd& prior, const Eigen::MatrixXd& log_likelihoods) {
  Eigen::MatrixXd post(log_likelihoods.rows(), log_likelihoods.cols());
  for (Eigen::Index i = 0; i < post.rows(); ++i) {
    Eigen::VectorXd score = log_likelihoods.row(i).transpose() + prior.array().unaryExpr(&Log).matrix();
    const double top = score.maxCoeff();
    if (!std::isfinite(top))
      return Status::Numerical("class posterior: sequence " + std::to_string(i + 1) +
                               " has probability 0 (or a non-finite likelihood) under every class");
    score = (score.array() - top).unaryExpr(&Exp);
    post.row(i) = score.transpose() / score.sum();
  }
  return post;
}

std::vector<int32_t> ArgmaxClasses(const Eigen::MatrixXd& posteriors) {
  std::vector<int32_t> out(posteriors.rows());
  for (Eigen::Index i = 0; i < posteriors.rows(); ++i) {
    Eigen::Index best = 0;
    posteriors.row(i).maxCoeff(&best);
    out[i] = static_cast<int32_t>(best);
  }
  return out;
}

double MeanClassEntropy(const Eigen::MatrixXd& posteriors) {
  if (posteriors.rows() == 0) return 0;
  double total = 0;
  for (Eigen::Index k = 0; k < posteriors.size(); ++k) {
    const double p = posteriors.data()[k];
    if (p > 0) total -= p * Log(p);
  }
  return total / static_cast<double>(posteriors.rows());
}

}  // namespace seqflow
