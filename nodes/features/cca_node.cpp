#include "nodes/features/cca_node.h"

#include <chrono>
#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/features/context_cca.h"
#include "nodes/features/moments.h"
#include "nodes/features/projection.h"

namespace seqflow {

namespace {

ArtifactPtr RunCca(NodeContext& ctx, const ContextCcaOptions& options) {
  auto moments = ctx.In<Moments>("moments");
  const auto start = std::chrono::steady_clock::now();
  ContextCca cca = ValueOrThrow(ComputeContextCca(moments->counts, options, ctx.cancellation()));
  auto out = std::make_shared<Projection>();
  out->context_projection = std::move(cca.context_projection);
  out->correlations = std::move(cca.correlations);
  ctx.Metric("dims", static_cast<double>(out->correlations.size()));
  ctx.Metric("correlation.2", out->correlations.size() > 1 ? out->correlations[1] : 0);
  ctx.Metric("correlation.last", out->correlations[out->correlations.size() - 1]);
  ctx.Metric("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return out;
}

ParamTable<ContextCcaOptions> CcaParams() {
  using O = ContextCcaOptions;
  ParamTable<O> table;
  table.Int("dims", &O::dims, "D: canonical directions kept")
      .Min(1)
      .Int("oversample", &O::oversample, "extra columns of the randomized SVD")
      .Min(0)
      .Int("power_iterations", &O::power_iterations, "power steps of the randomized SVD")
      .Min(0)
      .Int("seed", &O::seed, "seed of the randomized SVD's test matrix");
  return table;
}

KindSpec CcaKind() {
  return KindSpec{"features.cca",
                  "1",
                  "CCA between words and their one-hot contexts from a Moments artifact (Marinho et al. 2016, section "
                  "5; Dhillon et al. 2015): the top-D singular vectors of the whitened co-occurrence matrix by "
                  "randomized SVD; moments.anchor_hmm fits its QPs on the projected contexts.",
                  std::string(Projection::kType),
                  {PortSpec{"moments", std::string(Moments::kType), false, false, "co-occurrence counts"}},
                  CcaParams(),
                  RunCca};
}

}  // namespace

void RegisterCcaNode(Registry& registry) {
  registry.AddArtifactType<Projection>();
  registry.AddKind(CcaKind());
}

}  // namespace seqflow
