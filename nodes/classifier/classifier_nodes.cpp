// classifier.select: the classifier at one point of a probability-one path.
#include "nodes/classifier/classifier_nodes.h"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "engine/api/node.h"
#include "engine/api/param_table.h"
#include "nodes/hmm/classifier_model.h"
#include "nodes/homotopy/classifier_path.h"
#include "nodes/homotopy/select_point.h"
#include "nodes/semi_supervised/homotopy_path.h"

namespace seqflow {
namespace {

const std::string kModel(ClassifierModel::kType);
const std::string kPath(ClassifierPathArtifact::kType);

struct SelectOptions {
  std::string criterion = "max_entropy";
  double lambda = 0;
};

ArtifactPtr RunSelect(NodeContext& ctx, const SelectOptions& options) {
  auto path = ctx.In<ClassifierPathArtifact>("path");
  const std::vector<ClassifierPathPoint>& pts = path->path.points;
  const ClassifierPathPoint* chosen = nullptr;
  if (options.criterion == "start") {
    chosen = &pts.front();
  } else if (options.criterion == "mle") {
    chosen = &path->mle_point;
  } else {
    std::vector<HomotopyPoint> points(pts.size());
    for (size_t k = 0; k < pts.size(); ++k) {
      points[k].s = pts[k].s;
      points[k].lambda = pts[k].lambda;
      points[k].dlambda_ds = pts[k].dlambda_ds;
      points[k].entropy = pts[k].entropy;
      points[k].metrics["final_segment"] = k >= path->path.final_segment_start ? 1.0 : 0.0;
    }
    const Criterion criterion = ValueOrThrow(ParseCriterion(options.criterion));
    chosen = &pts[SelectPoint(points, criterion, options.lambda)];
  }
  auto model = std::make_shared<ClassifierModel>();
  model->model = ValueOrThrow(path->Layout().Normalize(chosen->theta_tilde));
  model->lambda = chosen->lambda;
  ctx.Metric("lambda", chosen->lambda);
  ctx.Metric("entropy", chosen->entropy);
  return model;
}

ParamTable<SelectOptions> SelectParams() {
  using O = SelectOptions;
  ParamTable<O> table;
  table
      .String("criterion", &O::criterion,
              "start, last_lambda_zero, mle (U/(L+U) on P_F), max_entropy (Eq. 20 on "
              "P_F) or fixed")
      .OneOf({"start", "last_lambda_zero", "mle", "max_entropy", "fixed"})
      .Double("lambda", &O::lambda, "the allocation for criterion: fixed")
      .Min(0)
      .Max(1);
  return table;
}

}  // namespace

void RegisterClassifierNodes(Registry& registry) {
  registry.AddKind(KindSpec{"classifier.select",
                            "1",
                            "Picks the classifier at one point of a probability-one path: start, last_lambda_zero "
                            "(P_F's start), mle (lambda = U/(L+U) on P_F, corrected onto the curve), max_entropy "
                            "(Eq. 20 on P_F) or fixed.",
                            kModel,
                            {PortSpec{"path", kPath, false, false, "a homotopy.probability_one path"}},
                            SelectParams(),
                            RunSelect}
                       .As(NodeRole::kSelector)
                       .ChoosingLambda("lambda"));
}

}  // namespace seqflow
