// `seqflow graph PIPELINE.yaml [--svg OUT.svg]`: the DAG of the pipeline's first run as Graphviz
// dot on stdout, or drawn as SVG — by Graphviz when `dot` is installed, else by our own layout.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "engine/base/log.h"
#include "engine/cli/commands.h"
#include "engine/graph/graph_svg.h"

namespace seqflow::cli {
namespace {

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path == nullptr ? "" : path;
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = std::min(dirs.find(':', start), dirs.size());
    std::string dir = end == start ? "." : dirs.substr(start, end - start);
    if (::access(JoinPath(dir, program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string ShellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Graphviz writes the file itself: feeding it on stdin avoids a temporary file.
Status WriteWithDot(const std::string& dot_text, const std::string& out_file) {
  std::string command = "dot -Tsvg -o " + ShellQuoted(out_file);
  FILE* pipe = ::popen(command.c_str(), "w");
  if (pipe == nullptr) return Status::Io("cannot start `" + command + "`");
  size_t written = std::fwrite(dot_text.data(), 1, dot_text.size(), pipe);
  int status = ::pclose(pipe);
  if (written != dot_text.size() || status != 0)
    return Status::Io("`" + command + "` failed (exit status " + std::to_string(status) + ")");
  return Status::Ok();
}

}  // namespace

int GraphCommand(const PipelineArgs& args, const std::string& svg_file) {
  Env* env = Env::Default();
  FileHasher hasher(env);
  std::optional<Pipeline> pipeline = LoadPipelineOrLog(args, env, hasher);
  if (!pipeline) return 2;
  const Dag& dag = pipeline->runs.front().dag;
  if (svg_file.empty()) {
    std::printf("%s", ToDot(dag, pipeline->name).c_str());
    return 0;
  }
  bool graphviz = OnPath("dot");
  Status written = graphviz ? WriteWithDot(ToDot(dag, pipeline->name), svg_file)
                            : env->WriteFileAtomic(svg_file, GraphSvg(ShapeOf(dag)));
  if (!written.ok()) {
    LogError(written.ToString());
    return 1;
  }
  LogInfo("wrote " + svg_file + (graphviz ? " (Graphviz dot)" : " (built-in layout; install graphviz for dot's)"));
  return 0;
}

}  // namespace seqflow::cli
