// The m most recent L-BFGS correction pairs (s_i = x_{i+1} - x_i, y_i = g_{i+1} - g_i) and the
// product of their inverse-Hessian approximation with a gradient, in the compact form of Byrd,
// Nocedal & Schnabel (1994, Thm. 2.2), H_0 = γ I with γ = s·y / y·y of the newest pair:
//   H g = γ g + S t - γ Y u,   u = R⁻¹ Sᵀg,   t = R⁻ᵀ((D + γ YᵀY) u - γ Yᵀg),
// R [m x m] upper triangular with R_ij = s_iᵀy_j (i <= j, oldest first), D = diag(s_iᵀy_i).
// Over millions of weights the products are memory-bound, and this form reads the history twice
// per direction (once for Sᵀg and Yᵀg, once to combine) where the two-loop recursion reads it 4m
// times. The new column of R and row of YᵀY need no pass of their own: with y_new = g' - g,
// s_iᵀy_new = s_iᵀg' - s_iᵀg and y_iᵀy_new likewise, from the dot products of consecutive
// directions.
//
// Pairs are built in place so the optimiser keeps no extra full-size vectors: Begin(d, g)
// writes the search direction and -g into the slot of the next pair; Complete(step, g_new) turns
// them into s = step·d and y = g_new - g. Scalar is float or double (see LbfgsOptions).
// Not thread-safe.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/base/bytes.h"
#include "engine/base/state_pieces.h"
#include "engine/base/state_source.h"
#include "nodes/common/state_table.h"
#include "nodes/optim/blocked_sum.h"
#include "nodes/optim/mixed_dot.h"

namespace seqflow {

template <class Scalar>
class CorrectionHistory {
 public:
  // The slots are allocated, not filled: each is written before it is read, and on a resume
  // (Load) the saved pairs are the first bytes written into them — zeros first would touch
  // 8 x 21 MB of fresh pages once more on CoNLL-2000 (bench/RESULTS.md, "crf.train's restart").
  CorrectionHistory(Eigen::Index n, int memory, int threads = 1)
      : s_(memory),
        y_(memory),
        identity_(memory),
        sy_(Eigen::MatrixXd::Zero(memory, memory)),
        yy_(Eigen::MatrixXd::Zero(memory, memory)),
        // Zeros: a checkpoint writes the unused entries too, and its bytes must not vary.
        sg_(Eigen::VectorXd::Zero(memory)),
        yg_(Eigen::VectorXd::Zero(memory)),
        threads_(threads) {
    for (Vector& v : s_) v.resize(n);
    for (Vector& v : y_) v.resize(n);
  }

  // Single precision stores tiny values (gradients of labels with marginal e^-90, say) as
  // subnormals, and each arithmetic use of a subnormal costs a microcode assist. They are flushed
  // to zero as they are stored; their contribution to a search direction is below round-off.
  static Scalar Stored(double v) { return mixed_dot_internal::Stored<Scalar>(v); }

  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  // direction = -H g, where g is the gradient at the end of the last completed pair's step. The
  // direction has the history's precision (it becomes the next pair's s). Returns the slope gᵀd,
  // summed in the same blocks as ParallelDot while each block of d is still in cache. The same
  // pass starts the next pair's y as -g (Complete adds the new gradient), so g is read once.
  double Direction(const Eigen::VectorXd& g, Vector& direction) {
    const Eigen::Index n = g.size();
    direction.resize(n);
    Scalar* y_next = y_[PendingSlot()].data();
    if (count_ == 0) {
      Scalar* d = direction.data();
      return BlockedSum(n, threads_, [&](Eigen::Index b, Eigen::Index len) {
        for (Eigen::Index j = b; j < b + len; ++j) y_next[j] = d[j] = Stored(-g[j]);
        return MixedDot(g.data() + b, d + b, len);
      });
    }
    const Eigen::VectorXd sg_before = sg_, yg_before = yg_;
    ProjectGradient(g);
    if (pending_) AddCrossTerms(sg_before, yg_before);
    Eigen::VectorXd t, u;
    SolveCoefficients(t, u);
    return Combine(g, t, u, direction, y_next);
  }

