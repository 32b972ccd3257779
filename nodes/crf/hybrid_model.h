// HybridModel: CRF experts and per-feature-type HMMs combined by Γ (Suzuki et al. 2007, Eq. 2),
// the output of crf.lop (no HMMs) and crf.hysol — and what is needed to apply it to a Corpus.
//
// Experts' token scores are held in single precision (HybridCorpus), so a pool of one expert with
// γ = 1 decodes like the CRF up to float rounding of its scores (marginals agree to ~1e-7).
// A ChainModel: decoding uses the merged potentials of hybrid_chain.h, one [T x K] score matrix
// per sentence and one [K x K] label-bigram matrix for the whole model (trigram rows when an
// expert is second-order), so Viterbi and posterior decoding cost what they cost for a single CRF
// once the token scores are built.
// Ownership: experts and dictionaries are shared (shared_ptr<const>) with the nodes that built
// them. Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/chain/chain_model.h"
#include "nodes/crf/crf_model.h"
#include "nodes/crf/hybrid_chain.h"
#include "nodes/features/feature_templates.h"
#include "nodes/io/corpus.h"

namespace seqflow {

// The symbols the HMMs emit: HMM j emits the value of generative template j at each token.
// Values are the attributes of `dictionary` (one per template and token); a value the dictionary
// does not know is symbol 0 of its template, so V_j = 1 + the template's attribute count.
class GenerativeSymbols {
 public:
  // Status::Invalid naming the first template of `dictionary` with several values per token (an
  // ngramsN() atom): HMM j emits one symbol per token, so it cannot take such a template.
  static Status CheckOneValuePerToken(const FeatureDictionary& dictionary);

  GenerativeSymbols() = default;
  explicit GenerativeSymbols(std::shared_ptr<const FeatureDictionary> dictionary);

  const std::shared_ptr<const FeatureDictionary>& dictionary() const { return dictionary_; }
  int num_types() const { return static_cast<int>(vocabulary_sizes_.size()); }
  const std::vector<int64_t>& vocabulary_sizes() const { return vocabulary_sizes_; }
  // [tokens x J] symbols of every token of `corpus`, rows in sentence order; Status::Invalid when
  // the corpus lacks a column the templates read.
  Result<RowMatrixXi> Symbols(const Corpus& corpus, const std::vector<int64_t>& offsets, int threads) const;

 private:
  std::shared_ptr<const FeatureDictionary> dictionary_;
  std::vector<int32_t> symbol_of_attribute_;  // [attribute] symbol within its template, >= 1
  std::vector<int64_t> vocabulary_sizes_;     // [J]
};

class HybridModel final : public ChainModel {
 public:
  static constexpr std::string_view kType = "HybridModel";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> label_names;  // [K], shared by every expert
  TagEncoding encoding = TagEncoding::kNone;
  std::vector<std::shared_ptr<const CrfModel>> experts;  // I
  GenerativeSymbols symbols;                             // J = symbols.num_types() (0 for a LOP)
  GenerativeParams theta;                                // J HMMs
  Eigen::VectorXd gamma;                                 // [I + J], experts first

  // A_i of every expert, or all as trigram rows G_i when any expert is second-order (hybrid_chain.h).
  ExpertTransitions expert_transitions() const;

  // ChainModel (nodes/chain/chain_model.h): decoders read the model through these.
  const std::vector<std::string>& ChainLabels() const override { return label_names; }
  TagEncoding ChainEncoding() const override { return encoding; }
  // Score chains of the merged potentials (HybridScores, HybridTransition). Invalid when `data`
  // lacks a column the templates read.
  Result<ChainCorpus> Chains(const Corpus& data, int threads) const override;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or shapes that do not agree.
  static std::shared_ptr<const HybridModel> Load(ByteReader& r);
  // "hybrid of 4 CRFs and 18 HMMs over 23 labels".
  std::string Describe() const override;
};

// The experts' shared label set; Status::Invalid when they disagree or there are none.
Result<std::vector<std::string>> CommonLabels(const std::vector<std::shared_ptr<const CrfModel>>& experts);

// The per-token inputs of the hybrid model on `corpus`: each expert's label scores, the
// generative symbols (when `symbols` has types) and, when `with_labels`, the gold labels mapped
// onto `label_names` by name. Status::Invalid naming the corpus on a label the models lack, an
// unlabeled corpus where labels are asked for, or a column the templates read that it lacks.
Result<HybridCorpus> BuildHybridCorpus(const std::vector<std::shared_ptr<const CrfModel>>& experts,
                                       const GenerativeSymbols& symbols, const std::vector<std::string>& label_names,
                                       const Corpus& corpus, bool with_labels, int threads);

}  // namespace seqflow
