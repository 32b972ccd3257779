#include "engine/record/record_folder.h"

#include <fmt/format.h>

#include <cstdlib>
#include <vector>

namespace seqflow {
namespace {

constexpr const char* kReportFiles[] = {"report.md", "report.csv", "report.html", "metrics.csv", "metrics.json"};

// "run-1/path.path.csv" -> "run-1/path.path.svg": where `seqflow report --plots` draws a table.
std::string SvgOf(const std::string& csv) {
  const size_t dot = csv.rfind('.');
  const size_t slash = csv.rfind('/');
  return (dot != std::string::npos && (slash == std::string::npos || dot > slash) ? csv.substr(0, dot) : csv) + ".svg";
}

// The files under `dir`, relative to it, folders entered (a record's are one level deep).
Status ListFiles(const std::string& dir, const std::string& prefix, Env* env, std::vector<std::string>& files) {
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDir(dir));
  for (const std::string& name : names) {
    const std::string path = JoinPath(dir, name);
    SEQFLOW_ASSIGN_OR_RETURN(FileStat st, env->Stat(path));
    if (st.is_dir)
      SEQFLOW_RETURN_IF_ERROR(ListFiles(path, prefix + name + "/", env, files));
    else
      files.push_back(prefix + name);
  }
  return Status::Ok();
}

}  // namespace

std::string RecordsRoot(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("SEQFLOW_RECORDS");
  return env != nullptr && *env != '\0' ? env : "out";
}

std::string RecordFolderName(const std::string& started_utc, uint64_t random) {
  std::string compact;
  for (char c : started_utc)
    if (c != '-' && c != ':') compact += c;
  return fmt::format("{}-{:06x}", compact, random & 0xffffff);
}

std::set<std::string> RecordFiles(const PipelineRecord& record) {
  std::set<std::string> files{"summary.json"};
  files.insert(std::begin(kReportFiles), std::end(kReportFiles));
  const size_t runs = record.runs.size();
  for (size_t r = 0; r < runs; ++r) {
    files.insert(AttachmentPath(r, runs, "resolved", "yaml"));  // the run's resolved.yaml
    for (const auto& [name, node] : record.runs[r].nodes)
      for (const std::string& suffix : node.attachments) {
        const std::string path = AttachmentFile(record, r, name, suffix);
        files.insert(path);
        files.insert(SvgOf(path));
        files.insert(SvgOf(AttachmentPath(0, 1, name, suffix)));  // every run's lines in one plot
      }
  }
  return files;
}

bool IsRecordFile(const std::set<std::string>& files, const std::string& path) {
  const bool curve = path.rfind("curve.", 0) == 0 && path.size() > 10 && path.ends_with(".svg") &&
                     path.find('/') == std::string::npos;
  return curve || files.count(path) > 0;
}

Status CheckRecordFolder(const std::string& dir, bool replace, Env* env) {
  if (!env->Exists(dir)) return Status::Ok();
  std::vector<std::string> present;
  SEQFLOW_RETURN_IF_ERROR(ListFiles(dir, "", env, present));
  if (present.empty()) return Status::Ok();
  if (!env->Exists(JoinPath(dir, "summary.json")))
    return Status::Invalid(fmt::format("--out {} holds files but no run record ({} among them): choose a new or "
                                       "empty folder for the record",
                                       dir, present.front()));
  Result<PipelineRecord> earlier = ReadRunRecord(dir, env);
  if (!earlier.ok())
    return earlier.status().Annotate("--out " + dir + " holds a run record that cannot be read; remove it by hand or "
                                     "choose another --out");
  const std::set<std::string> files = RecordFiles(*earlier);
  for (const std::string& path : present)
    if (!IsRecordFile(files, path))
      return Status::Invalid(fmt::format("--out {} holds the record of a run of '{}' and {}, which is not part of "
                                         "it: move that file away or choose another --out",
                                         dir, earlier->pipeline, path));
  if (!replace) {
    const std::string started = earlier->invocation.started.empty() ? "" : ", started " + earlier->invocation.started;
    return Status::Invalid(fmt::format("--out {} holds the record of an earlier run of '{}'{}: pass --replace to "
                                       "remove it, or choose another --out (without --out, each run's record "
                                       "gets a folder of its own)",
                                       dir, earlier->pipeline, started));
  }
  return Status::Ok();
}

Status ClearRecordFolder(const std::string& dir, Env* env) {
  if (!env->Exists(JoinPath(dir, "summary.json"))) return Status::Ok();
  SEQFLOW_RETURN_IF_ERROR(CheckRecordFolder(dir, /*replace=*/true, env));
  std::vector<std::string> present;
  SEQFLOW_RETURN_IF_ERROR(ListFiles(dir, "", env, present));
  std::set<std::string> folders;
  // summary.json last: a record interrupted while it goes is still recognised, and cleared, next time.
  for (const std::string& path : present) {
    if (path == "summary.json") continue;
    SEQFLOW_RETURN_IF_ERROR(env->RemoveFile(JoinPath(dir, path)));
    if (const size_t slash = path.find('/'); slash != std::string::npos) folders.insert(path.substr(0, slash));
  }
  for (const std::string& folder : folders) SEQFLOW_RETURN_IF_ERROR(env->RemoveDir(JoinPath(dir, folder)));
  return env->RemoveFile(JoinPath(dir, "summary.json"));
}

}  // namespace seqflow
