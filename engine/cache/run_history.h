// The run history the cache keeps for `seqflow plan` (DESIGN §6, §11): after every run, each
// node's cache key and the parts it was made from (kind@version, canonical parameters, file
// hashes, input keys), so the next plan can name what changed. Stored by the Cache as
// <dir>/runs/<run id>.sfr, one file per (pipeline, ablation); gc prunes them (cache.h).
//
// File: magic "SQFLRUN\0" | u32 format version | u64 payload length | u64 XXH64(payload) | payload
//   payload = node count, then per node (in name order): name, key, part count, (name, value)...
// The same frame as a cache entry (entry_format.h), with its own magic; decoding checks it all.
// Thread safety: plain values and stateless functions.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace seqflow {

struct RunHistory {
  struct Node {
    std::string key;                           // 32 hex digits
    std::map<std::string, std::string> parts;  // DagNode::key_parts
    bool operator==(const Node&) const = default;
  };
  std::map<std::string, Node> nodes;  // by node name

  bool operator==(const RunHistory&) const = default;
};

std::string EncodeRunHistory(const RunHistory& history);
// Corruption saying what is wrong for anything EncodeRunHistory did not write.
Result<RunHistory> DecodeRunHistory(std::string_view file);

}  // namespace seqflow
