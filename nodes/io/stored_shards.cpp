#include "nodes/io/stored_shards.h"

#include "engine/base/status.h"

namespace seqflow {

int64_t SumSentences(const std::vector<StoredShard>& shards) {
  int64_t n = 0;
  for (const StoredShard& s : shards) n += s.sentences;
  return n;
}

int64_t SumTokens(const std::vector<StoredShard>& shards) {
  int64_t n = 0;
  for (const StoredShard& s : shards) n += s.tokens;
  return n;
}

std::vector<std::string> PieceNamesOf(const std::vector<StoredShard>& shards) {
  std::vector<std::string> names;
  for (const StoredShard& s : shards) names.push_back(s.piece);
  return names;
}

void SaveStoredShards(ByteWriter& w, int64_t shard_sentences, const std::vector<StoredShard>& shards) {
  w.I64(shard_sentences);
  w.U64(shards.size());
  for (const StoredShard& s : shards) {
    w.Str(s.piece);
    w.I64(s.sentences);
    w.I64(s.tokens);
  }
}

void LoadStoredShards(ByteReader& r, std::string_view type, int64_t* shard_sentences, std::vector<StoredShard>* shards) {
  auto corrupt = [&](const std::string& what) {
    throw StatusError(Status::Corruption(std::string(type) + ": " + what));
  };
  *shard_sentences = r.I64();
  if (*shard_sentences < 1) corrupt("shard size " + std::to_string(*shard_sentences));
  const size_t n = r.Count(3 * sizeof(uint64_t));
  for (size_t i = 0; i < n; ++i) {
    StoredShard s;
    s.piece = r.Str();
    s.sentences = r.I64();
    s.tokens = r.I64();
    if (s.sentences < 1 || s.sentences > *shard_sentences || (i + 1 < n && s.sentences != *shard_sentences) ||
        s.tokens < 0)
      corrupt("shard " + std::to_string(i) + " counts " + std::to_string(s.sentences) + " sentences");
    shards->push_back(std::move(s));
  }
}

}  // namespace seqflow
