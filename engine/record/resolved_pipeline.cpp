#include "engine/record/resolved_pipeline.h"

#include <map>
#include <nlohmann/json.hpp>
#include <variant>
#include <vector>

#include "engine/api/params.h"

namespace seqflow {
namespace {

// A YAML scalar: a string double-quoted (a JSON string is a valid YAML one), a number or Boolean
// as itself.
std::string Scalar(const std::string& s) { return nlohmann::json(s).dump(); }
std::string Scalar(bool b) { return b ? "true" : "false"; }
std::string Scalar(int64_t i) { return std::to_string(i); }
std::string Scalar(double d) { return ReadableParamText(FormatParamValue(ParamValue(d))); }

std::string ValueText(const ParamValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>> || std::is_same_v<T, std::vector<double>>) {
          std::string out = "[";
          for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Scalar(v[i]);
          return out + "]";
        } else {
          return Scalar(v);
        }
      },
      value);
}

// Parameters sorted by dotted name, written as nested maps at `indent`; `prefix` is the enclosing
// map's dotted name with its dot.
void WriteParams(const std::vector<std::pair<std::string, const ParamValue*>>& params, size_t begin, size_t end,
                 const std::string& prefix, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  for (size_t i = begin; i < end;) {
    const std::string rest = params[i].first.substr(prefix.size());
    const size_t dot = rest.find('.');
    if (dot == std::string::npos) {
      out += pad + rest + ": " + ValueText(*params[i].second) + "\n";
      ++i;
      continue;
    }
    const std::string group = prefix + rest.substr(0, dot + 1);
    size_t j = i;
    while (j < end && params[j].first.compare(0, group.size(), group) == 0) ++j;
    out += pad + rest.substr(0, dot) + ":\n";
    WriteParams(params, i, j, group, indent + 2, out);
    i = j;
  }
}

}  // namespace

std::string ResolvedPipelineYaml(const std::string& pipeline_name, const Dag& dag) {
  std::string out =
      "# The pipeline as this run ran it: vars, includes, --set and the run's ablation values applied;\n"
      "# every node's kind, inputs and parameters, defaults included (seqflow run record).\n"
      "name: " +
      Scalar(pipeline_name) + "\nnodes:\n";
  for (const DagNode& node : dag.nodes) {
    out += "  " + node.name + ":\n    kind: " + node.kind->name + "\n";
    // The role and its waivers, so that running this file checks the data roles as the run did.
    if (node.role != DataRole::kNone)
      out += std::string("    role: ") + (node.role == DataRole::kTest ? "test" : "dev") + "\n";
    if (node.oracle) out += "    oracle: true\n";
    if (node.transductive) out += "    transductive: true\n";
    if (!node.inputs.empty()) {
      out += "    in: {";
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const DagInput& input = node.inputs[i];
        out += (i ? ", " : "") + input.port + ": ";
        std::vector<std::string> sources;
        for (int s : input.sources) sources.push_back(dag.nodes[static_cast<size_t>(s)].name);
        if (sources.size() == 1) {
          out += sources[0];
        } else {
          out += "[";
          for (size_t k = 0; k < sources.size(); ++k) out += (k ? ", " : "") + sources[k];
          out += "]";
        }
      }
      out += "}\n";
    }
    // An empty string is a parameter left unset (the language has no way to write one), which
    // the file leaves unset too.
    std::vector<std::pair<std::string, const ParamValue*>> params;
    for (const auto& [name, value] : node.params.values()) {
      const auto* text = std::get_if<std::string>(&value);
      if (text == nullptr || !text->empty()) params.push_back({name, &value});
    }
    WriteParams(params, 0, params.size(), "", 4, out);
  }
  return out;
}

}  // namespace seqflow
