// SentenceRanges: sentences [begin, end) of a Corpus or a ShardedCorpus (a `Sentences` input) as a
// corpus of their own, for a consumer that passes over the text in blocks that do not follow the
// storage shards (crf.hysol's streamed blocks of 8,192 sentences against shards of 10,000).
//
// A ShardedCorpus is read a storage shard at a time: the reader keeps the last shard it loaded, so
// ranges asked in increasing order (one pass) load each shard once, and a range spanning a shard
// boundary holds two at most. A new pass reloads from the first shard (a page-cache read, small next
// to building the block's per-token inputs: bench/RESULTS.md, "Sharded corpora").
// Thread safety: not thread-safe (the loaded shard is mutable state); one reader per pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/piece_store.h"
#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/sharded_corpus.h"

namespace seqflow {

class SentenceRanges {
 public:
  // Invalid if `sentences` is neither a Corpus nor a ShardedCorpus, or is sharded with no `store`.
  // The artifact and the store must outlive the reader.
  static Result<SentenceRanges> Of(const Artifact& sentences, const PieceStore* store);

  size_t num_sentences() const { return num_sentences_; }
  int64_t num_tokens() const;
  const std::vector<std::string>& columns() const;
  // The Corpus itself when the text is not sharded (to read it whole without a copy); else null.
  const Corpus* whole() const { return whole_; }

  // A copy of sentences [begin, end), with the text's header (columns, labels, encoding, source).
  // The shard's Status when one cannot be read. REQUIRES: begin <= end <= num_sentences().
  Result<Corpus> Range(size_t begin, size_t end);

 private:
  SentenceRanges() = default;
  Status LoadShardHolding(size_t sentence);

  const Corpus* whole_ = nullptr;
  const ShardedCorpus* sharded_ = nullptr;
  const PieceStore* store_ = nullptr;
  size_t num_sentences_ = 0;
  std::vector<size_t> shard_first_;  // [shards + 1] first sentence of each shard, then the total
  size_t loaded_index_ = 0;          // the shard in `loaded_`, when set
  std::shared_ptr<const Corpus> loaded_;
};

}  // namespace seqflow
