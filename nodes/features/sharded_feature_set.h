// ShardedFeatureSet: what features.templates gives for a ShardedCorpus (nodes/io/sharded_corpus.h).
// The dictionary, fitted over every shard, is in the artifact; each shard's sentences as attribute
// ids with their gold labels are a piece (engine/api/piece_store.h) of their own, holding the bytes
// FeatureSet writes for them (labeled_features.h). The shards are the input's: the same
// boundaries, sentence and token counts. The sentences in shard order are the FeatureSet of the
// same corpus read whole, so a consumer that keys its work by global sentence index (crf.train's
// compute shards) gets the same bits from either.
//
// FeatureSet and ShardedFeatureSet implement the interface kLabeledFeaturesInterface
// ("LabeledFeatures"): a port of that type takes either, reads the header (LabeledFeaturesOf) and
// the sentences a range at a time (FeatureRanges), never more than a stored shard and the range.
// Thread safety: the artifact is immutable once published; a FeatureRanges is one reader's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/piece_store.h"
#include "engine/base/status.h"
#include "nodes/features/feature_templates.h"
#include "nodes/features/labeled_features.h"
#include "nodes/io/stored_shards.h"

namespace seqflow {

inline constexpr std::string_view kLabeledFeaturesInterface = "LabeledFeatures";

class ShardedFeatureSet final : public Artifact {
 public:
  static constexpr std::string_view kType = "ShardedFeatureSet";
  static constexpr uint32_t kVersion = 1;

  using Shard = StoredShard;

  std::shared_ptr<const FeatureDictionary> dictionary;
  std::vector<std::string> label_names;
  TagEncoding encoding = TagEncoding::kNone;
  bool labeled = false;  // every piece holds labels
  int64_t shard_sentences = 0;
  std::vector<Shard> shards;

  int64_t num_sentences() const;
  int64_t num_tokens() const;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const ShardedFeatureSet> Load(ByteReader& r);
  std::string Describe() const override;
  std::vector<std::string> PieceNames() const override;
};

// Stores `shard` as one piece of `store`; its entry in a ShardedFeatureSet.
Result<ShardedFeatureSet::Shard> StoreFeatureShard(const FeatureShard& shard, PieceStore* store);

// Shard `index` of `set` read from `store` and checked against the artifact (counts, attribute
// ids, labels); Corruption naming the piece otherwise.
Result<FeatureShard> LoadFeatureShard(const ShardedFeatureSet& set, size_t index, const PieceStore& store);

// What a LabeledFeatures artifact holds besides its sentences.
struct LabeledFeaturesHeader {
  std::shared_ptr<const FeatureDictionary> dictionary;
  std::vector<std::string> label_names;
  TagEncoding encoding = TagEncoding::kNone;
  bool labeled = false;
  size_t num_sentences = 0;
};
// Invalid for an artifact that is neither a FeatureSet nor a ShardedFeatureSet.
Result<LabeledFeaturesHeader> LabeledFeaturesOf(const Artifact& data);

// Sentences [begin, end) of a FeatureSet or a ShardedFeatureSet as one FeatureShard, for a
// consumer that passes over the data in blocks that do not follow the storage shards. The reader
// keeps the last stored shard it loaded, so ranges asked in increasing order load each shard once.
class FeatureRanges {
 public:
  // Whether sentences [begin, end) are wanted: a caller that needs only some (an MPI rank: those of
  // its compute shards) leaves the others unloaded.
  using Needed = std::function<bool(size_t begin, size_t end)>;

  // Invalid if `data` is neither type, or is sharded with no `store`. Both must outlive the reader.
  static Result<FeatureRanges> Of(const Artifact& data, const PieceStore* store);

  size_t num_sentences() const { return shard_first_.back(); }
  // The FeatureSet itself when the data is not sharded (to read it whole without a copy); else null.
  const FeatureSet* whole() const { return whole_; }

  // A copy of sentences [begin, end). The part [b, e) of a stored shard that `needed` (when set)
  // rejects is left empty — sentences of no token, without labels — and the shard is not read.
  // The shard's Status when one cannot be read. REQUIRES: begin <= end <= num_sentences().
  Result<FeatureShard> Range(size_t begin, size_t end, const Needed& needed = nullptr);

 private:
  FeatureRanges() = default;
  Status LoadShard(size_t index);

  const FeatureSet* whole_ = nullptr;
  const ShardedFeatureSet* sharded_ = nullptr;
  const PieceStore* store_ = nullptr;
  std::vector<size_t> shard_first_;  // [shards + 1] first sentence of each stored shard, then the total
  size_t loaded_index_ = 0;          // the shard in `loaded_`, when set
  std::unique_ptr<FeatureShard> loaded_;
};

}  // namespace seqflow
