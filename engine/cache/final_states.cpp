#include "engine/cache/final_states.h"

#include "engine/base/bytes.h"
#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kStateMagic{"SQFLFST\0", 8};
constexpr std::string_view kDescriptionMagic{"SQFLFSD\0", 8};
constexpr std::string_view kStateSuffix = ".sfs";
constexpr std::string_view kDescriptionSuffix = ".sfm";

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string EncodeDescription(int64_t iteration, const BudgetValues& budget) {
  ByteWriter w;
  w.I64(iteration);
  w.U64(budget.size());
  for (const auto& [name, value] : budget) w.Str(name), w.F64(value);
  return EncodeFrame(kDescriptionMagic, w.bytes());
}

std::optional<KeptFinalState> DecodeDescription(const std::string& key, const std::string& file) {
  Result<std::string_view> payload = DecodeFrame(file, kDescriptionMagic);
  if (!payload.ok()) return std::nullopt;
  try {
    ByteReader r(*payload);
    KeptFinalState kept;
    kept.key = key;
    kept.iteration = r.I64();
    for (uint64_t n = r.U64(), i = 0; i < n; ++i) {
      std::string name = r.Str();
      kept.budget[name] = r.F64();
    }
    r.ExpectEnd();
    return kept;
  } catch (const StatusError&) {
    return std::nullopt;
  }
}

}  // namespace

BudgetValues BudgetOf(const KindSpec& kind, const Params& params) {
  BudgetValues values;
  for (const BudgetParam& param : kind.budget) {
    const ParamSpec* spec = kind.FindParam(param.name);
    values[param.name] = spec->type == ParamType::kInt ? static_cast<double>(params.GetInt(param.name))
                                                       : params.GetDouble(param.name);
  }
  return values;
}

bool WithinBudget(const std::vector<BudgetParam>& budget, const BudgetValues& kept, const BudgetValues& wanted) {
  for (const BudgetParam& param : budget) {
    auto k = kept.find(param.name), w = wanted.find(param.name);
    if (k == kept.end() || w == wanted.end()) return false;
    if (param.larger_runs_longer ? k->second > w->second : k->second < w->second) return false;
  }
  return true;
}

FinalStates::FinalStates(const std::string& cache_dir, Env* env) : dir_(JoinPath(cache_dir, "final_states")), env_(env) {}

std::string FinalStates::StatePath(const std::string& family_key, const std::string& key) const {
  return JoinPath(JoinPath(dir_, family_key), key + std::string(kStateSuffix));
}

std::string FinalStates::DescriptionPath(const std::string& family_key, const std::string& key) const {
  return JoinPath(JoinPath(dir_, family_key), key + std::string(kDescriptionSuffix));
}

Status FinalStates::Store(const std::string& family_key, const std::string& key, int64_t iteration,
                          const BudgetValues& budget, std::string state) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(JoinPath(dir_, family_key)));
  // The state first: a description is only ever found beside a whole state.
  SEQFLOW_RETURN_IF_ERROR(env_->WriteFileAtomic(StatePath(family_key, key), EncodeFrameInPlace(kStateMagic, std::move(state))));
  return env_->WriteFileAtomic(DescriptionPath(family_key, key), EncodeDescription(iteration, budget));
}

Result<std::optional<KeptFinalState>> FinalStates::Find(const std::string& family_key,
                                                        const std::vector<BudgetParam>& budget,
                                                        const BudgetValues& wanted) const {
  const std::string family = JoinPath(dir_, family_key);
  std::optional<KeptFinalState> best;
  if (family_key.empty() || !env_->Exists(family)) return best;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(family));
  for (const std::string& name : names) {
    if (!EndsWith(name, kDescriptionSuffix)) continue;
    const std::string key = name.substr(0, name.size() - kDescriptionSuffix.size());
    Result<std::string> file = env_->ReadFile(JoinPath(family, name));
    if (!file.ok()) continue;  // removed meanwhile
    std::optional<KeptFinalState> kept = DecodeDescription(key, *file);
    if (!kept || !WithinBudget(budget, kept->budget, wanted) || !env_->Exists(StatePath(family_key, key))) continue;
    if (!best || kept->iteration > best->iteration || (kept->iteration == best->iteration && key < best->key))
      best = std::move(kept);
  }
  return best;
}

Result<std::string> FinalStates::Load(const std::string& family_key, const std::string& key) const {
  const std::string path = StatePath(family_key, key);
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  Result<std::string_view> state = DecodeFrame(bytes, kStateMagic);
  if (!state.ok()) return Status::Corruption("damaged final state " + path + ": " + state.status().message());
  return std::string(*state);
}

Status FinalStates::Remove(const std::string& family_key, const std::string& key) {
  for (const std::string& path : {DescriptionPath(family_key, key), StatePath(family_key, key)})
    if (env_->Exists(path)) SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(path));
  return Status::Ok();
}

Result<int> FinalStates::Prune(const std::function<bool(const std::string& key)>& cached) {
  if (!env_->Exists(dir_)) return 0;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> families, env_->ListDir(dir_));
  int removed = 0;
  for (const std::string& family_key : families) {
    const std::string family = JoinPath(dir_, family_key);
    Result<std::vector<std::string>> names = env_->ListDir(family);
    if (!names.ok()) continue;  // not a folder, or removed meanwhile
    int left = 0;
    for (const std::string& name : *names) {
      const std::string key = name.substr(0, name.find('.'));
      if (cached(key)) {
        ++left;
        continue;
      }
      SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(JoinPath(family, name)));
      ++removed;
    }
    if (left == 0) SEQFLOW_RETURN_IF_ERROR(env_->RemoveDir(family));
  }
  return removed;
}

}  // namespace seqflow
