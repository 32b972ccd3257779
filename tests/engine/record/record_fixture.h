// Run records for the record tests, written as summary.json text and read with ParseRunRecord,
// so every test also goes through the one reader.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/record/run_record.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {

// summary.json's "kinds" member declaring eval.segments and eval.tokens as the evaluators they
// are registered as (nodes/eval), for records whose nodes use those kinds.
inline constexpr char kEvaluatorKinds[] = R"("kinds": {
  "eval.segments": {"role": "evaluator", "headline": ["f1", "precision", "recall", "accuracy"],
                    "attachments": [{"suffix": "sentences.csv", "type": "sentence_counts"}]},
  "eval.tokens": {"role": "evaluator", "headline": ["accuracy"],
                  "attachments": [{"suffix": "sentences.csv", "type": "sentence_counts"}]}})";

// The record in `json`; an empty one (and a failed expectation) when it does not parse.
inline PipelineRecord ParseRecord(const std::string& json) {
  Result<PipelineRecord> record = ParseRunRecord(json, "summary.json");
  EXPECT_OK(record);
  return record.ok() ? *record : PipelineRecord{};
}

}  // namespace seqflow::testkit
