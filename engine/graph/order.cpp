// Topological order (Kahn's algorithm, stable by file order) and cycle reporting.
#include <algorithm>
#include <functional>
#include <queue>

#include "engine/graph/build.h"

namespace seqflow::graph {
namespace {

std::vector<int> Predecessors(const BoundNode& node) {
  std::vector<int> out;
  for (const auto& input : node.inputs) out.insert(out.end(), input.sources.begin(), input.sources.end());
  return out;
}

// Every node left unordered waits on another unordered node, so walking back through unordered
// inputs from any of them must revisit a node: the walk's loop is a cycle.
Status CycleError(const std::vector<BoundNode>& nodes, const std::vector<int>& waiting) {
  int at = static_cast<int>(std::find_if(waiting.begin(), waiting.end(), [](int w) { return w > 0; }) -
                            waiting.begin());
  std::vector<int> walk;
  while (std::find(walk.begin(), walk.end(), at) == walk.end()) {
    walk.push_back(at);
    for (int pred : Predecessors(nodes[at])) {
      if (waiting[pred] > 0) {
        at = pred;
        break;
      }
    }
  }
  std::vector<int> cycle(std::find(walk.begin(), walk.end(), at), walk.end());
  std::reverse(cycle.begin(), cycle.end());  // walked against the data flow
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::string text;
  for (int i : cycle) text += nodes[i].spec->name + " -> ";
  text += nodes[cycle[0]].spec->name;
  return Status::Invalid("the inputs form a cycle: " + text + "; a node cannot depend on its own output",
                         nodes[cycle[0]].spec->loc);
}

}  // namespace

Result<std::vector<int>> TopologicalOrder(const std::vector<BoundNode>& nodes) {
  const int n = static_cast<int>(nodes.size());
  std::vector<int> waiting(n, 0);  // inputs not yet ordered, counted per edge
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (int pred : Predecessors(nodes[i])) {
      ++waiting[i];
      consumers[pred].push_back(i);
    }
  }
  // Ready nodes, smallest index (file order) on top; each enters once, when its last input is ordered.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int next = ready.top();
    ready.pop();
    order.push_back(next);
    for (int c : consumers[next])
      if (--waiting[c] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) < n) return CycleError(nodes, waiting);
  return order;
}

}  // namespace seqflow::graph
