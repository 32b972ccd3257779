// `seqflow graph PIPELINE.yaml [--svg OUT.svg]`: the DAG of the pipeline's first run as Graphviz
// dot on stdout, or drawn as SVG (Graphviz's dot layout, in process: engine/graph/graph_svg.h).
#include <cstdio>

#include "cli/commands.h"
#include "cli/huge_pages.h"
#include "engine/base/log.h"
#include "engine/graph/graph_svg.h"

namespace seqflow::cli {

int GraphCommand(const PipelineArgs& args, const std::string& svg_file) {
  KeepFreedMemoryInTheHeap();
  Env* env = Env::Default();
  // The shape needs no data: a pipeline is drawn before its files exist.
  FileHasher hasher = FileHasher::ByName();
  std::optional<Pipeline> pipeline = LoadPipelineOrLog(args, env, hasher);
  if (!pipeline) return 2;
  const Dag& dag = pipeline->runs.front().dag;
  if (svg_file.empty()) {
    std::printf("%s", ToDot(dag, pipeline->name).c_str());
    return 0;
  }
  GraphShape shape = ShapeOf(dag);
  Result<GraphLayout> layout = LayoutGraph(shape);
  Status written = layout.ok() ? env->WriteFileAtomic(svg_file, GraphSvg(shape, *layout)) : layout.status();
  if (!written.ok()) {
    LogError(written.ToString());
    return 1;
  }
  LogInfo("wrote " + svg_file);
  return 0;
}

}  // namespace seqflow::cli
