#include "cli/session.h"

#include <cstdlib>

#include "engine/base/log.h"
#include "engine/cache/cache.h"
#include "nodes/registry.h"

namespace seqflow::cli {

const Registry& TheRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();  // never deleted: lives for the process
    RegisterAllNodes(*r);
    return r;
  }();
  return *registry;
}

Result<Pipeline> LoadPipeline(const PipelineArgs& args, Env* env, FileHasher& hasher) {
  SEQFLOW_ASSIGN_OR_RETURN(PipelineSpec spec, ParsePipelineFile(args.path, Overrides{args.sets}, env));
  // An unknown kind takes the seed, so that BuildDag reports the kind rather than repeat: a
  // missing seeded node.
  auto takes_seed = [](const std::string& kind) {
    const KindSpec* k = TheRegistry().FindKind(kind);
    return k == nullptr || k->FindParam("seed") != nullptr;
  };
  Pipeline pipeline;
  pipeline.name = spec.name;
  pipeline.repeated = spec.repeat.has_value();
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<RunVariant> variants,
                           ExpandAblations(std::move(spec), args.ablation, takes_seed, args.max_node_instances));
  for (auto& variant : variants) {
    SEQFLOW_ASSIGN_OR_RETURN(Dag dag, BuildDag(variant.spec, TheRegistry(), hasher));
    variant.spec = PipelineSpec();  // the Dag holds all a command needs of it
    pipeline.runs.push_back({std::move(variant), std::move(dag)});
  }
  return pipeline;
}

std::optional<Pipeline> LoadPipelineOrLog(const PipelineArgs& args, Env* env, FileHasher& hasher,
                                          const std::set<std::string>& forced) {
  Result<Pipeline> pipeline = LoadPipeline(args, env, hasher);
  Status status = pipeline.ok() ? CheckForcedNodes(*pipeline, forced) : pipeline.status();
  if (!status.ok()) {
    LogError(status.ToString());
    return std::nullopt;
  }
  return std::move(pipeline).value();
}

Status CheckForcedNodes(const Pipeline& pipeline, const std::set<std::string>& forced) {
  if (pipeline.runs.empty()) return Status::Ok();
  // Ablations change kinds and parameters, never names: the first run has every node.
  const Dag& dag = pipeline.runs.front().dag;
  for (const std::string& name : forced) {
    if (dag.Find(name) >= 0) continue;
    std::vector<std::string> names;
    for (const DagNode& node : dag.nodes) names.push_back(node.name);
    const std::string near = NearestName(name, names);
    return Status::Invalid("--force '" + name + "': pipeline '" + pipeline.name + "' has no node of that name" +
                           (near.empty() ? "" : " — did you mean '" + near + "'?"));
  }
  return Status::Ok();
}

std::string CacheDir(const std::string& flag) { return flag.empty() ? Cache::DefaultDir() : flag; }

}  // namespace seqflow::cli
