// The m most recent L-BFGS correction pairs (s_i = x_{i+1} - x_i, y_i = g_{i+1} - g_i) and the
// two-loop recursion that applies the inverse-Hessian approximation H_k to a gradient
// (Nocedal & Wright 2006, Alg. 7.4, with H_k^0 = (s·y / y·y) I).
//
// Pairs are built in place so the optimiser keeps no extra full-size vectors: Begin(d, g)
// writes the search direction and -g into the slot of the next pair; Complete(step, g_new) turns
// them into s = step·d and y = g_new - g. Scalar is float or double (see LbfgsOptions).
// Not thread-safe.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "nodes/optim/blocked_sum.h"

namespace seqflow {

template <class Scalar>
class CorrectionHistory {
 public:
  CorrectionHistory(Eigen::Index n, int memory, int threads = 1)
      : s_(n, memory), y_(n, memory), rho_(memory, 0.0), threads_(threads) {}

  // direction = -H g. The two loops are fused so each pass over the history also takes the dot
  // product the next step needs: 2m + 1 passes instead of 4m. `threads` spread the passes.
  void Direction(const Eigen::VectorXd& g, Eigen::VectorXd& direction) const {
    const Eigen::Index n = g.size();
    const int threads = threads_;
    direction.resize(n);
    double* q = direction.data();
    if (count_ == 0) {
      BlockedSum(n, threads, [&](Eigen::Index b, Eigen::Index len) {
        for (Eigen::Index j = b; j < b + len; ++j) q[j] = -g[j];
        return 0.0;
      });
      return;
    }
    std::vector<double> alpha(rho_.size());
    const Scalar* s_next = s_.col(Slot(count_ - 1)).data();
    double dot = BlockedSum(n, threads, [&](Eigen::Index b, Eigen::Index len) {
      double acc = 0;
      for (Eigen::Index j = b; j < b + len; ++j) q[j] = g[j], acc += s_next[j] * g[j];
      return acc;
    });
    for (int k = count_ - 1; k >= 0; --k) {  // newest to oldest: q -= α_i y_i
      const int i = Slot(k);
      alpha[i] = rho_[i] * dot;
      const Scalar* y = y_.col(i).data();
      const double a = alpha[i];
      if (k > 0) {
        const Scalar* s = s_.col(Slot(k - 1)).data();
        dot = BlockedSum(n, threads, [&](Eigen::Index b, Eigen::Index len) {
          double acc = 0;
          for (Eigen::Index j = b; j < b + len; ++j) q[j] -= a * y[j], acc += s[j] * q[j];
          return acc;
        });
      } else {  // then q *= γ (H_0) and start the second loop's first dot
        const Scalar* y0 = y_.col(Slot(0)).data();
        const double gamma = gamma_;
        dot = BlockedSum(n, threads, [&](Eigen::Index b, Eigen::Index len) {
          double acc = 0;
          for (Eigen::Index j = b; j < b + len; ++j) q[j] = (q[j] - a * y[j]) * gamma, acc += y0[j] * q[j];
          return acc;
        });
      }
    }
    for (int k = 0; k < count_; ++k) {  // oldest to newest: q += (α_i - β_i) s_i; the last pass negates
      const int i = Slot(k);
      const double c = alpha[i] - rho_[i] * dot;
      const Scalar* s = s_.col(i).data();
      if (k + 1 < count_) {
        const Scalar* y = y_.col(Slot(k + 1)).data();
        dot = BlockedSum(n, threads, [&](Eigen::Index b, Eigen::Index len) {
          double acc = 0;
          for (Eigen::Index j = b; j < b + len; ++j) q[j] += c * s[j], acc += y[j] * q[j];
          return acc;
        });
      } else {
        BlockedSum(n, threads, [&](Eigen::Index b, Eigen::Index len) {
          for (Eigen::Index j = b; j < b + len; ++j) q[j] = -(q[j] + c * s[j]);
          return 0.0;
        });
      }
    }
  }

  // Starts the next pair from the search direction and the gradient where the step begins. The
  // oldest pair is dropped when the history is full.
  void Begin(const Eigen::VectorXd& direction, const Eigen::VectorXd& g) {
    if (count_ == Capacity()) --count_, oldest_ = (oldest_ + 1) % Capacity();
    Scalar* s = s_.col(Next()).data();
    Scalar* y = y_.col(Next()).data();
    BlockedSum(g.size(), threads_, [&](Eigen::Index b, Eigen::Index len) {
      for (Eigen::Index j = b; j < b + len; ++j) s[j] = static_cast<Scalar>(direction[j]), y[j] = static_cast<Scalar>(-g[j]);
      return 0.0;
    });
  }
  // Completes the pair begun last; a pair without positive curvature (s·y <= 0) is discarded.
  void Complete(double step, const Eigen::VectorXd& g_new) {
    const int i = Next();
    Scalar* s = s_.col(i).data();
    Scalar* y = y_.col(i).data();
    const Scalar scaled = static_cast<Scalar>(step);
    double yy = 0;
    const double sy = BlockedSum(g_new.size(), threads_, [&](Eigen::Index b, Eigen::Index len) {
      double acc = 0;
      for (Eigen::Index j = b; j < b + len; ++j) {
        s[j] *= scaled;
        y[j] += static_cast<Scalar>(g_new[j]);
        acc += static_cast<double>(s[j]) * y[j];
      }
      return acc;
    });
    yy = BlockedSum(g_new.size(), threads_, [&](Eigen::Index b, Eigen::Index len) {
      double acc = 0;
      for (Eigen::Index j = b; j < b + len; ++j) acc += static_cast<double>(y[j]) * y[j];
      return acc;
    });
    if (!(sy > 0) || !(yy > 0)) return;
    rho_[i] = 1.0 / sy;
    gamma_ = sy / yy;
    ++count_;
  }
  void Clear() { count_ = 0; }
  int size() const { return count_; }

 private:
  int Capacity() const { return static_cast<int>(rho_.size()); }
  int Slot(int k) const { return (oldest_ + k) % Capacity(); }  // k-th oldest pair
  int Next() const { return Slot(count_); }

  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> s_, y_;  // [n x m]
  std::vector<double> rho_;                                      // [m] 1 / s·y
  double gamma_ = 1.0;
  int count_ = 0;
  int oldest_ = 0;
  int threads_;
};

}  // namespace seqflow
