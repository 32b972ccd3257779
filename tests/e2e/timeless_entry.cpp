#include "tests/e2e/timeless_entry.h"

#include <filesystem>
#include <sstream>
#include <vector>

#include "cli/session.h"
#include "engine/cache/entry_format.h"
#include "tests/e2e/cli_runner.h"

namespace seqflow::testutil {
bool IsTiming(const std::string& name) { return name.find("second") != std::string::npos; }

namespace {

std::vector<std::string> SplitCommas(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream s(line);
  for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
  return fields;
}

// A CSV attachment without its timing columns (a training trace's "seconds").
std::string WithoutTimingColumns(const std::string& csv) {
  std::istringstream in(csv);
  std::vector<bool> keep;  // by the header's column names
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> fields = SplitCommas(line);
    if (keep.empty()) {
      for (const std::string& name : fields) keep.push_back(!IsTiming(name));
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i >= keep.size() || keep[i]) out += fields[i] + ",";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

Result<std::string> EntryWithoutTiming(const std::string& entry_file) {
  SEQFLOW_ASSIGN_OR_RETURN(CacheEntry entry, DecodeEntry(Slurp(entry_file), cli::TheRegistry()));
  entry.seconds = 0;
  entry.key.clear();  // compared across nodes of different keys (a sharded node and its unsharded twin)
  std::erase_if(entry.metrics, [](const auto& metric) { return IsTiming(metric.first); });
  for (auto& [suffix, content] : entry.attachments) content = WithoutTimingColumns(content);
  return EncodeEntry(entry);
}

Result<std::map<std::string, std::string>> TimelessEntries(const std::string& cache) {
  std::map<std::string, std::string> entries;
  for (const auto& file : std::filesystem::recursive_directory_iterator(cache)) {
    if (file.path().extension() != ".sfa") continue;
    SEQFLOW_ASSIGN_OR_RETURN(entries[file.path().filename().string()], EntryWithoutTiming(file.path().string()));
  }
  return entries;
}

int CheckpointCount(const std::string& cache) {
  const std::filesystem::path dir = std::filesystem::path(cache) / "checkpoints";
  if (!std::filesystem::exists(dir)) return 0;
  int count = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir)) count += file.path().extension() == ".sfc";
  return count;
}

}  // namespace seqflow::testutil
