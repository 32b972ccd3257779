#include "engine/api/registry.h"

#include <algorithm>
#include <mutex>

namespace seqflow {

namespace {

// The alternatives of a port type, or of a kind's output type, "A|B|C".
std::vector<std::string_view> Alternatives(std::string_view type) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t bar = type.find('|');
    out.push_back(type.substr(0, bar));
    if (bar == std::string_view::npos) return out;
    type.remove_prefix(bar + 1);
  }
}

// "A", "A or B", "A, B or C".
std::string OrList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace

const PortSpec* KindSpec::FindPort(std::string_view port) const {
  for (const auto& p : inputs)
    if (p.name == port) return &p;
  return nullptr;
}

bool KindSpec::Outputs(std::string_view artifact_type) const {
  const std::vector<std::string_view> types = Alternatives(output_type);
  return std::find(types.begin(), types.end(), artifact_type) != types.end();
}

const ParamSpec* KindSpec::FindParam(std::string_view param) const {
  for (const auto& p : params)
    if (p.name == param) return &p;
  return nullptr;
}

KindSpec&& KindSpec::As(NodeRole role, std::vector<std::string> headline) && {
  record.role = role;
  record.headline = std::move(headline);
  return std::move(*this);
}

KindSpec&& KindSpec::Attaching(AttachmentSpec attachment) && {
  record.attachments.push_back(std::move(attachment));
  return std::move(*this);
}

KindSpec&& KindSpec::ChoosingLambda(std::string metric) && {
  record.chosen_lambda = std::move(metric);
  return std::move(*this);
}

KindSpec&& KindSpec::PerSystem(std::string p_value_prefix) && {
  record.per_system = true;
  record.system_p_prefix = std::move(p_value_prefix);
  return std::move(*this);
}

const char* PortUseName(PortUse use) {
  switch (use) {
    case PortUse::kReads:
      return "reads";
    case PortUse::kFits:
      return "fits";
    case PortUse::kFitsInputs:
      return "fits inputs";
    case PortUse::kSelects:
      return "selects";
  }
  return "reads";
}

namespace {

void SetPortUse(KindSpec& kind, const std::vector<std::string>& ports, PortUse use) {
  for (const std::string& name : ports) {
    auto it = std::find_if(kind.inputs.begin(), kind.inputs.end(), [&](const PortSpec& p) { return p.name == name; });
    if (it == kind.inputs.end())
      throw StatusError(Status::Internal("kind '" + kind.name + "' declares a use of port '" + name +
                                         "', which it does not have"));
    it->use = use;
  }
}

}  // namespace

KindSpec&& KindSpec::Fitting(const std::vector<std::string>& ports) && {
  SetPortUse(*this, ports, PortUse::kFits);
  return std::move(*this);
}

KindSpec&& KindSpec::FittingInputs(const std::vector<std::string>& ports) && {
  SetPortUse(*this, ports, PortUse::kFitsInputs);
  return std::move(*this);
}

KindSpec&& KindSpec::SelectingBy(const std::vector<std::string>& ports) && {
  SetPortUse(*this, ports, PortUse::kSelects);
  return std::move(*this);
}

KindSpec&& KindSpec::Needing(ResourceSpec needs) && {
  resources = needs;
  return std::move(*this);
}

KindSpec&& KindSpec::Continuing(std::vector<BudgetParam> budget_params) && {
  for (const BudgetParam& param : budget_params) {
    const ParamSpec* spec = FindParam(param.name);
    if (spec == nullptr || (spec->type != ParamType::kInt && spec->type != ParamType::kDouble))
      throw StatusError(Status::Internal("kind '" + name + "': budget parameter '" + param.name +
                                         "' is not a numeric parameter of it"));
  }
  budget = std::move(budget_params);
  return std::move(*this);
}

void Registry::AddKind(KindSpec kind, const char* registered_in) {
  if (kinds_.count(kind.name)) throw StatusError(Status::Internal("kind '" + kind.name + "' registered twice"));
  std::string name = kind.name;
  registered_in_[name] = registered_in;
  kinds_.emplace(std::move(name), std::move(kind));
}

