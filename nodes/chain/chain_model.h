// ChainModel: the one interface through which decoders and evaluators use a trained chain model.
// A model family implements it on its artifact type and declares that at registration:
//   registry.AddArtifactType<MyModel>({std::string(ChainModel::kInterface)});
// Ports typed "ChainModel" then accept it (engine/api/registry.h), and decode.viterbi,
// decode.sms and decode.tag decode with it: a new model family touches no decoder.
//
// What a model gives for a corpus is a ChainCorpus: the chain library's tables (chain_decode.h)
// and, per sentence, the table column of each token. Probability models (HMMs) point the table at
// their emission matrix and map tokens to symbols; score models (CRF, hybrid) compute a [T x K]
// label-score matrix per sentence, which ScoreChains lays out as one table (K doubles a token).
// Thread safety: implementations are immutable artifacts; Chains may run on several threads.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/base/status.h"
#include "nodes/chain/chain_decode.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/io/corpus.h"

namespace seqflow {

// A corpus as chains of one model. tables.table points into `scores` when the model computed the
// potentials, else into the model itself: the ChainCorpus must not outlive its model.
struct ChainCorpus {
  ChainTables tables;
  std::shared_ptr<const Eigen::MatrixXd> scores;  // [K x tokens] when computed for this corpus
  std::vector<std::vector<int32_t>> columns;      // [sentence][token] -> column of tables.table
};

class ChainModel : public Artifact {
 public:
  // The interface's name as a port type; also what NodeContext::In<ChainModel> names on a mismatch.
  static constexpr std::string_view kInterface = "ChainModel";
  static constexpr std::string_view kType = kInterface;

  // [K] label id -> label text, and the encoding of the labeled data the model was trained on;
  // decoders hand both to their Predictions.
  virtual const std::vector<std::string>& ChainLabels() const = 0;
  virtual TagEncoding ChainEncoding() const = 0;
  // The chains of every sentence of `data` (gold labels ignored), computed on `threads` threads
  // with a result that does not depend on them. Errors: the model is unusable (an HMM whose rows
  // are not distributions) or `data` lacks what the model reads (a template's column).
  virtual Result<ChainCorpus> Chains(const Corpus& data, int threads) const = 0;
};

// Calls visit(n, scores) for every sentence n of a corpus, with its [T_n x K] label scores
// (row t = token t), from any thread.
using ScoreVisitor = std::function<void(size_t sentence, const RowMatrixXd& scores)>;

// The ChainCorpus of a score model (kLogScores, no initial weights): `transition` [K x K] bigram
// log-potentials, and the scores `for_each_scores` hands out for the sentences of `data`, copied
// into one table in sentence order. REQUIRES: every visited matrix has data's sentence length rows
// and K columns.
ChainCorpus ScoreChains(const Eigen::Ref<const RowMatrixXd>& transition, const Corpus& data,
                        const std::function<void(const ScoreVisitor&)>& for_each_scores);

}  // namespace seqflow
