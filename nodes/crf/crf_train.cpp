#include "nodes/crf/crf_train.h"

#include "nodes/crf/attribute_groups.h"
#include "nodes/crf/crf_likelihood.h"

namespace seqflow {

CrfTrainResult TrainCrf(const std::vector<SentenceFeatures>& sentences, const std::vector<std::vector<int32_t>>& labels,
                        int32_t num_attributes, int32_t num_labels, const CrfTrainOptions& options,
                        const LbfgsCallback& callback) {
  CrfTrainResult result;
  const int threads = options.lbfgs.threads;
  if (!options.merge_duplicates) {
    const CrfLayout layout{num_attributes, num_labels};
    CrfLikelihood objective(sentences, labels, layout, options.sigma2, threads);
    result.weights = Eigen::VectorXd::Zero(layout.size());
    result.optimizer = MinimizeLbfgs(objective, result.weights, options.lbfgs, callback);
    result.trained_weights = layout.size();
    return result;
  }
  const AttributeGroups groups = GroupDuplicateAttributes(sentences, num_attributes);
  const CrfLayout layout{groups.num_groups(), num_labels};
  Eigen::VectorXd u = Eigen::VectorXd::Zero(layout.size());
  {
    CrfLikelihood objective(groups.sentences, labels, layout, options.sigma2, threads, GroupFeatureValues(groups));
    result.optimizer = MinimizeLbfgs(objective, u, options.lbfgs, callback);
  }
  result.trained_weights = layout.size();
  result.weights = ExpandGroupWeights(u, groups, num_labels);
  return result;
}

}  // namespace seqflow
