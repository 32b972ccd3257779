#include "nodes/registry.h"

#include "nodes/classifier/classifier_nodes.h"
#include "nodes/crf/crf_nodes.h"
#include "nodes/decode/decode_nodes.h"
#include "nodes/eval/eval_nodes.h"
#include "nodes/features/features_nodes.h"
#include "nodes/fhmm/fhmm_nodes.h"
#include "nodes/hmm/hmm_nodes.h"
#include "nodes/homotopy/homotopy_nodes.h"
#include "nodes/io/io_nodes.h"
#include "nodes/moments/moments_nodes.h"
#include "nodes/multiview/multiview_nodes.h"

namespace seqflow {

// One line per family, in catalogue order.
void RegisterAllNodes(Registry& registry) {
  registry.AddArtifactType<Metrics>();
  RegisterIoNodes(registry);
  RegisterFeaturesNodes(registry);
  RegisterHmmNodes(registry);
  RegisterCrfNodes(registry);
  RegisterDecodeNodes(registry);
  RegisterEvalNodes(registry);
  RegisterHomotopyNodes(registry);
  RegisterFhmmNodes(registry);
  RegisterMomentsNodes(registry);
  RegisterMultiviewNodes(registry);
  RegisterClassifierNodes(registry);
}

}  // namespace seqflow
