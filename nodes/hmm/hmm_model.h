// HmmModel: a trained first-order discrete HMM together with what is needed to apply it to
// text — the vocabulary that maps words to symbols and the names of the states. A ChainModel:
// the decoders decode with it through that interface.
//
// State i is the label `label_names[i]`; `encoding` is the TagEncoding of the labeled data the
// model was trained on, so decoders can hand both to Predictions. Symbols are Vocab ids, so
// V = vocab->size() (known words, then the unknown-word classes).
// Ownership: the Vocab is shared with the node that built it (shared_ptr<const>).
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/base/status.h"
#include "nodes/chain/chain_model.h"
#include "nodes/features/vocab.h"
#include "nodes/hmm/hmm_params.h"
#include "nodes/io/corpus.h"

namespace seqflow {

class HmmModel final : public ChainModel {
 public:
  static constexpr std::string_view kType = "HmmModel";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> label_names;  // [K] state id -> label text
  TagEncoding encoding = TagEncoding::kNone;
  std::shared_ptr<const Vocab> vocab;  // V = vocab->size() symbols
  HmmParams params;                    // initial [K], transition [K x K], emission [K x V]

  int num_states() const { return params.num_states(); }
  int num_symbols() const { return params.num_symbols(); }

  // ChainModel (nodes/chain/chain_model.h): decoders read the model through these.
  const std::vector<std::string>& ChainLabels() const override { return label_names; }
  TagEncoding ChainEncoding() const override { return encoding; }
  // Probability chains: the emission matrix as the table, each word's Vocab id as its column.
  // Invalid when ValidateHmmModel fails.
  Result<ChainCorpus> Chains(const Corpus& data, int threads) const override;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  // Layout: label_names, encoding, the Vocab payload (length-prefixed), K, V, then initial,
  // transition and emission as raw doubles (Eigen column-major), so Load(Save(m)) is bit-exact.
  // REQUIRES: vocab non-null.
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or inconsistent shapes.
  static std::shared_ptr<const HmmModel> Load(ByteReader& r);
  // "HMM 23 states x 19122 symbols".
  std::string Describe() const override;
};

// OK when initial, every transition row and every emission row are finite, non-negative and
// sum to 1 within `tol`; otherwise Numerical naming the first bad row ("transition row 3 sums
// to 0.98"). Also checks the shapes agree (transition K x K, emission K rows).
Status ValidateHmmParams(const HmmParams& params, double tol = 1e-9);

// The symbol ids (Vocab::Id of column 0) of every sentence of `corpus`, in order.
std::vector<std::vector<int32_t>> CorpusSymbols(const Vocab& vocab, const Corpus& corpus);

// ValidateHmmParams plus: a Vocab is present with V = vocab->size(), and label_names has K
// entries.
Status ValidateHmmModel(const HmmModel& model, double tol = 1e-9);

}  // namespace seqflow
