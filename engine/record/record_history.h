// The run records kept under a records root (record_folder.h), found again: what `seqflow runs`
// lists and what `seqflow diff` and `seqflow report A B` are given by id.
//
// A record's id is its folder relative to the root: "<pipeline>/<started>-<hex>" for the folders
// runs make there, or any other folder under the root that holds a summary.json (an --out inside
// it). A reference to a record (ResolveRecord) is a folder holding summary.json, or an id, or the
// end of one — the folder name, a unique prefix of it, "<pipeline>/latest", or a pipeline's name
// alone for its newest record; "<pipeline>~N" (or "<pipeline>/latest~N") is the N-th before the
// newest.
// Thread safety: functions of their arguments and the files they read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/record/report.h"
#include "engine/record/run_record.h"

namespace seqflow {

struct FoundRecord {
  std::string dir;  // the record's folder
  std::string id;   // relative to the root; the folder itself when it lies outside the root
  PipelineRecord record;
  int64_t written_ns = 0;  // summary.json's modification time: orders records started in one second
};

struct RecordScan {
  std::vector<FoundRecord> records;  // newest first: by invocation start, then by when written
  std::vector<Status> unreadable;    // summary.json files that could not be read, with why
};

// The evaluators' per-sentence count files of the record in `dir`, by path relative to it;
// unreadable ones are left out (their comparisons get no p-value).
SentenceFiles ReadSentenceFiles(const std::string& dir, const PipelineRecord& record, Env* env);

// Every record up to two folders below `root` (links such as `latest` are not followed twice);
// an empty scan when `root` does not exist.
RecordScan FindRecords(const std::string& root, Env* env);

// The record `ref` names (see above). kNotFound naming the root when nothing matches, kInvalid
// listing the candidates when an id's end matches several.
Result<FoundRecord> ResolveRecord(const std::string& ref, const std::string& root, Env* env);

}  // namespace seqflow
