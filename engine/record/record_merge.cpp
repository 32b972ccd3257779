#include "engine/record/record_merge.h"

namespace seqflow {

MergedRecord MergeRecords(const std::vector<NamedRecord>& records) {
  MergedRecord merged;
  PipelineRecord& out = merged.record;
  for (size_t k = 0; k < records.size(); ++k) {
    const PipelineRecord& record = records[k].record;
    const std::string prefix = std::to_string(k + 1) + "/";
    if (k == 0) {
      out.pipeline = record.pipeline;
      out.repeat_axis = record.repeat_axis;
    } else {
      if (out.pipeline != record.pipeline && out.pipeline.find(" + " + record.pipeline) == std::string::npos)
        out.pipeline += " + " + record.pipeline;
      if (out.repeat_axis != record.repeat_axis) out.repeat_axis.clear();
    }
    out.seconds += record.seconds;
    out.kinds.insert(record.kinds.begin(), record.kinds.end());
    for (size_t r = 0; r < record.runs.size(); ++r) {
      RunRecord run = record.runs[r];
      run.ablation["record"] = records[k].name;
      run.axes["record"] = records[k].name;
      for (auto& [name, node] : run.nodes) {
        node.files.resize(node.attachments.size());
        for (size_t a = 0; a < node.attachments.size(); ++a)
          node.files[a] = prefix + AttachmentFile(record, r, name, node.attachments[a]);
      }
      out.runs.push_back(std::move(run));
    }
    for (const auto& [path, text] : records[k].sentences) merged.sentences[prefix + path] = text;
  }
  return merged;
}

}  // namespace seqflow
