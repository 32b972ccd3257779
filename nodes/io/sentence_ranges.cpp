#include "nodes/io/sentence_ranges.h"

#include <algorithm>

namespace seqflow {

Result<SentenceRanges> SentenceRanges::Of(const Artifact& sentences, const PieceStore* store) {
  SentenceRanges ranges;
  ranges.store_ = store;
  if ((ranges.whole_ = dynamic_cast<const Corpus*>(&sentences)) != nullptr) {
    ranges.num_sentences_ = ranges.whole_->sentences.size();
    return ranges;
  }
  ranges.sharded_ = dynamic_cast<const ShardedCorpus*>(&sentences);
  if (ranges.sharded_ == nullptr)
    return Status::Invalid("expected a Corpus or a ShardedCorpus, got " + std::string(sentences.type()));
  if (store == nullptr && !ranges.sharded_->shards.empty())
    return Status::Invalid("the shards of " + ranges.sharded_->source + " need a piece store, and this node has none");
  ranges.shard_first_.push_back(0);
  for (const ShardedCorpus::Shard& shard : ranges.sharded_->shards)
    ranges.shard_first_.push_back(ranges.shard_first_.back() + static_cast<size_t>(shard.sentences));
  ranges.num_sentences_ = ranges.shard_first_.back();
  return ranges;
}

int64_t SentenceRanges::num_tokens() const {
  return whole_ != nullptr ? static_cast<int64_t>(whole_->num_tokens()) : sharded_->num_tokens();
}

const std::vector<std::string>& SentenceRanges::columns() const {
  return whole_ != nullptr ? whole_->columns : sharded_->columns;
}

Status SentenceRanges::LoadShardHolding(size_t sentence) {
  const auto index = static_cast<size_t>(
      std::upper_bound(shard_first_.begin(), shard_first_.end(), sentence) - shard_first_.begin() - 1);
  if (loaded_ != nullptr && loaded_index_ == index) return Status::Ok();
  loaded_.reset();  // never two shards alive but while copying a range that spans them
  SEQFLOW_ASSIGN_OR_RETURN(loaded_, LoadCorpusShard(*sharded_, index, *store_));
  loaded_index_ = index;
  return Status::Ok();
}

Result<Corpus> SentenceRanges::Range(size_t begin, size_t end) {
  if (whole_ != nullptr) {
    Corpus part;
    CopyCorpusHeader(*whole_, &part);
    part.sentences.assign(whole_->sentences.begin() + static_cast<std::ptrdiff_t>(begin),
                          whole_->sentences.begin() + static_cast<std::ptrdiff_t>(end));
    return part;
  }
  Corpus part;
  CopyCorpusHeader(*sharded_, &part);
  part.sentences.reserve(end - begin);
  for (size_t n = begin; n < end;) {
    SEQFLOW_RETURN_IF_ERROR(LoadShardHolding(n));
    const size_t first = shard_first_[loaded_index_], last = std::min(end, shard_first_[loaded_index_ + 1]);
    part.sentences.insert(part.sentences.end(),
                          loaded_->sentences.begin() + static_cast<std::ptrdiff_t>(n - first),
                          loaded_->sentences.begin() + static_cast<std::ptrdiff_t>(last - first));
    n = last;
  }
  return part;
}

}  // namespace seqflow
