// The metrics of a run record as one long ("tidy") table — one row per run × node × metric, for
// every node that reports metrics, evaluator or not — which `seqflow report DIR` writes as
// DIR/metrics.csv and DIR/metrics.json for pandas, R or a spreadsheet. Pure: no files.
//
// Columns, in order:
//   run     the run's number from 1: its folder run-N/ and the log's "[run N/M]"
//   AXIS... one per ablation axis of the record (RunRecord::axes, by name; the repeat axis of a
//           repeated pipeline, e.g. `repeat`, is one of them and holds the seed). In a record
//           without axes (written before they were recorded) the ablation's NODE.FIELD keys
//           instead. An axis named like another column (run, node, kind, metric, value) is
//           written as `axis.NAME` (`axis.axis.NAME` if that too is taken). Each axis column is
//           numeric when every run's value of it is a finite number (the whole text, as
//           std::from_chars reads it: "0.05", "1e-3", "3"), else string; a run without the axis
//           leaves it empty.
//   node    the node's name
//   kind    its kind
//   metric  the metric's name as the node reports it (eval.compare: f1.SYSTEM, p_f1.SYSTEM, ...)
//   value   the number, in the shortest text that reads back to the same double; empty when not
//           finite
// Rows: runs in record order, then nodes by name, then metrics by name.
//
// metrics.csv (TidyCsv): RFC 4180 — a header line, then one line per row, fields separated by
// commas, a field quoted ("...", an inner quote doubled) when it holds a comma, a quote, CR or
// LF; lines end in LF. Numeric axes are written as numbers (the shortest text of the value).
// pandas.read_csv("DIR/metrics.csv") gives numeric axes and `value` int64 or float64 and the
// other columns object. Its default float parser may miss a value by one unit in the last place;
// float_precision="round_trip" reads every number exactly. It reads some texts as missing (NA,
// null, nan, ...) and a column of only True/False as bool; keep_default_na=False and
// dtype={AXIS: str} keep the text.
// metrics.json (TidyJson): a JSON array of objects, one per row, keys as the columns in column
// order; numeric axes and `value` as JSON numbers (integers when integral), string axes as
// strings, missing and non-finite as null.
// Thread safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/record/run_record.h"

namespace seqflow {

struct TidyAxis {
  std::string name;    // as the record names it
  std::string column;  // its column's name: the name, or prefixed with "axis." (see above)
  bool numeric = false;
};

struct TidyRow {
  size_t run = 0;                                // from 1
  std::vector<std::optional<std::string>> axes;  // the run's value of each TidyTable::axes, as recorded
  std::string node, kind, metric;
  double value = 0;
};

struct TidyTable {
  std::vector<TidyAxis> axes;
  std::vector<TidyRow> rows;
};

// The fixed columns, which axis columns must not shadow.
inline constexpr const char* kTidyFixedColumns[] = {"run", "node", "kind", "metric", "value"};

TidyTable BuildTidyTable(const PipelineRecord& record);

// metrics.csv and metrics.json text (formats above).
std::string TidyCsv(const TidyTable& table);
std::string TidyJson(const TidyTable& table);

}  // namespace seqflow
