#include "nodes/homotopy/covariance_ztable.h"

#include <algorithm>
#include <array>

namespace seqflow {
namespace {

// Where the events of each position live among the local rows. Every event kind takes K (node)
// or K² (edge, row a K + b) consecutive rows, so pair probabilities are added as blocks.
struct LocalRows {
  int K = 0;
  int initial = -1;       // first of K rows of the initial events, -1 when frozen
  int transition = -1;    // first of K² rows of the transition events, -1 when frozen
  std::vector<int> node;  // [T] first of K rows of the emissions of x_t, -1 when frozen
  int size = 0;

  // The first rows of the node events at position t (emission, and initial at t = 0).
  int NodeStarts(int t, std::array<int, 2>* starts) const {
    int n = 0;
    if (node[t] >= 0) (*starts)[n++] = node[t];
    if (t == 0 && initial >= 0) (*starts)[n++] = initial;
    return n;
  }
};

LocalRows MakeRows(const PomLayout& layout, std::span<const int32_t> x, std::vector<int>* index) {
  LocalRows rows;
  const int K = layout.num_states();
  rows.K = K;
  rows.node.assign(x.size(), -1);
  if (layout.free().initial) {
    rows.initial = rows.size;
    for (int s = 0; s < K; ++s) index->push_back(layout.InitialIndex(s));
    rows.size += K;
  }
  if (layout.free().transition) {
    rows.transition = rows.size;
    for (int a = 0; a < K; ++a) {
      for (int b = 0; b < K; ++b) index->push_back(layout.TransitionIndex(a, b));
    }
    rows.size += K * K;
  }
  if (layout.free().emission) {
    std::vector<int32_t> words(x.begin(), x.end());
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    for (size_t t = 0; t < x.size(); ++t) {
      const auto it = std::lower_bound(words.begin(), words.end(), x[t]);
      rows.node[t] = rows.size + static_cast<int>(it - words.begin()) * K;
    }
    for (int32_t w : words) {
      for (int s = 0; s < K; ++s) index->push_back(layout.EmissionIndex(s, w));
    }
    rows.size += static_cast<int>(words.size()) * K;
  }
  return rows;
}

// G(src, c K + d) = F(src, c) Wm(c, d): the sources' joint probability with each edge at t2,
// given F = the sources' rows at t2 − 1 and Wm(c, d) = A(c, d) W_t2(d).
Eigen::MatrixXd EdgeTargets(const Eigen::MatrixXd& F, const Eigen::MatrixXd& Wm) {
  const int K = static_cast<int>(Wm.rows());
  Eigen::MatrixXd G(F.rows(), K * K);
  for (int c = 0; c < K; ++c) G.middleCols(c * K, K).noalias() = F.col(c) * Wm.row(c);
  return G;
}

// S(i, j) += P(event i at t1, event j at t2) for all t1 < t2 (one side only).
void AddCrossPositions(const HmmParams& hmm, const SentenceLattice& lat, const LocalRows& rows, Eigen::MatrixXd* S) {
  const int K = rows.K;
  const int T = lat.length();
  const int K2 = K * K;
  const Eigen::MatrixXd& A = hmm.transition;
  std::array<int, 2> src{};
  std::array<int, 2> dst{};
  for (int t1 = 0; t1 + 1 < T; ++t1) {
    const int n_src = rows.NodeStarts(t1, &src);
    const bool edge_src = rows.transition >= 0 && t1 >= 1;
    if (n_src == 0 && !edge_src) continue;
    // Rows of the node sources y_t1 = s and of the edge sources (y_t1-1, y_t1) = (a, b).
    Eigen::MatrixXd Fn = lat.alpha.col(t1).asDiagonal();
    Eigen::MatrixXd Fe;
    if (edge_src) {
      const auto e = lat.emit.col(t1);
      Fe.setZero(K2, K);
      for (int a = 0; a < K; ++a) {
        for (int b = 0; b < K; ++b) Fe(a * K + b, b) = lat.alpha(a, t1 - 1) * A(a, b) * e[b];
      }
    }
    for (int t2 = t1 + 1; t2 < T; ++t2) {
      const auto e = lat.emit.col(t2);
      if (rows.transition >= 0) {
        const Eigen::MatrixXd Wm = A * e.cwiseProduct(lat.beta.col(t2)).asDiagonal();
        if (n_src > 0) {
          const Eigen::MatrixXd G = EdgeTargets(Fn, Wm);
          for (int i = 0; i < n_src; ++i) S->block(src[i], rows.transition, K, K2) += G;
        }
        if (edge_src) S->block(rows.transition, rows.transition, K2, K2) += EdgeTargets(Fe, Wm);
      }
      Fn = (Fn * A) * e.asDiagonal();
      if (edge_src) Fe = (Fe * A) * e.asDiagonal();
      const int n_dst = rows.NodeStarts(t2, &dst);
      if (n_dst == 0) continue;
      const auto beta = lat.beta.col(t2).asDiagonal();
      if (n_src > 0) {
        const Eigen::MatrixXd G = Fn * beta;
        for (int i = 0; i < n_src; ++i) {
          for (int j = 0; j < n_dst; ++j) S->block(src[i], dst[j], K, K) += G;
        }
      }
      if (edge_src) {
        const Eigen::MatrixXd G = Fe * beta;
        for (int j = 0; j < n_dst; ++j) S->block(rows.transition, dst[j], K2, K) += G;
      }
    }
  }
}

// Pairs of events at the same position, and the means E[Count].
void AddSamePositions(const HmmParams& hmm, const SentenceLattice& lat, const LocalRows& rows, Eigen::MatrixXd* S,
                      Eigen::VectorXd* mean) {
  const int K = rows.K;
  std::array<int, 2> starts{};
  for (int t = 0; t < lat.length(); ++t) {
    const Eigen::VectorXd gamma = lat.alpha.col(t).cwiseProduct(lat.beta.col(t));
    const int n = rows.NodeStarts(t, &starts);
    for (int i = 0; i < n; ++i) {
      mean->segment(starts[i], K) += gamma;
      for (int j = 0; j < n; ++j) S->block(starts[i], starts[j], K, K).diagonal() += gamma;
    }
    if (rows.transition < 0 || t == 0) continue;
    const Eigen::VectorXd w = lat.emit.col(t).cwiseProduct(lat.beta.col(t));
    for (int a = 0; a < K; ++a) {
      for (int b = 0; b < K; ++b) {
        const double xi = lat.alpha(a, t - 1) * hmm.transition(a, b) * w[b];
        const int r = rows.transition + a * K + b;
        (*mean)[r] += xi;
        (*S)(r, r) += xi;
        for (int i = 0; i < n; ++i) {  // the edge (a, b) enters the node y_t = b
          (*S)(r, starts[i] + b) += xi;
          (*S)(starts[i] + b, r) += xi;
        }
      }
    }
  }
}

}  // namespace

void LatticeFromLanes(const ChainLanesTables& tables, int K, int lane, int length, SentenceLattice* out) {
  out->alpha.resize(K, length);
  out->beta.resize(K, length);
  out->emit.resize(K, length);
  for (int t = 0; t < length; ++t) {
    for (int j = 0; j < K; ++j) {
      const size_t c = static_cast<size_t>(t) * K + j;
      out->alpha(j, t) = tables.alpha[c][lane];
      out->beta(j, t) = tables.beta[c][lane];
      out->emit(j, t) = tables.emit[c][lane];
    }
  }
  out->log_likelihood = tables.log_z[lane];
}

void SentenceCovariance(const PomLayout& layout, const HmmParams& hmm, std::span<const int32_t> x,
                        const SentenceLattice& lattice, LocalCovariance* out) {
  out->index.clear();
  if (!lattice.alive()) {
    out->cov.resize(0, 0);
    return;
  }
  const LocalRows rows = MakeRows(layout, x, &out->index);
  Eigen::MatrixXd& S = out->cov;
  S.setZero(rows.size, rows.size);
  AddCrossPositions(hmm, lattice, rows, &S);
  S += S.transpose().eval();
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(rows.size);
  AddSamePositions(hmm, lattice, rows, &S, &mean);
  S.noalias() -= mean * mean.transpose();
}

}  // namespace seqflow
