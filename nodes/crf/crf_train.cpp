#include "nodes/crf/crf_train.h"

#include "nodes/crf/attribute_groups.h"
#include "nodes/crf/crf_likelihood.h"

namespace seqflow {

Result<CrfTrainResult> TrainCrf(const std::vector<SentenceFeatures>& sentences,
                                const std::vector<std::vector<int32_t>>& labels, int32_t num_attributes,
                                int32_t num_labels, const CrfTrainOptions& options, const LbfgsCallback& callback,
                                const CancelToken& cancel, const LbfgsCheckpoints& checkpoints) {
  CrfTrainResult result;
  const int threads = options.lbfgs.threads;
  if (!options.merge_duplicates) {
    const CrfLayout layout{num_attributes, num_labels, options.order};
    CrfLikelihood objective(sentences, labels, layout, options.sigma2, threads, {}, options.processes);
    result.weights = Eigen::VectorXd::Zero(layout.size());
    Result<LbfgsResult> optimizer = MinimizeLbfgs(objective, result.weights, options.lbfgs, callback, cancel, checkpoints);
    if (!optimizer.ok()) return optimizer.status();
    result.optimizer = std::move(optimizer).value();
    result.trained_weights = layout.size();
    return result;
  }
  const AttributeGroups groups = GroupDuplicateAttributes(sentences, num_attributes);
  const CrfLayout layout{groups.num_groups(), num_labels, options.order};
  Eigen::VectorXd u = Eigen::VectorXd::Zero(layout.size());
  {
    CrfLikelihood objective(groups.sentences, labels, layout, options.sigma2, threads, GroupFeatureValues(groups),
                            options.processes);
    Result<LbfgsResult> optimizer = MinimizeLbfgs(objective, u, options.lbfgs, callback, cancel, checkpoints);
    if (!optimizer.ok()) return optimizer.status();
    result.optimizer = std::move(optimizer).value();
  }
  result.trained_weights = layout.size();
  result.weights = ExpandGroupWeights(u, groups, num_labels);
  return result;
}

}  // namespace seqflow
