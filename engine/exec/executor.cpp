#include "engine/exec/executor.h"

#include <tbb/flow_graph.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>

#include "engine/base/log.h"
#include "engine/exec/node_runner.h"

namespace seqflow {

const char* NodeStatusName(NodeStatus s) {
  switch (s) {
    case NodeStatus::kComputed:
      return "computed";
    case NodeStatus::kCached:
      return "cached";
    case NodeStatus::kFailed:
      return "failed";
    case NodeStatus::kSkipped:
      return "skipped";
  }
  return "unknown";
}

bool RunResult::ok() const {
  return std::all_of(nodes.begin(), nodes.end(), [](const NodeOutcome& n) {
    return n.status == NodeStatus::kComputed || n.status == NodeStatus::kCached;
  });
}

Status RunResult::FirstError() const {
  // A node that stopped because the run was cancelled is a consequence; report the cause.
  const NodeOutcome* first = nullptr;
  for (const NodeOutcome& n : nodes) {
    if (n.status != NodeStatus::kFailed) continue;
    if (n.error.code() != StatusCode::kCancelled) return n.error;
    if (first == nullptr) first = &n;
  }
  return first != nullptr ? first->error : Status::Ok();
}

namespace {

using FlowNode = tbb::flow::continue_node<tbb::flow::continue_msg>;

// One continue_node per DAG node, one edge per distinct upstream node; a continue_node fires
// once every predecessor has signalled, which is exactly "all inputs ready".
void RunGraph(RunState& run) {
  tbb::flow::graph graph;
  std::vector<std::unique_ptr<FlowNode>> nodes;
  nodes.reserve(run.dag.nodes.size());
  for (size_t i = 0; i < run.dag.nodes.size(); ++i) {
    nodes.push_back(std::make_unique<FlowNode>(graph, [&run, i](const tbb::flow::continue_msg&) {
      RunNode(run, static_cast<int>(i));
      return tbb::flow::continue_msg();
    }));
  }
  std::vector<FlowNode*> roots;
  for (size_t i = 0; i < run.dag.nodes.size(); ++i) {
    std::vector<int> sources = SourcesOf(run.dag.nodes[i]);
    for (int s : sources) tbb::flow::make_edge(*nodes[s], *nodes[i]);
    if (sources.empty()) roots.push_back(nodes[i].get());
  }
  for (FlowNode* root : roots) root->try_put(tbb::flow::continue_msg());
  graph.wait_for_all();
}

void WarnUnknownForced(const Dag& dag, const std::set<std::string>& force) {
  for (const std::string& name : force) {
    bool found = std::any_of(dag.nodes.begin(), dag.nodes.end(), [&](const DagNode& n) { return n.name == name; });
    if (!found) LogWarning("--force " + name + ": the pipeline has no such node");
  }
}

}  // namespace

Dag NodeWithInputs(const Dag& dag, int index) {
  Dag sub;
  std::map<int, int> position;
  for (int source : SourcesOf(dag.nodes[index])) {
    DagNode input = dag.nodes[source];
    input.inputs.clear();
    position[source] = static_cast<int>(sub.nodes.size());
    sub.nodes.push_back(std::move(input));
  }
  DagNode node = dag.nodes[index];
  for (DagInput& input : node.inputs)
    for (int& source : input.sources) source = position.at(source);
  sub.nodes.push_back(std::move(node));
  return sub;
}

RunResult Execute(const Dag& dag, Cache& cache, ArtifactMemo& memo, Env* env, const ExecOptions& options) {
  auto start = std::chrono::steady_clock::now();
  WarnUnknownForced(dag, options.force);
  RunState run(dag, cache, memo, env, options);
  // The graph is built inside the arena so its tasks, and any parallel kernel a node calls, use
  // exactly `threads` workers.
  tbb::task_arena arena(std::max(1, options.threads));
  arena.execute([&run] { RunGraph(run); });
  run.publisher.Finish();
  RunResult result;
  result.nodes = std::move(run.outcomes);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace seqflow
