// Where a run record goes, so that records are never mixed (what `seqflow run` writes, and what
// `seqflow runs` and `seqflow diff` find again).
//
// Without --out, each invocation's record is a folder of its own,
//   <root>/<pipeline name>/<started>-<id>/      e.g. out/demo/20261207T061500Z-3fa9c1/
// (root: `seqflow run --records ROOT`, else $SEQFLOW_RECORDS, else `out` in the working folder;
// started: the UTC start to the second; id: six random hex digits, so two runs started in one
// second by two processes do not meet), and <root>/<pipeline name>/latest links to the newest.
// With --out DIR, DIR must be new, empty, or hold one earlier record that the user lets go
// (--replace): then the earlier record is removed whole before the new one is written. A folder
// holding any file the record did not write is never cleared: the user's files are not ours.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "engine/base/env.h"
#include "engine/record/run_record.h"

namespace seqflow {

// The link, in <root>/<pipeline name>/, to the pipeline's newest record.
inline constexpr const char* kLatestRecord = "latest";

// `flag` when set, else $SEQFLOW_RECORDS when set, else "out".
std::string RecordsRoot(const std::string& flag);

// "20261207T061500Z-3fa9c1" from "2026-12-07T06:15:00Z" and a random number (its low 24 bits).
std::string RecordFolderName(const std::string& started_utc, uint64_t random);

// Every file that `record`'s run and `seqflow report` write into its folder, relative to it:
// summary.json, each run's resolved.yaml and attachments, the report's tables and pages, and the
// SVG of every table attachment. Learning curves (curve.<metric>.svg) are matched by pattern
// (IsRecordFile).
std::set<std::string> RecordFiles(const PipelineRecord& record);

// True when `path` (relative to the record's folder) is one of `files` or a learning curve.
bool IsRecordFile(const std::set<std::string>& files, const std::string& path);

// Whether `dir` may receive a new record: OK when it does not exist or is empty, or when it holds
// a readable record made only of the record's own files and `replace` is set. Otherwise kInvalid,
// naming what is there and what to do.
Status CheckRecordFolder(const std::string& dir, bool replace, Env* env);

// Removes the record in `dir` file by file (its run folders once empty); `dir` stays. Nothing when
// `dir` holds no record; CheckRecordFolder's error when a file there is not the record's.
Status ClearRecordFolder(const std::string& dir, Env* env);

}  // namespace seqflow
