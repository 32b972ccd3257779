// What both anchor models (moments.anchor_hmm and moments.anchor_fhmm) read: moments, anchors,
// labeled sentences and an optional CCA projection; and the parameters of their QPs.
#pragma once

#include <memory>
#include <vector>

#include "engine/api/node.h"
#include "engine/api/param_table.h"
#include "engine/api/registry.h"
#include "nodes/features/moments.h"
#include "nodes/io/corpus.h"
#include "nodes/moments/anchor_set.h"
#include "nodes/optim/simplex_qp.h"

namespace seqflow {

// Their ports.
std::vector<PortSpec> AnchorModelPorts();
// qp.tol and qp.max_iter, included by both kinds' tables.
ParamTable<SimplexQpOptions> SimplexQpParams();

struct AnchorModelInputs {
  std::shared_ptr<const Moments> moments;
  std::shared_ptr<const AnchorSet> anchors;
  std::shared_ptr<const Corpus> labeled;
};
// Those inputs, checked to name the same labels.
AnchorModelInputs ReadAnchorModelInputs(NodeContext& ctx);

}  // namespace seqflow
