// The shard list of an artifact whose bodies are pieces (engine/api/piece_store.h) — ShardedCorpus,
// and nodes/features' ShardedFeatureSet — and its bytes: the shard size, then per shard in order its
// piece name and its sentence and token counts. Every shard holds `shard_sentences` sentences but
// the last. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/bytes.h"

namespace seqflow {

struct StoredShard {
  std::string piece;  // PieceStore name of the body
  int64_t sentences = 0;
  int64_t tokens = 0;
};

int64_t SumSentences(const std::vector<StoredShard>& shards);
int64_t SumTokens(const std::vector<StoredShard>& shards);
std::vector<std::string> PieceNamesOf(const std::vector<StoredShard>& shards);

void SaveStoredShards(ByteWriter& w, int64_t shard_sentences, const std::vector<StoredShard>& shards);
// Reads what SaveStoredShards wrote; throws StatusError(Corruption) prefixed "<type>: " for a shard
// size below 1 or counts that break the rule above.
void LoadStoredShards(ByteReader& r, std::string_view type, int64_t* shard_sentences, std::vector<StoredShard>* shards);

}  // namespace seqflow
