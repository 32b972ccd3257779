// The `ablations:` section and the runs it asks for.
#include <algorithm>

#include "engine/api/registry.h"
#include "engine/dsl/sections.h"

namespace seqflow::dsl {
namespace {

Result<RawParam> AblationValue(const YamlNode& item, const std::string& file, const std::string& what, bool is_kind) {
  RawParam value;
  value.loc = LocOf(item, file);
  if (item.IsScalar()) {
    value.scalar = item.Scalar();
    return value;
  }
  bool scalar_items = item.IsSequence();
  for (const auto& x : item) scalar_items = scalar_items && x.IsScalar();
  if (!scalar_items || is_kind)
    return Status::Invalid("each value of " + what + " must be " +
                               (is_kind ? "a kind name" : "a single value or a list of single values") + ", got " +
                               ShapeName(item),
                           value.loc);
  value.is_list = true;
  for (const auto& x : item) value.items.push_back(x.Scalar());
  return value;
}

Result<AblationTarget> ParseTarget(const MapEntry& e, const std::string& axis, const std::string& file) {
  const std::string what = Quoted(e.key) + " in ablation axis " + Quoted(axis);
  AblationTarget target;
  target.loc = e.key_loc;
  size_t dot = e.key.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == e.key.size())
    return Status::Invalid("ablation target " + what + " must be NODE.FIELD, e.g. predicted.kind", e.key_loc);
  target.node = e.key.substr(0, dot);
  target.field = e.key.substr(dot + 1);
  if (target.field == "in")
    return Status::Invalid("ablations cannot change the inputs of a node (" + what +
                               "); vary its kind or parameters instead",
                           e.key_loc);
  if (!e.value.IsSequence() || e.value.size() == 0)
    return Status::Invalid("values of " + what + " must be a non-empty list, e.g. [a, b]; got " +
                               (e.value.IsSequence() ? std::string("an empty list") : ShapeName(e.value)),
                           e.value_loc);
  for (const auto& item : e.value) {
    SEQFLOW_ASSIGN_OR_RETURN(RawParam value, AblationValue(item, file, what, target.field == "kind"));
    target.values.push_back(std::move(value));
  }
  return target;
}

Result<AblationAxis> ParseAxis(const MapEntry& e, const std::string& file) {
  AblationAxis axis;
  axis.name = e.key;
  axis.loc = e.key_loc;
  if (!e.value.IsMap() || e.value.size() == 0)
    return Status::Invalid("ablation axis " + Quoted(e.key) + " must be a map NODE.FIELD -> [values], got " +
                               (e.value.IsMap() ? std::string("an empty map") : ShapeName(e.value)),
                           e.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(e.value, file, "ablation axis " + Quoted(e.key)));
  for (const auto& entry : entries) {
    SEQFLOW_ASSIGN_OR_RETURN(AblationTarget target, ParseTarget(entry, e.key, file));
    const AblationTarget& first = axis.targets.empty() ? target : axis.targets[0];
    if (target.values.size() != first.values.size())
      return Status::Invalid("ablation axis " + Quoted(e.key) + ": " + Quoted(first.node + "." + first.field) +
                                 " has " + std::to_string(first.values.size()) + " values but " +
                                 Quoted(target.node + "." + target.field) + " has " +
                                 std::to_string(target.values.size()) +
                                 "; the targets of an axis move together, give them the same number of values",
                             e.key_loc);
    axis.targets.push_back(std::move(target));
  }
  return axis;
}

std::string AxisNames(const std::vector<AblationAxis>& axes) {
  if (axes.empty()) return "this pipeline has no ablations";
  std::string out = "axes: ";
  for (size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + axes[i].name;
  return out;
}

Result<std::vector<const AblationAxis*>> SelectAxes(const PipelineSpec& spec, const std::string& axis) {
  std::vector<const AblationAxis*> selected;
  std::vector<std::string> names;
  for (const auto& a : spec.ablations) {
    names.push_back(a.name);
    if (axis.empty() || a.name == axis) selected.push_back(&a);
  }
  if (!axis.empty() && selected.empty()) {
    std::string near = NearestName(axis, names);
    return Status::Invalid("unknown ablation axis " + Quoted(axis) +
                           (near.empty() ? "" : " — did you mean " + Quoted(near) + "?") + " (" +
                           AxisNames(spec.ablations) + ")");
  }
  return selected;
}

// One run per value of `axis` for every run in `runs`; the existing runs vary slowest.
Result<std::vector<RunVariant>> Spread(const std::vector<RunVariant>& runs, const AblationAxis& axis) {
  std::vector<RunVariant> out;
  for (const auto& run : runs) {
    for (size_t i = 0; i < axis.size(); ++i) {
      RunVariant variant = run;
      for (const auto& target : axis.targets) {
        NodeSpec* node = variant.spec.FindNode(target.node);
        if (node == nullptr)
          return Status::Invalid("ablation axis " + Quoted(axis.name) + " names unknown node " + Quoted(target.node),
                                 target.loc);
        ApplyField(*node, target.field, target.values[i]);
        variant.assignment[target.node + "." + target.field] = RawText(target.values[i]);
      }
      if (!axis.targets.empty()) variant.axes[axis.name] = RawText(axis.targets.front().values[i]);
      out.push_back(std::move(variant));
    }
  }
  return out;
}

std::string Instances(size_t runs, size_t nodes) {
  return std::to_string(runs) + (runs == 1 ? " run" : " runs") + " of " + std::to_string(nodes) + " nodes";
}

// Refuses, before a run is built, a selection whose node instances (runs x nodes) pass `limit`,
// at the axis or repeat that passes it: products are checked step by step, so none overflows.
Status CheckExpansion(size_t nodes, const std::vector<AblationAxis>& selected, const std::optional<RepeatSpec>& repeat,
                      size_t limit) {
  const std::string fix = "; run one axis at a time (--ablation AXIS), use fewer values or seeds, or split the "
                          "pipeline into files that include a shared part";
  size_t runs = 1;
  auto over = [&](size_t factor) { return factor > 0 && runs > limit / factor / std::max<size_t>(nodes, 1); };
  for (const AblationAxis& axis : selected) {
    if (over(axis.size()))
      return Status::Invalid("ablation axis " + Quoted(axis.name) + " (" + std::to_string(axis.size()) +
                                 " values) takes the grid past " + std::to_string(limit) + " node instances (" +
                                 Instances(runs, nodes) + " before it)" + fix,
                             axis.loc);
    runs *= std::max<size_t>(axis.size(), 1);
  }
  if (repeat && over(repeat->seeds.size()))
    return Status::Invalid(repeat->written + " over " + Instances(runs, nodes) + " takes the pipeline past " +
                               std::to_string(limit) + " node instances (" +
                               std::to_string(repeat->seeds.size()) + " x " + std::to_string(runs) + " x " +
                               std::to_string(nodes) + ")" + fix,
                           repeat->loc);
  return Status::Ok();
}

}  // namespace

Result<std::vector<AblationAxis>> ParseAblations(const MapEntry& section, const std::string& file) {
  std::vector<AblationAxis> axes;
  if (section.value.IsNull()) return axes;
  if (!section.value.IsMap())
    return Status::Invalid("'ablations' must be a map of axis name -> {NODE.FIELD: [v1, v2], ...}, got " +
                               std::string(ShapeName(section.value)),
                           section.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(section.value, file, "'ablations'"));
  for (const auto& e : entries) {
    SEQFLOW_ASSIGN_OR_RETURN(AblationAxis axis, ParseAxis(e, file));
    axes.push_back(std::move(axis));
  }
  return axes;
}

Status CheckAblationTargets(const PipelineSpec& spec) {
  std::vector<std::string> names;
  for (const auto& n : spec.nodes) names.push_back(n.name);
  for (const auto& axis : spec.ablations) {
    for (const auto& target : axis.targets) {
      if (spec.FindNode(target.node) != nullptr) continue;
      std::string near = NearestName(target.node, names);
      return Status::Invalid("ablation axis " + Quoted(axis.name) + " names unknown node " + Quoted(target.node) +
                                 (near.empty() ? "" : " — did you mean " + Quoted(near) + "?"),
                             target.loc);
    }
  }
  return Status::Ok();
}

}  // namespace seqflow::dsl

