// A cache entry without what measures time — the compute seconds, metrics and CSV attachment
// columns named *second* — nor the key it was stored under, re-encoded: the artifact, its other metrics and
// attachments, byte for byte. What must not change between kernel variants, thread counts or
// process counts.
#pragma once

#include <map>
#include <string>

#include "engine/base/status.h"

namespace seqflow::testutil {

Result<std::string> EntryWithoutTiming(const std::string& entry_file);

// Every entry (*.sfa) under a cache directory, by file name, each without what measures time.
Result<std::map<std::string, std::string>> TimelessEntries(const std::string& cache);

// The number of checkpoints (*.sfc) a cache holds.
int CheckpointCount(const std::string& cache);

// True for a metric or column that measures time (its name says "second": seconds, tokens_per_second).
bool IsTiming(const std::string& name);

}  // namespace seqflow::testutil
