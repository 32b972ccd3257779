// CrfModel: a trained linear-chain CRF together with what is needed to apply it to a Corpus —
// the feature templates and attribute dictionary it was trained with, and the label names. A
// ChainModel: the decoders decode with it through that interface.
// Weights follow CrfLayout (crf_likelihood.h): [A x K] attribute × label weights, then the
// [K x K] label-bigram block, then for a second-order model the [(K+1) x K x K] trigram block.
// The saved form is the same for both orders: Load tells them apart by the weight count.
// Ownership: the dictionary is shared with the FeatureSet it came from.
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/chain/chain_model.h"
#include "nodes/crf/crf_likelihood.h"
#include "nodes/features/feature_templates.h"
#include "nodes/io/corpus.h"

namespace seqflow {

class CrfModel final : public ChainModel {
 public:
  static constexpr std::string_view kType = "CrfModel";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> label_names;  // [K]
  TagEncoding encoding = TagEncoding::kNone;
  std::shared_ptr<const FeatureDictionary> dictionary;
  Eigen::VectorXd weights;  // CrfLayout{dictionary->num_attributes(), K, order}
  int order = 1;            // 2: tag-pair labels with trigram weights (Sha & Pereira 2003)

  CrfLayout layout() const {
    return {dictionary->num_attributes(), static_cast<int64_t>(label_names.size()), order};
  }

  // ChainModel (nodes/chain/chain_model.h): decoders read the model through these.
  const std::vector<std::string>& ChainLabels() const override { return label_names; }
  TagEncoding ChainEncoding() const override { return encoding; }
  // Score chains: each sentence's label scores (ForEachCrfScores) and the label-bigram weights,
  // plus the trigram log-potentials for order 2 (ChainTables::trigram).
  // Invalid when `data` lacks a column the templates read.
  Result<ChainCorpus> Chains(const Corpus& data, int threads) const override;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or a weight count that does not fit the
  // dictionary and labels.
  static std::shared_ptr<const CrfModel> Load(ByteReader& r);
  // "CRF 23 labels x 323829 attributes (7448596 weights)"; "second-order CRF ..." for order 2.
  std::string Describe() const override;
};

// The [T x K] label scores of every sentence of `corpus` (features extracted with the model's
// dictionary, `threads` threads, same result for any count) handed to `visit(n, scores)` in
// parallel. Status::Invalid (before any visit) when the corpus lacks a column the templates read.
Status ForEachCrfScores(const CrfModel& model, const Corpus& corpus, int threads,
                        const std::function<void(size_t sentence, const RowMatrixXd& scores)>& visit);

}  // namespace seqflow
