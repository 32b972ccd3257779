// The `shard_sentences` parameter of the kinds that write a ShardedCorpus (read.text_shards,
// decode.tag_shards): a kind holds a ShardSize in its options struct and Includes ShardParams().
#pragma once

#include <cstdint>

#include "engine/api/param_table.h"

namespace seqflow {

struct ShardSize {
  int64_t shard_sentences = 10000;
};

ParamTable<ShardSize> ShardParams();

}  // namespace seqflow
