// ShardedCorpus: a corpus stored as fixed-size shards of sentences, each shard's body a piece
// (engine/api/piece_store.h) outside the artifact, so that neither the artifact nor a consumer
// holds more than one shard of sentences at a time.
//
// The artifact records the corpus's header (columns, label names, encoding, source), the shard
// size and, per shard in order, its piece name and its sentence and token counts. A shard's body
// is the Corpus::Save bytes of a Corpus with the same header and that shard's sentences: every
// shard holds `shard_sentences` sentences but the last. The sentences, in shard order, are the
// corpus read unsharded, so a consumer that keys its work by global sentence index (the
// kernels' compute shards, nodes/common/parallel.h) gets the same bits for any storage shard size.
//
// Both Corpus and ShardedCorpus implement the interface kSentencesInterface ("Sentences"): a port
// of that type takes either, and ForEachCorpusShard reads either one shard at a time.
// Thread safety: immutable once published.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/piece_store.h"
#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/stored_shards.h"

namespace seqflow {

inline constexpr std::string_view kSentencesInterface = "Sentences";

class ShardedCorpus final : public Artifact {
 public:
  static constexpr std::string_view kType = "ShardedCorpus";
  static constexpr uint32_t kVersion = 1;

  using Shard = StoredShard;

  std::vector<std::string> columns;
  std::vector<std::string> label_names;
  TagEncoding encoding = TagEncoding::kNone;
  std::string source;
  int64_t shard_sentences = 0;
  std::vector<Shard> shards;

  int64_t num_sentences() const;
  int64_t num_tokens() const;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const ShardedCorpus> Load(ByteReader& r);
  std::string Describe() const override;
  std::vector<std::string> PieceNames() const override;
};

// Builds a ShardedCorpus from sentences handed over one at a time: every `shard_sentences`
// sentences become a shard stored in `store` and dropped.
// Copies the header of a Corpus or a ShardedCorpus (columns, label names, encoding, source) onto
// another, the sentences or shards left as they are.
template <class From, class To>
void CopyCorpusHeader(const From& from, To* to) {
  to->columns = from.columns;
  to->label_names = from.label_names;
  to->encoding = from.encoding;
  to->source = from.source;
}

class ShardedCorpusWriter {
 public:
  // `header` gives columns, label names, encoding and source (its sentences are ignored).
  // REQUIRES: shard_sentences >= 1; `store` outlives the writer.
  ShardedCorpusWriter(const Corpus& header, int64_t shard_sentences, PieceStore* store);
  Status Add(Sentence&& sentence);
  // Stores the last, partial shard; the artifact.
  Result<std::shared_ptr<ShardedCorpus>> Finish() &&;

 private:
  Status Flush();

  Corpus shard_;  // the header and the sentences not yet stored
  PieceStore* store_;
  std::shared_ptr<ShardedCorpus> out_;
};

// The body of shard `index` of `corpus`, read from `store` and checked against the artifact's
// counts; Corruption naming the piece otherwise.
Result<std::shared_ptr<const Corpus>> LoadCorpusShard(const ShardedCorpus& corpus, size_t index,
                                                      const PieceStore& store);

// Calls `visit` on each shard of `sentences` (a Corpus: the corpus itself, once; a
// ShardedCorpus: its shards in order, loaded one at a time and dropped after the call) and
// stops at its first error. `store` may be null for a Corpus. Invalid for any other artifact.
Status ForEachCorpusShard(const Artifact& sentences, const PieceStore* store,
                          const std::function<Status(const Corpus&)>& visit);

// ForEachCorpusShard for a consumer that needs only some sentences (an MPI rank: those of the
// compute shards it maps): a ShardedCorpus's shard whose sentences [first + b, first + e) — b, e
// counted within `sentences` — `needed` rejects is not loaded, and `skipped(e - b)` is called
// instead. A Corpus is visited whole.
Status ForEachNeededCorpusShard(const Artifact& sentences, const PieceStore* store, size_t first,
                                const std::function<bool(size_t begin, size_t end)>& needed,
                                const std::function<Status(const Corpus&)>& visit,
                                const std::function<void(size_t count)>& skipped);

}  // namespace seqflow
