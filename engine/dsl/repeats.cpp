// The `repeat:` / `repeats:` section and the repeated runs it asks for.
#include <charconv>
#include <set>

#include "engine/dsl/sections.h"

namespace seqflow::dsl {
namespace {

constexpr const char kRepeatsExample[] = "e.g. repeats: {seed: [1, 2, 3]}";

Result<RawParam> SeedList(const MapEntry& e, const std::string& file) {
  bool scalars = e.value.IsSequence() && e.value.size() > 0;
  for (const auto& item : e.value) scalars = scalars && item.IsScalar();
  if (!scalars)
    return Status::Invalid("'repeats.seed' must be a non-empty list of seeds, " + std::string(kRepeatsExample) +
                               "; got " + (e.value.IsSequence() ? "an empty list" : ShapeName(e.value)),
                           e.value_loc);
  RawParam seeds;
  seeds.is_list = true;
  seeds.loc = e.value_loc;
  for (const auto& item : e.value) seeds.items.push_back(item.Scalar());
  return seeds;
}

Result<RawParam> ParseRepeatsMap(const MapEntry& section, const std::string& file) {
  if (!section.value.IsMap() || section.value.size() == 0)
    return Status::Invalid("'repeats' must be a map {seed: [s1, s2, ...]}, " + std::string(kRepeatsExample) + "; got " +
                               (section.value.IsMap() ? "an empty map" : ShapeName(section.value)),
                           section.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(section.value, file, "'repeats'"));
  for (const auto& e : entries)
    if (e.key != "seed")
      return Status::Invalid(
          "'repeats' takes only 'seed' (the seeds to repeat with), got '" + e.key + "'; " + kRepeatsExample, e.key_loc);
  return SeedList(entries.front(), file);
}

std::optional<int64_t> PositiveInt(const std::string& text) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1) return std::nullopt;
  return n;
}

}  // namespace

Result<RawRepeat> ParseRepeat(const MapEntry& section, const std::string& file) {
  RawRepeat raw{section.key, section.key_loc, {}};
  if (section.key == "repeats") {
    SEQFLOW_ASSIGN_OR_RETURN(raw.value, ParseRepeatsMap(section, file));
    return raw;
  }
  if (!section.value.IsScalar())
    return Status::Invalid(
        "'repeat' must be a positive integer N (runs with seeds 1..N), got " + std::string(ShapeName(section.value)),
        section.value_loc);
  raw.value.scalar = section.value.Scalar();
  raw.value.loc = section.value_loc;
  return raw;
}

Result<RepeatSpec> ResolveRepeat(const RawRepeat& raw) {
  RepeatSpec repeat;
  repeat.loc = raw.loc;
  if (raw.key == "repeat") {
    std::optional<int64_t> n = PositiveInt(raw.value.scalar);
    if (!n)
      return Status::Invalid(
          "'repeat' must be a positive integer N (runs with seeds 1..N), got '" + raw.value.scalar + "'",
          raw.value.loc);
    if (static_cast<uint64_t>(*n) > kMaxNodeInstances)
      return Status::Invalid("'repeat: " + raw.value.scalar + "' asks for more runs than the " +
                                 std::to_string(kMaxNodeInstances) +
                                 " node instances a pipeline may expand to; use fewer seeds, or split the seeds "
                                 "over pipelines with repeats: {seed: [...]}",
                             raw.value.loc);
    for (int64_t seed = 1; seed <= *n; ++seed) repeat.seeds.push_back(std::to_string(seed));
    repeat.written = "repeat: " + raw.value.scalar;
    return repeat;
  }
  std::set<std::string> seen;
  for (const std::string& seed : raw.value.items)
    if (!seen.insert(seed).second)
      return Status::Invalid("seed " + seed + " is listed twice in 'repeats'; each seed gives one run", raw.value.loc);
  repeat.seeds = raw.value.items;
  repeat.written = "repeats: {seed: " + RawText(raw.value) + "}";
  return repeat;
}

Status CheckRepeatAxis(const PipelineSpec& spec) {
  if (!spec.repeat) return Status::Ok();
  for (const auto& axis : spec.ablations)
    if (axis.name == kRepeatAxis)
      return Status::Invalid("ablation axis 'repeat' clashes with '" + spec.repeat->written +
                                 "'; rename the axis, or drop it and let repeat: set the seeds",
                             axis.loc);
  return Status::Ok();
}

Result<std::vector<RunVariant>> RepeatRuns(const std::vector<RunVariant>& runs, const RepeatSpec& repeat,
                                           const TakesSeed& takes_seed) {
  std::vector<RunVariant> out;
  for (const RunVariant& run : runs) {
    std::vector<size_t> seeded;  // positions in run.spec.nodes, the same in every copy of it
    for (size_t i = 0; i < run.spec.nodes.size(); ++i)
      if (takes_seed && takes_seed(run.spec.nodes[i].kind)) seeded.push_back(i);
    if (seeded.empty())
      return Status::Invalid(repeat.written +
                                 " but no node takes a seed; add a node whose kind has a seed parameter, e.g. a split "
                                 "node",
                             repeat.loc);
    for (const std::string& seed : repeat.seeds) {
      RunVariant variant = run;
      RawParam value{false, seed, {}, repeat.loc};
      for (size_t i : seeded) {
        NodeSpec& node = variant.spec.nodes[i];
        ApplyField(node, "seed", value);
        variant.assignment[node.name + ".seed"] = seed;
      }
      variant.axes[kRepeatAxis] = seed;
      out.push_back(std::move(variant));
    }
  }
  return out;
}

}  // namespace seqflow::dsl
