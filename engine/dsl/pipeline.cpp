// ParsePipelineFile / ParsePipelineText: includes, --set, ${var} expansion, checks.
#include <cctype>
#include <filesystem>

#include "engine/dsl/document.h"
#include "engine/dsl/overrides.h"
#include "engine/dsl/sections.h"
#include "engine/dsl/spec.h"
#include "engine/dsl/vars.h"

namespace seqflow {
namespace {

using dsl::VarScope;

Status ExpandRaw(RawParam& raw, VarScope& vars) {
  if (!raw.is_list) {
    SEQFLOW_ASSIGN_OR_RETURN(raw.scalar, vars.Expand(raw.scalar, raw.loc));
    return Status::Ok();
  }
  for (auto& item : raw.items) {
    SEQFLOW_ASSIGN_OR_RETURN(item, vars.Expand(item, raw.loc));
  }
  return Status::Ok();
}

Status ExpandNode(NodeSpec& node, VarScope& vars) {
  SEQFLOW_ASSIGN_OR_RETURN(node.kind, vars.Expand(node.kind, node.kind_loc));
  for (auto& input : node.inputs) {
    SEQFLOW_ASSIGN_OR_RETURN(input.source, vars.Expand(input.source, input.loc));
  }
  for (auto& [name, raw] : node.params) SEQFLOW_RETURN_IF_ERROR(ExpandRaw(raw, vars));
  return Status::Ok();
}

Status ExpandAblations(std::vector<AblationAxis>& axes, VarScope& vars) {
  for (auto& axis : axes)
    for (auto& target : axis.targets)
      for (auto& value : target.values) SEQFLOW_RETURN_IF_ERROR(ExpandRaw(value, vars));
  return Status::Ok();
}

// Node overrides are applied after expansion, their own values expanded in the same scope.
Status ApplyNodeOverrides(std::vector<dsl::SetOverride>& sets, VarScope& vars, PipelineSpec& spec) {
  for (auto& set : sets) {
    if (set.node.empty()) continue;
    SEQFLOW_RETURN_IF_ERROR(ExpandRaw(set.value, vars));
    dsl::ApplyField(*spec.FindNode(set.node), set.field, set.value);
    spec.set_fields.push_back(set.node + "." + set.field);
  }
  return Status::Ok();
}

// The name is a folder of the run records (out/<name>/...): a '/' or a leading '.' would put them
// outside it.
bool IsPipelineName(const std::string& name) {
  if (name.empty() || name[0] == '.' || name[0] == '-') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

Result<std::string> PipelineName(const dsl::VarDef& name, const std::string& path, VarScope& vars) {
  if (name.text.empty()) {
    std::string stem = std::filesystem::path(path).stem().string();
    if (IsPipelineName(stem)) return stem;
    return Status::Invalid("the pipeline is named after its file, '" + stem +
                               "', which names the folder of its run records: give it a 'name:' of letters, digits, "
                               "'.', '_' and '-'",
                           SourceLoc{path});
  }
  SEQFLOW_ASSIGN_OR_RETURN(std::string expanded, vars.Expand(name.text, name.loc));
  if (IsPipelineName(expanded)) return expanded;
  return Status::Invalid("pipeline name '" + expanded +
                             "' may hold only letters, digits, '.', '_' and '-', not first '.' or '-' (it names the "
                             "folder of its run records)",
                         name.loc);
}

}  // namespace

const NodeSpec* PipelineSpec::FindNode(const std::string& node_name) const {
  for (const auto& node : nodes)
    if (node.name == node_name) return &node;
  return nullptr;
}

NodeSpec* PipelineSpec::FindNode(const std::string& node_name) {
  return const_cast<NodeSpec*>(static_cast<const PipelineSpec*>(this)->FindNode(node_name));
}

Result<PipelineSpec> ParsePipelineText(const std::string& text, const std::string& path, const Overrides& overrides,
                                       Env* env) {
  PipelineSpec spec;
  spec.file = ResolvePath(".", path);
  spec.dir = DirName(spec.file);
  const std::string data_default = dsl::DefaultDataDir(spec.dir, env);
  VarScope env_vars({}, data_default);
  dsl::IncludeChain chain{.files = {{spec.file, path}}};
  SEQFLOW_ASSIGN_OR_RETURN(dsl::RawDoc doc, dsl::ReadDocument(text, chain, env, env_vars));
  if (doc.nodes.empty())
    return Status::Invalid("the pipeline has no nodes; add nodes: {NAME: {kind: KIND, ...}}", SourceLoc{path, 0, 0});
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<dsl::SetOverride> sets, dsl::ParseOverrides(overrides, doc));
  for (const auto& set : sets)
    if (!set.var.empty()) doc.vars[set.var] = dsl::VarDef{set.value.scalar, set.value.loc};

  VarScope vars(doc.vars, data_default);
  SEQFLOW_ASSIGN_OR_RETURN(spec.vars, vars.ExpandAll());
  SEQFLOW_ASSIGN_OR_RETURN(spec.name, PipelineName(doc.name, path, vars));
  for (auto& node : doc.nodes) SEQFLOW_RETURN_IF_ERROR(ExpandNode(node, vars));
  SEQFLOW_RETURN_IF_ERROR(ExpandAblations(doc.ablations, vars));
  spec.nodes = std::move(doc.nodes);
  spec.ablations = std::move(doc.ablations);
  if (doc.repeat) {
    SEQFLOW_RETURN_IF_ERROR(ExpandRaw(doc.repeat->value, vars));
    SEQFLOW_ASSIGN_OR_RETURN(spec.repeat, dsl::ResolveRepeat(*doc.repeat));
  }
  SEQFLOW_RETURN_IF_ERROR(ApplyNodeOverrides(sets, vars, spec));
  SEQFLOW_RETURN_IF_ERROR(dsl::CheckAblationTargets(spec));
  SEQFLOW_RETURN_IF_ERROR(dsl::CheckRepeatAxis(spec));
  return spec;
}

Result<PipelineSpec> ParsePipelineFile(const std::string& path, const Overrides& overrides, Env* env) {
  Result<std::string> text = dsl::ReadPipelineFile(env, ResolvePath(".", path), "pipeline '" + path + "'");
  if (!text.ok()) return text.status();
  return ParsePipelineText(*text, path, overrides, env);
}

}  // namespace seqflow
