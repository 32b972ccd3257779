// The multiview family's node kinds (Brefeld, Büscher & Scheffer 2005):
//   draw                  (data: Corpus) -> Corpus       the §6 sampling protocol (draw.h)
//   features.views        (data: [Corpus]) -> FeatureViews  attributes split into two views
//   multiview.perceptron  (views, labeled, unlabeled?) -> MultiViewModel  Table 1
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterMultiviewNodes(Registry& registry);

}  // namespace seqflow
