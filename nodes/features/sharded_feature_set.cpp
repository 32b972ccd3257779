#include "nodes/features/sharded_feature_set.h"

#include <algorithm>

namespace seqflow {
namespace {

[[noreturn]] void CorruptShards(const std::string& what) {
  throw StatusError(Status::Corruption("ShardedFeatureSet: " + what));
}

// Appends sentences [from, to), with their labels when `labeled`, to `part`.
void AppendSentences(const std::vector<SentenceFeatures>& sentences, const std::vector<std::vector<int32_t>>& labels,
                     size_t from, size_t to, bool labeled, FeatureShard* part) {
  const auto b = static_cast<std::ptrdiff_t>(from), e = static_cast<std::ptrdiff_t>(to);
  part->sentences.insert(part->sentences.end(), sentences.begin() + b, sentences.begin() + e);
  if (labeled) part->labels.insert(part->labels.end(), labels.begin() + b, labels.begin() + e);
}

}  // namespace

int64_t ShardedFeatureSet::num_sentences() const { return SumSentences(shards); }

int64_t ShardedFeatureSet::num_tokens() const { return SumTokens(shards); }

void ShardedFeatureSet::Save(ByteWriter& w) const {
  dictionary->Save(w);
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  w.U8(labeled ? 1 : 0);
  SaveStoredShards(w, shard_sentences, shards);
}

std::shared_ptr<const ShardedFeatureSet> ShardedFeatureSet::Load(ByteReader& r) {
  auto set = std::make_shared<ShardedFeatureSet>();
  set->dictionary = FeatureDictionary::Load(r);
  set->label_names = r.Strs();
  const uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns)) CorruptShards("bad tag encoding");
  set->encoding = static_cast<TagEncoding>(encoding);
  const uint8_t labeled = r.U8();
  if (labeled > 1) CorruptShards("bad labeled flag");
  set->labeled = labeled == 1;
  LoadStoredShards(r, kType, &set->shard_sentences, &set->shards);
  r.ExpectEnd();
  return set;
}

std::string ShardedFeatureSet::Describe() const {
  return std::to_string(num_sentences()) + " sentences, " + std::to_string(num_tokens()) + " tokens in " +
         std::to_string(shards.size()) + " shards, " + std::to_string(dictionary->num_attributes()) +
         " attributes from " + std::to_string(dictionary->templates().size()) + " templates";
}

std::vector<std::string> ShardedFeatureSet::PieceNames() const { return PieceNamesOf(shards); }

Result<ShardedFeatureSet::Shard> StoreFeatureShard(const FeatureShard& shard, PieceStore* store) {
  ByteWriter w;
  SaveFeatureSentences(w, shard.sentences, shard.labels);
  SEQFLOW_ASSIGN_OR_RETURN(std::string piece, store->Put(w.Take()));
  return ShardedFeatureSet::Shard{std::move(piece), static_cast<int64_t>(shard.sentences.size()),
                                  static_cast<int64_t>(NumTokens(shard.sentences))};
}

Result<FeatureShard> LoadFeatureShard(const ShardedFeatureSet& set, size_t index, const PieceStore& store) {
  const ShardedFeatureSet::Shard& shard = set.shards.at(index);
  const std::string where = "shard " + std::to_string(index) + " of the features (piece " + shard.piece + ")";
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, store.Get(shard.piece));
  FeatureShard body;
  try {
    ByteReader r(bytes);
    LoadFeatureSentences(r, set.dictionary->num_attributes(), &body.sentences, &body.labels);
    r.ExpectEnd();
    CheckFeatureLabels(body.sentences, body.labels, set.label_names.size());
  } catch (const StatusError& e) {
    return Status::Corruption(where + ": " + e.status().message());
  }
  const bool any_empty = std::any_of(body.sentences.begin(), body.sentences.end(),
                                     [](const SentenceFeatures& s) { return s.size() == 0; });
  if (any_empty || static_cast<int64_t>(body.sentences.size()) != shard.sentences ||
      static_cast<int64_t>(NumTokens(body.sentences)) != shard.tokens || body.labels.empty() == set.labeled)
    return Status::Corruption(where + " is not the shard the features record");
  return body;
}

Result<LabeledFeaturesHeader> LabeledFeaturesOf(const Artifact& data) {
  if (const auto* whole = dynamic_cast<const FeatureSet*>(&data))
    return LabeledFeaturesHeader{whole->dictionary, whole->label_names, whole->encoding, !whole->labels.empty(),
                                 whole->sentences.size()};
  if (const auto* sharded = dynamic_cast<const ShardedFeatureSet*>(&data))
    return LabeledFeaturesHeader{sharded->dictionary, sharded->label_names, sharded->encoding, sharded->labeled,
                                 static_cast<size_t>(sharded->num_sentences())};
  return Status::Invalid("expected a FeatureSet or a ShardedFeatureSet, got " + std::string(data.type()));
}

Result<FeatureRanges> FeatureRanges::Of(const Artifact& data, const PieceStore* store) {
  FeatureRanges ranges;
  ranges.store_ = store;
  ranges.shard_first_.push_back(0);
  if ((ranges.whole_ = dynamic_cast<const FeatureSet*>(&data)) != nullptr) {
    ranges.shard_first_.push_back(ranges.whole_->sentences.size());
    return ranges;
  }
  ranges.sharded_ = dynamic_cast<const ShardedFeatureSet*>(&data);
  if (ranges.sharded_ == nullptr)
    return Status::Invalid("expected a FeatureSet or a ShardedFeatureSet, got " + std::string(data.type()));
  if (store == nullptr && !ranges.sharded_->shards.empty())
    return Status::Invalid("the shards of the features need a piece store, and this node has none");
  for (const ShardedFeatureSet::Shard& shard : ranges.sharded_->shards)
    ranges.shard_first_.push_back(ranges.shard_first_.back() + static_cast<size_t>(shard.sentences));
  return ranges;
}

Status FeatureRanges::LoadShard(size_t index) {
  if (loaded_ != nullptr && loaded_index_ == index) return Status::Ok();
  loaded_.reset();  // never two shards alive
  SEQFLOW_ASSIGN_OR_RETURN(FeatureShard shard, LoadFeatureShard(*sharded_, index, *store_));
  loaded_ = std::make_unique<FeatureShard>(std::move(shard));
  loaded_index_ = index;
  return Status::Ok();
}

Result<FeatureShard> FeatureRanges::Range(size_t begin, size_t end, const Needed& needed) {
  const bool labeled = whole_ != nullptr ? !whole_->labels.empty() : sharded_->labeled;
  FeatureShard part;
  part.sentences.reserve(end - begin);
  for (size_t n = begin; n < end;) {
    const auto index = static_cast<size_t>(
        std::upper_bound(shard_first_.begin(), shard_first_.end(), n) - shard_first_.begin() - 1);
    const size_t first = shard_first_[index], last = std::min(end, shard_first_[index + 1]);
    if (needed && !needed(n, last)) {
      part.sentences.resize(part.sentences.size() + (last - n), SentenceFeatures{{0}, {}});
      if (labeled) part.labels.resize(part.labels.size() + (last - n));
    } else if (whole_ != nullptr) {
      AppendSentences(whole_->sentences, whole_->labels, n - first, last - first, labeled, &part);
    } else {
      SEQFLOW_RETURN_IF_ERROR(LoadShard(index));
      AppendSentences(loaded_->sentences, loaded_->labels, n - first, last - first, labeled, &part);
    }
    n = last;
  }
  return part;
}

}  // namespace seqflow
