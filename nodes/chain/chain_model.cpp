#include "nodes/chain/chain_model.h"

#include <algorithm>

namespace seqflow {

ChainCorpus ScoreChains(const Eigen::Ref<const RowMatrixXd>& transition, const Corpus& data,
                        const std::function<void(const ScoreVisitor&)>& for_each_scores) {
  const auto K = transition.rows();
  std::vector<int64_t> offsets(data.sentences.size() + 1, 0);
  ChainCorpus out;
  out.columns.resize(data.sentences.size());
  for (size_t n = 0; n < data.sentences.size(); ++n) {
    std::vector<int32_t>& columns = out.columns[n];
    columns.resize(data.sentences[n].size());
    for (size_t t = 0; t < columns.size(); ++t) columns[t] = static_cast<int32_t>(offsets[n] + t);
    offsets[n + 1] = offsets[n] + static_cast<int64_t>(columns.size());
  }
  auto scores = std::make_shared<Eigen::MatrixXd>(K, offsets.back());
  // A row-major [T x K] block is the column-major [K x T] block of its tokens' columns.
  for_each_scores(
      [&](size_t n, const RowMatrixXd& s) { std::copy_n(s.data(), s.size(), scores->data() + offsets[n] * K); });
  out.tables.kind = ChainScoreKind::kLogScores;
  out.tables.transition = transition;
  out.tables.table = scores->data();
  out.tables.columns = scores->cols();
  out.scores = std::move(scores);
  return out;
}

}  // namespace seqflow
