// The feature-HMM kinds (registered with the moments family): moments.anchor_fhmm and the
// supervised baseline fhmm.supervised. Both output an HmmModel whose emission rows are the
// log-linear distributions over the Vocab's symbols, so every decoder takes them unchanged.
#pragma once

#include <memory>
#include <vector>

#include "engine/api/node.h"
#include "engine/api/registry.h"
#include "nodes/io/corpus.h"
#include "nodes/moments/anchor_set.h"
#include "nodes/features/moments.h"

namespace seqflow {

// The inputs of both anchor models (moments.anchor_hmm and moments.anchor_fhmm): moments,
// anchors, labeled sentences and an optional CCA projection.
std::vector<PortSpec> AnchorModelPorts();

struct AnchorModelInputs {
  std::shared_ptr<const Moments> moments;
  std::shared_ptr<const AnchorSet> anchors;
  std::shared_ptr<const Corpus> labeled;
};
// Those inputs, checked to name the same labels.
AnchorModelInputs ReadAnchorModelInputs(NodeContext& ctx);

KindSpec AnchorFhmmKind();
KindSpec SupervisedFhmmKind();

}  // namespace seqflow
