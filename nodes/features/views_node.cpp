#include "nodes/features/views_node.h"

#include <memory>
#include <string>
#include <vector>

#include "engine/api/node.h"
#include "nodes/features/feature_views.h"
#include "nodes/features/template_params.h"
#include "nodes/features/view_assignment.h"

namespace seqflow {

namespace {

struct ViewsNodeOptions {
  TemplateChoice features{"multiview_ner", {}};  // token and surface templates
  int min_count = 1;
  ViewSplit split = ViewSplit::kTokenSurface;
  uint64_t seed = 1;
  std::vector<std::string> second_view;
};

ArtifactPtr RunViews(NodeContext& ctx, const ViewsNodeOptions& options) {
  auto inputs = ctx.InList<Corpus>("data");
  std::vector<const Corpus*> corpora;
  for (const auto& c : inputs) corpora.push_back(c.get());
  auto dictionary = std::make_shared<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplatesOf(options.features)), corpora[0]->columns)));
  ThrowIfError(dictionary->Fit(corpora, options.min_count));
  auto out = std::make_shared<FeatureViews>();
  out->view = ValueOrThrow(AssignViews(*dictionary, options.split, options.seed, options.second_view));
  out->split = ViewSplitName(options.split);
  out->dictionary = std::move(dictionary);
  ctx.Metric("attributes", out->dictionary->num_attributes());
  ctx.Metric("view1_attributes", out->AttributesInView(0));
  ctx.Metric("view2_attributes", out->AttributesInView(1));
  return out;
}

ParamTable<ViewsNodeOptions> ViewsParams() {
  using O = ViewsNodeOptions;
  ParamTable<O> table;
  table.Include(&O::features, TemplateParams())
      .Int("min_count", &O::min_count, "occurrences an attribute needs to be kept")
      .Min(1)
      .Enum("split", &O::split,
            {ViewSplit::kTokenSurface, ViewSplit::kRandom, ViewSplit::kOddEven, ViewSplit::kTemplates}, ViewSplitName,
            "token_surface: templates of shape() classes vs the rest; random: a seeded coin per attribute; "
            "odd_even: attribute ids by parity; templates: second_view's templates vs the rest")
      .Int("seed", &O::seed, "seed of the random split")
      .StringList("second_view", &O::second_view, "split templates: the templates whose attributes form view 2");
  return table;
}

KindSpec ViewsKind() {
  return KindSpec{"features.views",
                  "1",
                  "Attributes from feature templates fitted on all inputs, split into two disjoint views: "
                  "token and letter strings vs surface clues (shape classes), a seeded random split, odd/even "
                  "attribute ids (Brefeld et al. 2005, section 6), or named templates vs the rest.",
                  std::string(FeatureViews::kType),
                  {PortSpec{"data", std::string(Corpus::kType), true, false,
                            "corpora the dictionary is fitted on (labeled and unlabeled)"}},
                  ViewsParams(),
                  RunViews};
}

}  // namespace

void RegisterViewsNode(Registry& registry) {
  registry.AddArtifactType<FeatureViews>();
  registry.AddKind(ViewsKind().FittingInputs({"data"}));
}

}  // namespace seqflow
