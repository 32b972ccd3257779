#include "nodes/io/draw_node.h"

#include <memory>

#include "engine/api/node.h"
#include "nodes/io/draw.h"

namespace seqflow {

namespace {

ArtifactPtr RunDraw(NodeContext& ctx, const DrawOptions& options) {
  auto part = std::make_shared<Corpus>(ValueOrThrow(DrawCorpus(*ctx.In<Corpus>("data"), options)));
  ctx.Metric("sentences", static_cast<double>(part->sentences.size()));
  ctx.Metric("tokens", static_cast<double>(part->num_tokens()));
  return part;
}

ParamTable<DrawOptions> DrawParams() {
  using O = DrawOptions;
  ParamTable<O> table;
  table.Int("seed", &O::seed, "seed of the draw; one seed fixes all three parts")
      .Enum("part", &O::part, {DrawPart::kLabeled, DrawPart::kUnlabeled, DrawPart::kHoldout}, DrawPartName,
            "which part this node outputs")
      .Int("min_length", &O::min_length, "shortest eligible sentence, tokens")
      .Min(1)
      .Int("max_length", &O::max_length, "longest eligible sentence, tokens")
      .Min(1)
      .Int("holdout", &O::holdout, "holdout sentences")
      .Min(0)
      .Int("labeled", &O::labeled, "labeled sentences")
      .Min(1)
      .Int("unlabeled", &O::unlabeled, "unlabeled sentences (0: every eligible one left)")
      .Min(0)
      .Bool("every_label", &O::every_label, "redraw the labeled part until every label of the corpus occurs in it")
      .Int("max_redraws", &O::max_redraws, "labeled draws tried before giving up")
      .Min(0);
  return table;
}

KindSpec DrawKind() {
  return KindSpec{"draw",
                  "1",
                  "The sampling protocol of Brefeld et al. (2005, section 6): among sentences of min_length to "
                  "max_length tokens, a seeded holdout, then `labeled` sentences redrawn until every label occurs, "
                  "then an unlabeled pool from the rest. Nodes with one seed and different `part`s get disjoint parts.",
                  std::string(Corpus::kType),
                  {PortSpec{"data", std::string(Corpus::kType), false, false, "labeled corpus to draw from"}},
                  DrawParams(),
                  RunDraw};
}

}  // namespace

void RegisterDrawNode(Registry& registry) { registry.AddKind(DrawKind()); }

}  // namespace seqflow
