#include "nodes/moments/anchor_model_inputs.h"

#include <string>

#include "nodes/features/projection.h"

namespace seqflow {

AnchorModelInputs ReadAnchorModelInputs(NodeContext& ctx) {
  AnchorModelInputs in{ctx.In<Moments>("moments"), ctx.In<AnchorSet>("anchors"), ctx.In<Corpus>("labeled")};
  if (in.anchors->label_names != in.labeled->label_names)
    throw StatusError(Status::Invalid("the anchors' labels differ from those of the labeled corpus '" +
                                      in.labeled->source + "': build both from the same labeled data"));
  return in;
}

ParamTable<SimplexQpOptions> SimplexQpParams() {
  using O = SimplexQpOptions;
  ParamTable<O> table;
  table.Double("qp.tol", &O::tol, "KKT residual at which a QP stops").Greater(0);
  table.Int("qp.max_iter", &O::max_iter, "iteration limit per QP").Min(1);
  return table;
}

std::vector<PortSpec> AnchorModelPorts() {
  return {PortSpec{"moments", std::string(Moments::kType), false, false, "unlabeled moments and their Vocab"},
          PortSpec{"anchors", std::string(AnchorSet::kType), false, false, "anchor words per label"},
          PortSpec{"labeled", std::string(Corpus::kType), false, false, "labeled sentences: transitions, λ"},
          PortSpec{"projection", std::string(Projection::kType), false, true,
                   "CCA projection of the moments' contexts (features.cca); without it, one-hot contexts"}};
}

}  // namespace seqflow
