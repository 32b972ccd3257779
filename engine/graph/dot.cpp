// Graphviz rendering of a Dag.
#include "engine/graph/dag.h"

namespace seqflow {
namespace {

void AppendEscaped(std::string& out, const std::string& s) {
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
}

std::string DotString(const std::string& s) {
  std::string out = "\"";
  AppendEscaped(out, s);
  out += '"';
  return out;
}

}  // namespace

std::string ToDot(const Dag& dag, const std::string& title) {
  std::string out = "digraph " + DotString(title) + " {\n  node [shape=box];\n";
  for (const auto& node : dag.nodes) {
    // "\n" is dot's line break inside a label, written as backslash-n.
    std::string label = "\"";
    AppendEscaped(label, node.name);
    label += "\\n";
    AppendEscaped(label, node.kind->name);
    label += '"';
    out += "  " + DotString(node.name) + " [label=" + label + "];\n";
  }
  for (const auto& node : dag.nodes) {
    for (const auto& input : node.inputs) {
      for (int source : input.sources)
        out += "  " + DotString(dag.nodes[source].name) + " -> " + DotString(node.name) + " [label=" +
               DotString(input.port) + "];\n";
    }
  }
  return out + "}\n";
}

}  // namespace seqflow
