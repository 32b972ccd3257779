#include "nodes/fhmm/loglinear_params.h"

namespace seqflow {

ParamTable<LogLinearOptions> LogLinearParams() {
  using O = LogLinearOptions;
  ParamTable<O> table;
  table.Double("regularization", &O::regularization, "epsilon of Eq. 25 (squared L2 on the feature weights)")
      .Greater(0)
      .Int("max_iterations", At(&O::lbfgs, &LbfgsOptions::max_iterations), "L-BFGS iterations per label")
      .Min(1);
  return table;
}

}  // namespace seqflow