namespace seqflow {

Result<std::vector<RunVariant>> ExpandAblations(PipelineSpec spec, const std::string& axis,
                                                const TakesSeed& takes_seed, size_t max_instances) {
  const bool repeat_only = spec.repeat && axis == kRepeatAxis;
  std::vector<AblationAxis> selected;
  if (!repeat_only) {
    SEQFLOW_ASSIGN_OR_RETURN(std::vector<const AblationAxis*> chosen, dsl::SelectAxes(spec, axis));
    for (const AblationAxis* a : chosen) selected.push_back(*a);
  }
  SEQFLOW_RETURN_IF_ERROR(dsl::CheckExpansion(spec.nodes.size(), selected, spec.repeat, max_instances));
  for (const AblationAxis& a : selected)
    for (const AblationTarget& target : a.targets) {
      const std::string field = target.node + "." + target.field;
      if (std::find(spec.set_fields.begin(), spec.set_fields.end(), field) != spec.set_fields.end())
        return Status::Invalid("--set " + field + " would be ignored: ablation axis '" + a.name +
                                   "' sets " + field + " in every run; drop the --set, or run another axis with "
                                   "--ablation",
                               target.loc);
    }
  // A run's spec keeps no axes or seeds: they are applied, and a copy of repeat:'s N seeds in each
  // of the N runs took 12 GB for repeat: 20000.
  const std::optional<RepeatSpec> repeat = std::move(spec.repeat);
  spec.repeat.reset();
  spec.ablations.clear();
  // The base run takes the spec itself: a copy of a generated pipeline's 10^5 nodes cost a tenth
  // of `seqflow plan`.
  std::vector<RunVariant> runs;
  runs.push_back(RunVariant{{}, {}, std::move(spec)});
  for (const AblationAxis& a : selected) {
    SEQFLOW_ASSIGN_OR_RETURN(runs, dsl::Spread(runs, a));
  }
  if (!repeat) return runs;
  return dsl::RepeatRuns(runs, *repeat, takes_seed);
}

}  // namespace seqflow
