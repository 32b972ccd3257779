#include "engine/cache/run_history.h"

#include "engine/api/artifact.h"
#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kRunHistoryMagic{"SQFLRUN\0", 8};

}  // namespace

std::string EncodeRunHistory(const RunHistory& history) {
  ByteWriter payload;
  payload.U64(history.nodes.size());
  for (const auto& [name, node] : history.nodes) {
    payload.Str(name);
    payload.Str(node.key);
    payload.U64(node.parts.size());
    for (const auto& [part, value] : node.parts) {
      payload.Str(part);
      payload.Str(value);
    }
  }
  return EncodeFrame(kRunHistoryMagic, payload.bytes());
}

Result<RunHistory> DecodeRunHistory(std::string_view file) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string_view payload, DecodeFrame(file, kRunHistoryMagic));
  return Guarded("malformed run history", [&] {
    ByteReader r(payload);
    RunHistory history;
    for (size_t i = 0, n = r.Count(16); i < n; ++i) {
      RunHistory::Node& node = history.nodes[r.Str()];
      node.key = r.Str();
      for (size_t j = 0, parts = r.Count(16); j < parts; ++j) {
        std::string part = r.Str();
        node.parts[part] = r.Str();
      }
    }
    r.ExpectEnd();
    return history;
  });
}

}  // namespace seqflow
