#include "nodes/io/shard_params.h"

namespace seqflow {

ParamTable<ShardSize> ShardParams() {
  ParamTable<ShardSize> table;
  table.Int("shard_sentences", &ShardSize::shard_sentences, "sentences per stored shard (the last may hold fewer)")
      .Min(1);
  return table;
}

}  // namespace seqflow
