#include "nodes/eval/score_model.h"

#include "nodes/eval/aligned_labels.h"
#include "nodes/eval/segments.h"

namespace seqflow {

Result<std::map<std::string, double>> ScoreChainModel(const ChainModel& model, const Corpus& gold, DecodeMethod method,
                                                      int threads) {
  SEQFLOW_ASSIGN_OR_RETURN(Predictions predicted, DecodeCorpus(model, gold, method, /*marginals=*/false, threads));
  SEQFLOW_ASSIGN_OR_RETURN(AlignedLabels aligned, AlignLabels(gold, predicted));
  SEQFLOW_ASSIGN_OR_RETURN(SegmentScores scores, ScoreSegments(aligned, gold.encoding));
  std::map<std::string, double> all = SegmentMetrics(scores);
  return std::map<std::string, double>{
      {"f1", all["f1"]}, {"precision", all["precision"]}, {"recall", all["recall"]}, {"accuracy", all["accuracy"]}};
}

}  // namespace seqflow
