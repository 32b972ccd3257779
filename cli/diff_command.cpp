// `seqflow diff A B`: two run records (folders or ids under the records root) compared, as text
// on stdout, or as Markdown, JSON or an HTML page (engine/record/record_diff.h).
#include <cstdio>

#include "cli/commands.h"
#include "engine/base/log.h"
#include "engine/record/record_diff.h"
#include "engine/record/record_folder.h"
#include "engine/record/record_history.h"

namespace seqflow::cli {

int DiffCommand(const DiffArgs& args) {
  Env* env = Env::Default();
  const std::string root = RecordsRoot(args.records_root);
  std::vector<FoundRecord> found;
  std::vector<SentenceFiles> sentences;
  for (const std::string& ref : {args.a, args.b}) {
    Result<FoundRecord> record = ResolveRecord(ref, root, env);
    if (!record.ok()) {
      LogError(record.status().ToString());
      return 2;
    }
    sentences.push_back(ReadSentenceFiles(record->dir, record->record, env));
    found.push_back(std::move(record).value());
  }
  const RecordDiff diff = DiffRecords({found[0].id, &found[0].record, &sentences[0]},
                                      {found[1].id, &found[1].record, &sentences[1]});
  const std::string text = args.format == "md"     ? DiffMarkdown(diff)
                           : args.format == "json" ? DiffJson(diff)
                           : args.format == "html" ? DiffHtml(diff)
                                                   : DiffText(diff);
  if (args.file.empty()) {
    std::printf("%s", text.c_str());
    return 0;
  }
  if (Status written = env->WriteFileAtomic(args.file, text); !written.ok()) {
    LogError(written.ToString());
    return 1;
  }
  LogInfo("wrote " + args.file);
  return 0;
}

}  // namespace seqflow::cli
