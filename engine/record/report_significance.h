// The p-values of the comparison tables (internal to engine/record; the rules are in report.h).
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/record/report.h"
#include "engine/record/report_rows.h"

namespace seqflow::report {

// What a cell is tested on: the node whose per-sentence counts hold it, and its metric.
struct CellSource {
  std::string node;
  std::string metric;
};
// The source of cell [row][column]; nullopt for a cell that is not tested this way.
using CellSourceOf = std::function<std::optional<CellSource>(size_t row, size_t column)>;

// Sets ReportCell::p of every cell that can be tested against its column's reference row — the
// first row with the highest mean among the rows whose cell has a source — and table.has_p.
// A node's statistics are the file of its kind's declared kSentenceCounts attachment; rows[r]
// holds the runs of table.rows[r], paired with the reference row's by repetition id.
// REQUIRES: rows.size() == table.rows.size().
void AddPValues(const PipelineRecord& record, const std::vector<RowRepeats>& rows, const CellSourceOf& source,
                const SentenceFiles& files, ReportTable& table);

}  // namespace seqflow::report
