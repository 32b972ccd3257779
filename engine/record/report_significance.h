// The p-values of the comparison table (internal to engine/record; the rules are in report.h).
// Thread safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/record/report.h"

namespace seqflow::report {

// The runs of one row by repetition id (the seed, or the repetition keys' values); nullopt when
// two runs of the row share an id, so that the row cannot be paired.
using RowRepeats = std::optional<std::map<std::string, size_t>>;

// Sets ReportCell::p of every cell that can be tested against its column's best row, and
// table.has_p. A node's statistics are the file of its kind's declared kSentenceCounts
// attachment; rows[r] describes table.rows[r].
// REQUIRES: MarkBest has run; rows.size() == table.rows.size().
void AddPValues(const PipelineRecord& record, const std::vector<RowRepeats>& rows, const SentenceFiles& files,
                ReportTable& table);

}  // namespace seqflow::report
