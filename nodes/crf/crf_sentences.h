// The labeled training sentences of a CRF (attribute ids per token and gold labels), resident or
// streamed. Resident: the caller's vectors, read in place. Streamed: a loader called for blocks of
// sentences [begin, end), in increasing order, once per pass; the trainer drops each block after
// use, so only one block (and what the loader holds: a stored shard) is in memory. The node's
// loader reads a ShardedFeatureSet's pieces (FeatureRanges); a kernel sees only this callback.
// Thread safety: Load is called by one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "engine/base/status.h"
#include "nodes/features/labeled_features.h"

namespace seqflow {

// The CRF likelihood's compute shard: its forward-backward passes are reduced in shards of this
// many sentences (crf_likelihood.h), whatever the blocks.
inline constexpr size_t kCrfShardSentences = 32;
// Sentences per streamed block by default: 256 compute shards (a block's buffers: about 50 MB at
// CoNLL-2000's 24 tokens a sentence and K = 22).
inline constexpr size_t kCrfBlockSentences = 8192;

class CrfSentences {
 public:
  // Whether sentences [begin, end) are wanted; the others may come back empty (no tokens, no
  // labels): an MPI rank asks only for those of the compute shards it maps.
  using Needed = std::function<bool(size_t begin, size_t end)>;
  // Sentences [begin, end) as one shard; an error ends the pass.
  using Loader = std::function<Result<FeatureShard>(size_t begin, size_t end, const Needed& needed)>;

  // Resident. Keeps references. REQUIRES: labels[n].size() == sentences[n].size().
  CrfSentences(const std::vector<SentenceFeatures>& sentences, const std::vector<std::vector<int32_t>>& labels)
      : sentences_(&sentences), labels_(&labels), num_sentences_(sentences.size()) {}
  // Streamed: `num_sentences` sentences handed out by `load` in blocks of `block_sentences` (the
  // bits do not depend on it). REQUIRES: block_sentences a positive multiple of kCrfShardSentences.
  CrfSentences(size_t num_sentences, Loader load, size_t block_sentences = kCrfBlockSentences)
      : num_sentences_(num_sentences), block_sentences_(block_sentences), load_(std::move(load)) {}

  size_t num_sentences() const { return num_sentences_; }
  bool streamed() const { return sentences_ == nullptr; }
  size_t block_sentences() const { return block_sentences_; }
  // REQUIRES: !streamed().
  const std::vector<SentenceFeatures>& sentences() const { return *sentences_; }
  const std::vector<std::vector<int32_t>>& labels() const { return *labels_; }
  // REQUIRES: streamed(), begin <= end <= num_sentences().
  Result<FeatureShard> Load(size_t begin, size_t end, const Needed& needed = nullptr) const {
    return load_(begin, end, needed);
  }

 private:
  const std::vector<SentenceFeatures>* sentences_ = nullptr;
  const std::vector<std::vector<int32_t>>* labels_ = nullptr;
  size_t num_sentences_ = 0;
  size_t block_sentences_ = kCrfBlockSentences;
  Loader load_;
};

}  // namespace seqflow
