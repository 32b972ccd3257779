// Two minimisations that must be the same run to the bit (a resumed or continued one against one
// never interrupted): the point, and every figure L-BFGS reports about the run.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "nodes/optim/lbfgs.h"

namespace seqflow::testutil {

inline void ExpectSameLbfgsRun(const Eigen::VectorXd& x_a, const LbfgsResult& a, const Eigen::VectorXd& x_b,
                               const LbfgsResult& b) {
  ASSERT_EQ(x_a.size(), x_b.size());
  for (Eigen::Index i = 0; i < x_a.size(); ++i) ASSERT_EQ(x_a[i], x_b[i]) << "coordinate " << i;
  EXPECT_EQ(a.objectives, b.objectives);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.stop, b.stop);
  EXPECT_TRUE(a.final_state == b.final_state) << "final states differ";
}

}  // namespace seqflow::testutil
