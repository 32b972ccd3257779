// A cache entry without what measures time — the compute seconds, metrics named *seconds*, CSV
// attachment columns named *seconds* — re-encoded: the artifact, its other metrics and
// attachments, byte for byte. What must not change between kernel variants, thread counts or
// process counts.
#pragma once

#include <string>

#include "engine/base/status.h"

namespace seqflow::testutil {

Result<std::string> EntryWithoutTiming(const std::string& entry_file);

// True for a metric or column that measures time (its name contains "seconds").
bool IsTiming(const std::string& name);

}  // namespace seqflow::testutil
