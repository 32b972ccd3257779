// The wide pipeline of bench/wide_pipeline.py as text: `instances` node instances in instances/5
// branches of split -> vocab -> hmm -> decode -> eval on the Cora citations under `data_dir`, plus
// the two readers they share. With `repeated`, one branch and `repeat: instances / 5` instead (as
// many runs of 7 nodes). For timing the engine's planning, not the models.
#pragma once

#include <string>

namespace seqflow::testutil {

std::string WidePipeline(const std::string& data_dir, int instances, bool repeated = false);

}  // namespace seqflow::testutil
