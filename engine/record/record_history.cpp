#include "engine/record/record_history.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <optional>

#include "engine/record/record_folder.h"

namespace seqflow {
namespace {

// The folders holding summary.json at `dir` and one or two levels below it, as ids relative to the
// root ("" for the root itself).
void CollectRecordDirs(const std::string& dir, const std::string& id, int depth, Env* env,
                       std::vector<std::string>& ids) {
  if (env->Exists(JoinPath(dir, "summary.json"))) {
    ids.push_back(id);
    return;
  }
  if (depth == 0) return;
  Result<std::vector<std::string>> names = env->ListDir(dir);
  if (!names.ok()) return;
  for (const std::string& name : *names) {
    if (name == kLatestRecord) continue;
    const std::string path = JoinPath(dir, name);
    Result<FileStat> st = env->Stat(path);
    if (st.ok() && st->is_dir) CollectRecordDirs(path, id.empty() ? name : id + "/" + name, depth - 1, env, ids);
  }
}

bool NewerFirst(const FoundRecord& a, const FoundRecord& b) {
  if (a.record.invocation.started != b.record.invocation.started)
    return a.record.invocation.started > b.record.invocation.started;
  return a.written_ns != b.written_ns ? a.written_ns > b.written_ns : a.id > b.id;
}

// The records whose id is `ref` or ends in "/<ref>", or whose folder name starts with `ref`.
std::vector<const FoundRecord*> Matching(const RecordScan& scan, const std::string& ref) {
  std::vector<const FoundRecord*> exact, prefix;
  for (const FoundRecord& found : scan.records) {
    const std::string name = BaseName(found.id);
    if (found.id == ref || found.id.ends_with("/" + ref))
      exact.push_back(&found);
    else if (name.rfind(ref, 0) == 0)
      prefix.push_back(&found);
  }
  return exact.empty() ? prefix : exact;
}

}  // namespace

SentenceFiles ReadSentenceFiles(const std::string& dir, const PipelineRecord& record, Env* env) {
  SentenceFiles files;
  for (const DeclaredAttachment& a : AttachmentsOf(record, AttachmentType::kSentenceCounts))
    if (Result<std::string> text = env->ReadFile(JoinPath(dir, a.path)); text.ok()) files[a.path] = *text;
  return files;
}

RecordScan FindRecords(const std::string& root, Env* env) {
  std::vector<std::string> ids;
  CollectRecordDirs(root, "", 2, env, ids);
  // Parsing the summaries is the whole cost of a long history: they are read on every core.
  std::vector<std::optional<Result<PipelineRecord>>> read(ids.size());
  std::vector<int64_t> written(ids.size(), 0);
  tbb::parallel_for(size_t{0}, ids.size(), [&](size_t i) {
    const std::string dir = ids[i].empty() ? root : JoinPath(root, ids[i]);
    read[i] = ReadRunRecord(dir, env);
    if (Result<FileStat> st = env->Stat(JoinPath(dir, "summary.json")); st.ok()) written[i] = st->mtime_ns;
  });
  RecordScan scan;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!read[i]->ok()) {
      scan.unreadable.push_back(read[i]->status());
      continue;
    }
    const std::string dir = ids[i].empty() ? root : JoinPath(root, ids[i]);
    scan.records.push_back({dir, ids[i].empty() ? root : ids[i], std::move(*read[i]).value(), written[i]});
  }
  std::sort(scan.records.begin(), scan.records.end(), NewerFirst);
  return scan;
}

Result<FoundRecord> ResolveRecord(const std::string& ref, const std::string& root, Env* env) {
  if (env->Exists(JoinPath(ref, "summary.json"))) {
    SEQFLOW_ASSIGN_OR_RETURN(PipelineRecord record, ReadRunRecord(ref, env));
    return FoundRecord{ref, ref, std::move(record), 0};
  }
  // "<pipeline>/latest", or a pipeline's name: its newest record; with "~N", the N-th before it.
  std::string wanted = ref;
  size_t back = 0;
  if (const size_t tilde = wanted.rfind('~'); tilde != std::string::npos &&
      wanted.find_first_not_of("0123456789", tilde + 1) == std::string::npos && tilde + 1 < wanted.size()) {
    back = std::stoul(wanted.substr(tilde + 1));
    wanted.resize(tilde);
  }
  const std::string latest = "/" + std::string(kLatestRecord);
  const bool by_folder = wanted.ends_with(latest);
  if (by_folder) wanted.resize(wanted.size() - latest.size());
  const RecordScan scan = FindRecords(root, env);
  size_t seen = 0;
  for (const FoundRecord& found : scan.records)
    if (found.record.pipeline == wanted || (by_folder && found.id.rfind(wanted + "/", 0) == 0))
      if (seen++ == back) return found;
  if (seen > 0)
    return Status::NotFound("'" + ref + "': " + wanted + " has " + std::to_string(seen) + " run records under " + root);
  const std::vector<const FoundRecord*> matches = Matching(scan, ref);
  if (matches.size() == 1) return *matches.front();
  if (matches.empty())
    return Status::NotFound("no run record '" + ref + "': not a folder with a summary.json, nor an id under " + root +
                            " (seqflow runs lists them)");
  std::string ids;
  for (const FoundRecord* found : matches) ids += (ids.empty() ? "" : ", ") + found->id;
  return Status::Invalid("'" + ref + "' names " + std::to_string(matches.size()) + " run records (" + ids +
                         "): give more of the id");
}

}  // namespace seqflow
