// Adapters for the supervised feature HMM; fhmm.em's is fhmm_em_node.cpp.
#include "nodes/fhmm/fhmm_nodes.h"

#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/fhmm/fhmm_em_node.h"
#include "nodes/fhmm/fhmm_from_means.h"

namespace seqflow {

namespace {

struct SupervisedFhmmOptions {
  FhmmFitOptions fit;
};

ArtifactPtr RunSupervisedFhmm(NodeContext& ctx, const SupervisedFhmmOptions& options) {
  auto labeled = ctx.In<Corpus>("data");
  auto vocab = ctx.In<Vocab>("vocab");
  const WordFeatures features = BuildWordFeatures(*vocab);
  FeatureMeans means = LabeledFeatureMeans(WordLabelCounts(*labeled, *vocab), features.phi);
  return FhmmFromMeans(ctx, *labeled, vocab, features, means, options.fit);
}

ParamTable<SupervisedFhmmOptions> SupervisedFhmmParams() {
  ParamTable<SupervisedFhmmOptions> table;
  AddFhmmFitParams(table, &SupervisedFhmmOptions::fit);
  return table;
}

KindSpec SupervisedFhmmKind() {
  return KindSpec{
      "fhmm.supervised",
      "1",
      "The supervised feature HMM: log-linear emissions (Eq. 2) fitted by L-BFGS to the labeled feature means "
      "of each label (Eq. 25 with the empirical mean parameters), transitions counted with add-one "
      "smoothing; an HmmModel over the Vocab's symbols.",
      std::string(HmmModel::kType),
      {PortSpec{"data", std::string(Corpus::kType), false, false, "labeled training sentences"},
       PortSpec{"vocab", std::string(Vocab::kType), false, false, "the symbols emitted"}},
      SupervisedFhmmParams(),
      RunSupervisedFhmm};
}

}  // namespace

void RegisterFhmmNodes(Registry& registry) {
  registry.AddKind(
      SupervisedFhmmKind().Needing({.parallel = true, .memory_mb = 2048}).As(NodeRole::kTrainer).Fitting({"data"}));
  registry.AddKind(
      FhmmEmKind().Needing({.parallel = true, .memory_mb = 2048}).As(NodeRole::kTrainer).SelectingBy({"dev"}));
}

}  // namespace seqflow
