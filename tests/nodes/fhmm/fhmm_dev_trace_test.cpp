// fhmm.em's dev trace in its checkpoints: appended to EM's state and split off again, with and
// without a best model, to the same values and the same EM bytes; a trace whose best model has
// other dimensions, or bytes that end in no trace, are refused.
#include "nodes/fhmm/fhmm_dev_trace.h"

#include <gtest/gtest.h>

namespace seqflow {
namespace fhmm_dev_trace_test {

HmmParams Shape(int k, int v) {
  HmmParams h;
  h.initial = Eigen::VectorXd::LinSpaced(k, 0.1, 0.9);
  h.transition = Eigen::MatrixXd::Constant(k, k, 0.25);
  h.emission = Eigen::MatrixXd::Constant(k, v, 0.125);
  return h;
}

TEST(FhmmDevTrace, RoundTripsWithAndWithoutABestModel) {
  const std::string em_state = std::string("em state\0bytes", 14);
  FhmmDevTrace none;
  none.accuracy = {0.5, 0.625};
  auto split = SplitDevTrace(AppendDevTrace(em_state, none), Shape(2, 3));
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first, em_state);
  EXPECT_EQ(split->second.accuracy, none.accuracy);
  EXPECT_FALSE(split->second.best.has_value());

  FhmmDevTrace best;
  best.accuracy = {0.5, 0.75, 0.625};
  best.best = Shape(2, 3);
  best.best->emission(1, 2) = 0.3;
  best.best_iteration = 1;
  split = SplitDevTrace(AppendDevTrace(em_state, best), Shape(2, 3));
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first, em_state);
  EXPECT_EQ(split->second.accuracy, best.accuracy);
  ASSERT_TRUE(split->second.best.has_value());
  EXPECT_EQ(split->second.best->initial, best.best->initial);
  EXPECT_EQ(split->second.best->transition, best.best->transition);
  EXPECT_EQ(split->second.best->emission, best.best->emission);
  EXPECT_EQ(split->second.best_iteration, 1);
}

TEST(FhmmDevTrace, RefusesOtherShapesAndBytesWithoutATrace) {
  FhmmDevTrace best;
  best.accuracy = {0.5};
  best.best = Shape(2, 3);
  const std::string bytes = AppendDevTrace("em", best);
  EXPECT_FALSE(SplitDevTrace(bytes, Shape(2, 4)).has_value());
  EXPECT_FALSE(SplitDevTrace(bytes, Shape(3, 3)).has_value());
  EXPECT_FALSE(SplitDevTrace("short", Shape(2, 3)).has_value());
  EXPECT_FALSE(SplitDevTrace(bytes.substr(0, bytes.size() - 9) + bytes.substr(bytes.size() - 8), Shape(2, 3)).has_value());
}

}  // namespace fhmm_dev_trace_test
}  // namespace seqflow
