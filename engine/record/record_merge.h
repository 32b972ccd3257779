// Several run records as one (`seqflow report A B ...`): their runs side by side in one table,
// each run's setting led by the record it comes from, so BuildReport's rows, means and paired
// p-values work across records as they do across one record's ablation settings.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "engine/record/report.h"
#include "engine/record/run_record.h"

namespace seqflow {

struct NamedRecord {
  std::string name;  // how the user named it; becomes the value of the runs' "record" key
  PipelineRecord record;
  SentenceFiles sentences;  // by path relative to the record's folder
};

struct MergedRecord {
  PipelineRecord record;
  SentenceFiles sentences;  // by the merged record's attachment files
};

// The runs of every record in order, each with "record" = its record's name added to its
// ablation (and axes); attachment files and sentence files are kept under "<k>/" for the k-th
// record (from 1) so that no two records' files meet. The pipeline is the records' pipelines
// joined by " + " when they differ; the repeat axis is kept when every record has the same one.
MergedRecord MergeRecords(const std::vector<NamedRecord>& records);

}  // namespace seqflow