void Registry::AddLoader(std::string type, uint32_t version, ArtifactLoader loader) {
  types_[std::move(type)] = TypeEntry{version, std::move(loader)};
}

const KindSpec* Registry::FindKind(std::string_view name) const {
  auto it = kinds_.find(name);
  return it == kinds_.end() ? nullptr : &it->second;
}

std::string_view Registry::RegisteredIn(std::string_view name) const {
  auto it = registered_in_.find(name);
  return it == registered_in_.end() ? std::string_view() : std::string_view(it->second);
}

std::vector<const KindSpec*> Registry::Kinds() const {
  std::vector<const KindSpec*> out;
  for (const auto& [name, kind] : kinds_) out.push_back(&kind);
  return out;
}

bool Registry::HasArtifactType(std::string_view type) const { return types_.find(type) != types_.end(); }

bool Registry::Accepts(const PortSpec& port, std::string_view artifact_type) const {
  const std::vector<std::string_view> outputs = Alternatives(artifact_type);
  if (outputs.size() > 1)
    return std::all_of(outputs.begin(), outputs.end(), [&](std::string_view type) { return Accepts(port, type); });
  for (std::string_view alternative : Alternatives(port.type)) {
    if (alternative == artifact_type) return true;
    auto it = implementers_.find(alternative);
    if (it != implementers_.end() && it->second.count(std::string(artifact_type))) return true;
  }
  return false;
}

std::string Registry::PortTypeText(const PortSpec& port) const {
  std::vector<std::string> texts;
  for (std::string_view alternative : Alternatives(port.type)) {
    texts.emplace_back(alternative);
    auto it = implementers_.find(alternative);
    if (it != implementers_.end())
      texts.back() += " (" + OrList(std::vector<std::string>(it->second.begin(), it->second.end())) + ")";
  }
  return OrList(texts);
}

void Registry::CheckArtifactVersion(std::string_view type, uint32_t version) const {
  auto it = types_.find(type);
  if (it == types_.end())
    throw StatusError(Status::Corruption("unknown artifact type '" + std::string(type) + "'"));
  if (it->second.version != version)
    throw StatusError(Status::Corruption("artifact " + std::string(type) + " has format version " +
                                         std::to_string(version) + ", this build reads version " +
                                         std::to_string(it->second.version)));
}

namespace {

struct DecodeCounts {
  std::mutex mu;
  std::map<std::string, uint64_t, std::less<>> by_type;
};

DecodeCounts& Decoded() {
  static DecodeCounts counts;
  return counts;
}

}  // namespace

ArtifactPtr Registry::LoadArtifact(std::string_view type, uint32_t version, ByteReader& r) const {
  CheckArtifactVersion(type, version);
  {
    DecodeCounts& decoded = Decoded();
    std::lock_guard<std::mutex> lock(decoded.mu);
    auto it = decoded.by_type.find(type);
    if (it == decoded.by_type.end()) it = decoded.by_type.emplace(std::string(type), 0).first;
    ++it->second;
  }
  return types_.find(type)->second.loader(r);
}

uint64_t Registry::ArtifactsDecoded(std::string_view type) {
  DecodeCounts& decoded = Decoded();
  std::lock_guard<std::mutex> lock(decoded.mu);
  auto it = decoded.by_type.find(type);
  return it == decoded.by_type.end() ? 0 : it->second;
}

// The edit distance of a and b when it is below `bound`, else `bound`. A distance is at least the
// difference of the lengths and at least the smallest entry of any row of the table, so a
// candidate that cannot come closer than the best so far costs O(1) or stops at the first row
// past it: a long misspelt word (a fuzzer's 64 KB kind name) is no longer O(|word| |name|) per
// registered name.
static size_t BoundedEditDistance(std::string_view a, std::string_view b, size_t bound, std::vector<size_t>& prev,
                                  std::vector<size_t>& cur) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >= bound) return bound;
  prev.resize(b.size() + 1), cur.resize(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min >= bound) return bound;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], bound);
}

std::string NearestName(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  std::vector<size_t> prev, cur;
  for (const auto& c : candidates) {
    size_t d = BoundedEditDistance(word, c, best_d, prev, cur);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace seqflow
