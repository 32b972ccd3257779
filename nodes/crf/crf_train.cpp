#include "nodes/crf/crf_train.h"

#include <algorithm>
#include <string>
#include <utility>

#include "engine/base/bytes.h"
#include "nodes/crf/attribute_groups.h"
#include "nodes/crf/crf_likelihood.h"

namespace seqflow {
namespace {

// The groups of duplicate attributes. Rank 0 refines the partition over every sentence (a block
// at a time when streamed) and sends the group ids to the other ranks, which may hold only the
// sentences of their compute shards.
Result<AttributeGroups> FindGroups(const CrfSentences& data, int32_t num_attributes, const ProcessGroup* processes) {
  const bool root = processes == nullptr || processes->rank() == 0;
  AttributeGroups groups;
  if (root) {
    AttributePartition partition(num_attributes);
    if (!data.streamed()) partition.Refine(data.sentences());
    const size_t step = data.block_sentences();
    for (size_t begin = 0; data.streamed() && begin < data.num_sentences(); begin += step) {
      SEQFLOW_ASSIGN_OR_RETURN(FeatureShard block, data.Load(begin, std::min(data.num_sentences(), begin + step)));
      partition.Refine(block.sentences);
    }
    groups = partition.Groups();
  }
  if (processes == nullptr || processes->size() == 1) return groups;
  std::string bytes;
  if (root) {
    ByteWriter w;
    w.I32s(groups.group_of.data(), groups.group_of.size());
    bytes = w.Take();
  }
  SEQFLOW_RETURN_IF_ERROR(processes->Broadcast(0, &bytes));
  if (root) return groups;
  try {
    ByteReader r(bytes);
    std::vector<int32_t> group_of = r.I32s();
    r.ExpectEnd();
    if (group_of.size() != static_cast<size_t>(num_attributes))
      return Status::Internal("attribute groups from rank 0 have the wrong size");
    return GroupsOf(std::move(group_of));
  } catch (const StatusError& e) {
    return Status::Internal("attribute groups from rank 0: " + e.status().message());
  }
}

// MinimizeLbfgs on `objective`; a block the objective could not load is its error, not the NaN
// L-BFGS reports for it.
Result<LbfgsResult> Minimize(CrfLikelihood& objective, Eigen::VectorXd& x, const CrfTrainOptions& options,
                             const LbfgsCallback& callback, const CancelToken& cancel,
                             const LbfgsCheckpoints& checkpoints) {
  if (!objective.status().ok()) return objective.status();
  Result<LbfgsResult> result = MinimizeLbfgs(objective, x, options.lbfgs, callback, cancel, checkpoints);
  if (!objective.status().ok()) return objective.status();
  return result;
}

}  // namespace

Result<CrfTrainResult> TrainCrf(const CrfSentences& data, int32_t num_attributes, int32_t num_labels,
                                const CrfTrainOptions& options, const LbfgsCallback& callback,
                                const CancelToken& cancel, const LbfgsCheckpoints& checkpoints) {
  CrfTrainResult result;
  const int threads = options.lbfgs.threads;
  if (!options.merge_duplicates) {
    const CrfLayout layout{num_attributes, num_labels, options.order};
    CrfLikelihood objective(data, layout, options.sigma2, threads, {}, options.processes);
    result.weights = Eigen::VectorXd::Zero(layout.size());
    SEQFLOW_ASSIGN_OR_RETURN(result.optimizer, Minimize(objective, result.weights, options, callback, cancel, checkpoints));
    result.trained_weights = layout.size();
    return result;
  }
  SEQFLOW_ASSIGN_OR_RETURN(const AttributeGroups groups, FindGroups(data, num_attributes, options.processes));
  const CrfLayout layout{groups.num_groups(), num_labels, options.order};
  Eigen::VectorXd u = Eigen::VectorXd::Zero(layout.size());
  {
    // The sentences with group ids: once when resident, block by block when streamed.
    std::vector<SentenceFeatures> merged;
    if (!data.streamed()) merged = MergeSentences(data.sentences(), groups);
    const CrfSentences merged_data =
        data.streamed() ? CrfSentences(data.num_sentences(),
                                       [&](size_t begin, size_t end, const CrfSentences::Needed& needed)
                                           -> Result<FeatureShard> {
                                         SEQFLOW_ASSIGN_OR_RETURN(FeatureShard block, data.Load(begin, end, needed));
                                         block.sentences = MergeSentences(block.sentences, groups);
                                         return block;
                                       },
                                       data.block_sentences())
                        : CrfSentences(merged, data.labels());
    CrfLikelihood objective(merged_data, layout, options.sigma2, threads, GroupFeatureValues(groups),
                            options.processes);
    SEQFLOW_ASSIGN_OR_RETURN(result.optimizer, Minimize(objective, u, options, callback, cancel, checkpoints));
  }
  result.trained_weights = layout.size();
  result.weights = ExpandGroupWeights(u, groups, num_labels);
  return result;
}

Result<CrfTrainResult> TrainCrf(const std::vector<SentenceFeatures>& sentences,
                                const std::vector<std::vector<int32_t>>& labels, int32_t num_attributes,
                                int32_t num_labels, const CrfTrainOptions& options, const LbfgsCallback& callback,
                                const CancelToken& cancel, const LbfgsCheckpoints& checkpoints) {
  return TrainCrf(CrfSentences(sentences, labels), num_attributes, num_labels, options, callback, cancel, checkpoints);
}

}  // namespace seqflow