  // Starts the next pair from the search direction of the last Direction call (and the gradient
  // it was given). The oldest pair is dropped when the history is full. The direction is taken
  // over, not copied: afterwards it is PendingDirection(), and `direction` holds scratch space.
  void Begin(Vector& direction) {
    if (count_ == Capacity()) --count_, oldest_ = (oldest_ + 1) % Capacity();
    s_[Next()].swap(direction);
  }
  // The direction of the pair begun last, until Complete scales it into the step.
  const Vector& PendingDirection() const { return s_[Next()]; }
  // Completes the pair begun last; a pair without positive curvature (s·y <= 0) is discarded.
  void Complete(double step, const Eigen::VectorXd& g_new) {
    const int i = Next();
    Scalar* s = s_[i].data();
    Scalar* y = y_[i].data();
    std::vector<double> yy_blocks(NumShards(static_cast<size_t>(g_new.size()), kVectorBlock));
    const double sy = BlockedSum(g_new.size(), threads_, [&](Eigen::Index b, Eigen::Index len) {
      for (Eigen::Index j = b; j < b + len; ++j) s[j] = Stored(step * s[j]), y[j] = Stored(y[j] + g_new[j]);
      yy_blocks[b / kVectorBlock] = MixedDot(y + b, y + b, len);
      return MixedDot(s + b, y + b, len);
    });
    double yy = 0;
    for (double v : yy_blocks) yy += v;
    pending_ = false;
    if (!(sy > 0) || !(yy > 0)) return;
    sy_(i, i) = sy;
    yy_(i, i) = yy;
    identity_[i] = {NewPieceIdentity(), NewPieceIdentity()};
    gamma_ = sy / yy;
    ++count_;
    pending_ = true;
  }
  void Clear() { count_ = 0, pending_ = false; }
  int size() const { return count_; }

  // The history between a Complete and the next Direction, for checkpoints: the stored pairs in
  // their slots and every product and flag, so a loaded history gives the next direction to the
  // same bits. The unused slots are not saved (each is written before it is read).
  // Each completed pair's s and y are immutable pieces of `state` (written once by checkpoints
  // however many saves hold them), in the bytes of ByteWriter::Str.
  void Save(StatePieces& state) const {
    ByteWriter& w = state.writer();
    w.I64(Capacity()), w.I64(count_), w.I64(oldest_), w.U8(pending_ ? 1 : 0), w.F64(gamma_);
    w.F64s(sy_.data(), static_cast<size_t>(sy_.size()));
    w.F64s(yy_.data(), static_cast<size_t>(yy_.size()));
    w.F64s(sg_.data(), static_cast<size_t>(sg_.size()));
    w.F64s(yg_.data(), static_cast<size_t>(yg_.size()));
    for (int k = 0; k < count_; ++k) {
      const int i = Slot(k);
      SaveVector(state, s_[i], identity_[i].first), SaveVector(state, y_[i], identity_[i].second);
    }
  }
  // False when the bytes are not a history of this capacity and length (the reader may throw
  // StatusError on truncated bytes).
  bool Load(StateIn& r) {
    const int m = Capacity();
    if (r.I64() != m) return false;
    const int64_t count = r.I64(), oldest = r.I64();
    if (count < 0 || count > m || oldest < 0 || oldest >= m) return false;
    count_ = static_cast<int>(count), oldest_ = static_cast<int>(oldest);
    pending_ = r.U8() != 0;
    gamma_ = r.F64();
    if (!LoadDoubles(r, sy_.data(), sy_.size()) || !LoadDoubles(r, yy_.data(), yy_.size()) ||
        !LoadDoubles(r, sg_.data(), sg_.size()) || !LoadDoubles(r, yg_.data(), yg_.size()))
      return false;
    for (int k = 0; k < count_; ++k) {
      const int i = Slot(k);
      if (!LoadVector(r, s_[i]) || !LoadVector(r, y_[i])) return false;
      identity_[i] = {NewPieceIdentity(), NewPieceIdentity()};
    }
    return true;
  }

 private:
  int Capacity() const { return static_cast<int>(sy_.rows()); }
  int Slot(int k) const { return (oldest_ + k) % Capacity(); }  // k-th oldest pair
  int Next() const { return Slot(count_); }
  int Newest() const { return Slot(count_ - 1); }
  // The slot the next Begin fills: the oldest pair's when the history is full.
  int PendingSlot() const { return count_ == Capacity() ? oldest_ : Next(); }

  // sg_ = Sᵀg, yg_ = Yᵀg over the stored pairs, in one pass.
  void ProjectGradient(const Eigen::VectorXd& g) {
    const int m = count_;
    const Eigen::Index n = g.size();
    const size_t blocks = NumShards(static_cast<size_t>(n), kVectorBlock);
    std::vector<double> partial(blocks * 2 * m, 0.0);
    const int used = n < 4 * kVectorBlock ? 1 : threads_;
    ParallelShards(static_cast<size_t>(n), kVectorBlock, used, [&](size_t block, size_t begin, size_t end) {
      double* out = partial.data() + block * 2 * m;
      const auto b = static_cast<Eigen::Index>(begin), len = static_cast<Eigen::Index>(end - begin);
      for (int k = 0; k < m; ++k) {
        out[2 * k] = MixedDot(s_[Slot(k)].data() + b, g.data() + b, len);
        out[2 * k + 1] = MixedDot(y_[Slot(k)].data() + b, g.data() + b, len);
      }
    });
    for (int k = 0; k < m; ++k) sg_[Slot(k)] = yg_[Slot(k)] = 0;
    for (size_t block = 0; block < blocks; ++block)
      for (int k = 0; k < m; ++k) {
        sg_[Slot(k)] += partial[block * 2 * m + 2 * k];
        yg_[Slot(k)] += partial[block * 2 * m + 2 * k + 1];
      }
  }

