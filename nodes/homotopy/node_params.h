// Parameters shared by the homotopy family's nodes: which blocks are frozen, the add-ε
// smoothing of EM_0, λ given as a number or `mle`, and the data every node reads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/api/node.h"
#include "engine/api/registry.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"
#include "nodes/homotopy/homotopy_path.h"
#include "nodes/homotopy/pom_layout.h"
#include "nodes/homotopy/semi_supervised_data.h"

namespace seqflow {

// Ports start, labeled, unlabeled (list), and the optional `test` when with_test.
std::vector<PortSpec> SemiSupervisedPorts(bool with_test);
// freeze, smoothing.initial / transition / emission.
std::vector<ParamSpec> EmLambdaParams();

FreeBlocks FreeBlocksOf(const Params& params);
HmmSmoothing SmoothingOf(const Params& params);
// "mle" or a number in [0, 1].
std::string CheckLambdaText(const ParamValue& value);
double LambdaOf(const std::string& text, int64_t num_labeled, int64_t num_unlabeled);
DecodeMethod DecoderOf(const Params& params);  // param "decoder": viterbi | sms

// What every node of the family reads from its ports.
struct SemiSupervisedInputs {
  std::shared_ptr<const HmmModel> start;
  std::shared_ptr<const Corpus> labeled;
  std::vector<std::shared_ptr<const Corpus>> unlabeled;
  std::shared_ptr<const Corpus> test;  // null when the port is unconnected
  SemiSupervisedData data;
};
SemiSupervisedInputs ReadSemiSupervisedInputs(NodeContext& ctx, bool with_test);

// An empty path of `method` over the inputs' start model and free blocks, and its EM_0.
struct PathStart {
  std::shared_ptr<HomotopyPath> path;
  Eigen::VectorXd em0;  // [P]
};
PathStart StartPath(const std::string& method, const SemiSupervisedInputs& in, const Params& params);

}  // namespace seqflow
