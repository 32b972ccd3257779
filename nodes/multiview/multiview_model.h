// MultiViewModel: a trained (multi-view) hidden Markov perceptron with what is needed to apply it
// to a Corpus: the attribute dictionary, the view of each attribute, the label names. A ChainModel
// whose chains are the joint decision of Eq. 17 (Brefeld et al. 2005): a token's label scores are
// f^1 + f^2 = Σ over all its attributes of W[a, :] (the views are disjoint), and the transition
// log-potentials are T^1 + T^2, so decode.viterbi runs one Viterbi over the summed scores.
// Ownership: the dictionary is shared with the FeatureViews it came from.
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/chain/chain_model.h"
#include "nodes/features/feature_templates.h"
#include "nodes/io/corpus.h"

namespace seqflow {

class MultiViewModel final : public ChainModel {
 public:
  static constexpr std::string_view kType = "MultiViewModel";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> label_names;  // [K]
  TagEncoding encoding = TagEncoding::kNone;
  std::shared_ptr<const FeatureDictionary> dictionary;
  std::vector<int32_t> view;  // [A] view of each attribute (all 0 for one view)
  int32_t views = 2;
  RowMatrixXd observation;  // [A x K] W^1 and W^2 in their views' rows
  RowMatrixXd transition;   // [K x K] T^1 + T^2

  const std::vector<std::string>& ChainLabels() const override { return label_names; }
  TagEncoding ChainEncoding() const override { return encoding; }
  // Score chains of the joint decision function. Invalid when `data` lacks a column the templates read.
  Result<ChainCorpus> Chains(const Corpus& data, int threads) const override;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or sizes that do not fit the dictionary and labels.
  static std::shared_ptr<const MultiViewModel> Load(ByteReader& r);
  // "HM perceptron, 2 views, 9 labels x 41585 attributes".
  std::string Describe() const override;
};

}  // namespace seqflow