  // The newest pair's column of SᵀY and row of YᵀY: s_iᵀy_new = s_iᵀg - s_iᵀg_before.
  void AddCrossTerms(const Eigen::VectorXd& sg_before, const Eigen::VectorXd& yg_before) {
    const int j = Newest();
    for (int k = 0; k + 1 < count_; ++k) {
      const int i = Slot(k);
      sy_(i, j) = sg_[i] - sg_before[i];
      yy_(i, j) = yy_(j, i) = yg_[i] - yg_before[i];
    }
    pending_ = false;
  }

  // u = R⁻¹ Sᵀg and t = R⁻ᵀ((D + γ YᵀY) u - γ Yᵀg), pairs oldest first.
  void SolveCoefficients(Eigen::VectorXd& t, Eigen::VectorXd& u) const {
    const int m = count_;
    Eigen::MatrixXd r = Eigen::MatrixXd::Zero(m, m), yy(m, m);
    Eigen::VectorXd sg(m), yg(m), d(m);
    for (int a = 0; a < m; ++a) {
      sg[a] = sg_[Slot(a)], yg[a] = yg_[Slot(a)], d[a] = sy_(Slot(a), Slot(a));
      for (int b = 0; b < m; ++b) {
        yy(a, b) = yy_(Slot(a), Slot(b));
        if (a <= b) r(a, b) = sy_(Slot(a), Slot(b));
      }
    }
    u = r.triangularView<Eigen::Upper>().solve(sg);
    const Eigen::MatrixXd rt = r.transpose();
    t = rt.triangularView<Eigen::Lower>().solve(Eigen::VectorXd(d.cwiseProduct(u) + gamma_ * (yy * u) - gamma_ * yg));
  }

  // direction = -(γ g + S t - γ Y u) and y_next = -g; returns gᵀdirection. y_next may be a stored
  // pair's y (the oldest, when full): CombinePairs reads each value before it writes it.
  double Combine(const Eigen::VectorXd& g, const Eigen::VectorXd& t, const Eigen::VectorXd& u, Vector& direction,
                 Scalar* y_next) const {
    const int m = count_;
    std::vector<const Scalar*> s(m), y(m);
    std::vector<double> ts(m), uy(m);
    for (int k = 0; k < m; ++k)
      s[k] = s_[Slot(k)].data(), y[k] = y_[Slot(k)].data(), ts[k] = t[k], uy[k] = gamma_ * u[k];
    Scalar* d = direction.data();
    return BlockedSum(g.size(), threads_, [&](Eigen::Index b, Eigen::Index len) {
      std::vector<const Scalar*> yb(m), sb(m);
      for (int k = 0; k < m; ++k) yb[k] = y[k] + b, sb[k] = s[k] + b;
      return CombinePairs(g.data() + b, gamma_, yb.data(), sb.data(), uy.data(), ts.data(), m, d + b, y_next + b, len);
    });
  }

  static void SaveVector(StatePieces& state, const Vector& v, uint64_t identity) {
    const std::string_view bytes(reinterpret_cast<const char*>(v.data()), static_cast<size_t>(v.size()) * sizeof(Scalar));
    state.writer().U64(bytes.size());
    state.AppendImmutable(bytes, identity);
  }
  static bool LoadVector(StateIn& r, Vector& v) {
    return r.CountedInto(reinterpret_cast<char*>(v.data()), static_cast<size_t>(v.size()) * sizeof(Scalar), 1);
  }
  static bool LoadDoubles(StateIn& r, double* out, Eigen::Index n) { return r.F64sInto(out, static_cast<size_t>(n)); }

  std::vector<Vector> s_, y_;  // [m] slots of n values
  // [m] by slot: the stored pair's s and y identities for checkpoints (StatePieces), new whenever
  // a slot takes a pair, so the engine hashes each pair's bytes once however many saves hold it.
  std::vector<std::pair<uint64_t, uint64_t>> identity_;
  Eigen::MatrixXd sy_;         // [m x m] s_iᵀy_j by slot (used for i older than or equal to j)
  Eigen::MatrixXd yy_;         // [m x m] y_iᵀy_j by slot
  Eigen::VectorXd sg_, yg_;    // [m] Sᵀg, Yᵀg by slot, for the last Direction's g
  double gamma_ = 1.0;
  int count_ = 0;
  int oldest_ = 0;
  bool pending_ = false;  // the newest pair still lacks its cross terms
  int threads_;
};

}  // namespace seqflow
