#include "nodes/homotopy/ji_experiment.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "nodes/common/random.h"

namespace seqflow {

Result<JiDrawResult> RunJiDraw(const SymbolSequences& pool, const std::vector<int32_t>& labels, int num_classes,
                               int num_symbols, int draw, const JiDrawOptions& options, const CancelToken& cancel) {
  Rng rng = ShardRng(options.seed, 1000 + static_cast<uint64_t>(draw));
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<bool> is_labeled,
                           ChooseLabeledPerClass(labels, num_classes, options.labeled_per_class, rng));
  ClassifierData data;
  std::vector<int32_t> truth;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (is_labeled[i]) {
      data.labeled.push_back(pool[i]);
      data.labels.push_back(labels[i]);
    } else {
      data.unlabeled.push_back(pool[i]);
      truth.push_back(labels[i]);
    }
  }
  ClassifierTrainOptions train = options.train;
  train.seed = options.train.seed + static_cast<uint64_t>(draw);
  train.smoothing = options.path.smoothing;
  SEQFLOW_ASSIGN_OR_RETURN(ClassifierTrainResult supervised,
                           TrainHmmClassifier(data.labeled, data.labels, num_classes, num_symbols, train, cancel));
  const ClassifierLayout layout(num_classes, train.num_states, num_symbols);
  // Θ̃_0: the supervised solution's EM_0 output, a fixed point of EM_0 in the unnormalised form.
  ClassifierEmOptions em0_options;
  em0_options.smoothing = options.path.smoothing;
  em0_options.need_em1 = false;
  SEQFLOW_ASSIGN_OR_RETURN(ClassifierEmValue em0,
                           EvaluateClassifierEm(layout, layout.Stack(supervised.model), data, em0_options));
  NormalFlowCallbacks callbacks;
  callbacks.cancel = cancel;
  JiDrawResult r;
  SEQFLOW_ASSIGN_OR_RETURN(r.path, TraceProbabilityOne(layout, em0.em0, data, truth, options.path, callbacks));
  if (r.path.stop != NormalFlowStop::kReachedEnd)
    return Status::Numerical("ji experiment: draw " + std::to_string(draw) + " did not reach λ = 1 (" +
                             NormalFlowStopName(r.path.stop) + ")");
  const std::vector<ClassifierPathPoint>& pts = r.path.points;
  r.returns = r.path.returns;
  r.supervised = pts.front().accuracy;
  r.last_lambda_zero = pts[r.path.final_segment_start].accuracy;
  size_t best = r.path.final_segment_start;
  for (size_t k = best; k < pts.size(); ++k)
    if (pts[k].entropy > pts[best].entropy) best = k;
  r.max_entropy = pts[best].accuracy;
  r.lambda_max_entropy = pts[best].lambda;
  r.lambda_mle = static_cast<double>(data.unlabeled.size()) /
                 static_cast<double>(data.labeled.size() + data.unlabeled.size());
  SEQFLOW_ASSIGN_OR_RETURN(ClassifierPathPoint at_mle, PathPointAtLambda(layout, em0.em0, data, truth, options.path,
                                                                         r.path, r.lambda_mle));
  r.mle = at_mle.accuracy;
  return r;
}

}  // namespace seqflow
