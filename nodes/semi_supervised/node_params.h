// Parameters shared by the homotopy family's nodes: which blocks are frozen, the add-ε
// smoothing of EM_0, λ given as a number or `mle`, and the data every node reads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/api/node.h"
#include "engine/api/param_table.h"
#include "engine/api/registry.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "nodes/semi_supervised/homotopy_path.h"
#include "nodes/semi_supervised/pom_layout.h"
#include "nodes/semi_supervised/semi_supervised_data.h"

namespace seqflow {

// Ports start, labeled, unlabeled (list), and the optional `test` when with_test.
std::vector<PortSpec> SemiSupervisedPorts(bool with_test);

// Where every node of the family starts from: the blocks kept at the start model and the add-ε
// smoothing of EM_0.
struct EmStartOptions {
  std::vector<std::string> freeze;  // of "initial", "transition", "emission"
  HmmSmoothing smoothing;
};
// freeze, smoothing.initial / transition / emission.
ParamTable<EmStartOptions> EmStartParams();
// max_iter, tol (threads is the node's -j, not a parameter).
ParamTable<EmLambdaOptions> EmIterationParams();

// `decoder`: viterbi | sms, into `field` of the table's options struct.
template <class O, class F>
void AddDecoder(ParamTable<O>& table, F field, std::string doc) {
  table.Enum("decoder", field, {{"viterbi", DecodeMethod::kViterbi}, {"sms", DecodeMethod::kSms}}, std::move(doc));
}

// Throws StatusError(Invalid) when every block is frozen.
FreeBlocks FreeBlocksOf(const std::vector<std::string>& freeze);
// "mle" or a number in [0, 1].
std::string CheckLambdaText(const ParamValue& value);

// `lambda`: the EM allocation, "mle" (|U|/(|L|+|U|)) or a number in [0, 1] (LambdaOf), into
// `field` of the table's options struct: the one declaration of hmm.em's and fhmm.em's.
template <class O>
void AddAllocation(ParamTable<O>& table, std::string O::*field) {
  table.String("lambda", field, "allocation in [0, 1], or mle = |U|/(|L|+|U|)")
      .Check(CheckLambdaText)
      .ShownAs("number or mle");
}
double LambdaOf(const std::string& text, int64_t num_labeled, int64_t num_unlabeled);

// What every node of the family reads from its ports.
struct SemiSupervisedInputs {
  std::shared_ptr<const HmmModel> start;
  std::shared_ptr<const Corpus> labeled;
  std::shared_ptr<const Corpus> test;  // null when the port is unconnected
  SemiSupervisedData data;
};
// `e_step`: the ranks over which the kernel spreads its E-step over U (CorpusExpectedCounts), or
// null when it reads every sentence: a rank then loads only the storage shards of a ShardedCorpus
// holding sentences of the E-step shards it maps, and leaves the other sentences empty.
SemiSupervisedInputs ReadSemiSupervisedInputs(NodeContext& ctx, bool with_test, const ProcessGroup* e_step = nullptr);

// An empty path of `method` over the inputs' start model and free blocks, and its EM_0.
struct PathStart {
  std::shared_ptr<HomotopyPath> path;
  Eigen::VectorXd em0;  // [P]
};
PathStart StartPath(const std::string& method, const SemiSupervisedInputs& in, const EmStartOptions& options);

}  // namespace seqflow
