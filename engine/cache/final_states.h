// FinalStates: the state an iterative node with budget parameters (KindSpec::Continuing) ended
// in, kept as long as its entry so that a node differing from it in its budget alone (a raised
// max_iterations, a tightened tolerance) continues from it instead of starting over (DESIGN §11).
// <cache>/final_states/<family key>/<key>.sfs holds the state and <key>.sfm its iteration and
// budget; both framed and checksummed like an entry (entry_format.h) and written by rename. The
// state is kept beside the entry, not inside the artifact: the artifact type is shared with kinds
// that do not iterate and is loaded by every consumer, while the state (an L-BFGS history is m
// copies of the weights in each of s and y) is read only by a continuation; and it can be pruned
// on its own. `cache gc` removes the states of entries no longer cached.
// Thread safety: all methods may be called concurrently (different keys, or one writer).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/registry.h"
#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

// The budget parameters' values of a node, by name.
using BudgetValues = std::map<std::string, double>;

// `node`'s budget parameters (kind.budget) read from its parameters.
BudgetValues BudgetOf(const KindSpec& kind, const Params& params);

// True when a run under `kept` stops no later than one under `wanted` (every budget parameter
// no larger, in its direction), so the state it ended in lies on the way of `wanted`'s run.
bool WithinBudget(const std::vector<BudgetParam>& budget, const BudgetValues& kept, const BudgetValues& wanted);

struct KeptFinalState {
  std::string key;        // the entry whose node ended in it
  int64_t iteration = 0;  // iterations it made
  BudgetValues budget;
};

class FinalStates {
 public:
  FinalStates(const std::string& cache_dir, Env* env);

  Status Store(const std::string& family_key, const std::string& key, int64_t iteration, const BudgetValues& budget,
               std::string state);
  // Of the states kept under `family_key` whose budget is within `wanted`, the one with the most
  // iterations; nullopt when none. Damaged descriptions are skipped.
  Result<std::optional<KeptFinalState>> Find(const std::string& family_key, const std::vector<BudgetParam>& budget,
                                             const BudgetValues& wanted) const;
  // Corruption naming the file for a damaged state.
  Result<std::string> Load(const std::string& family_key, const std::string& key) const;
  // Removes `key`'s state, if kept: what a node that failed numerically left must not be continued
  // from. The description goes first, so a state is never found without its file.
  Status Remove(const std::string& family_key, const std::string& key);
  // Removes the states of keys `cached` says are gone (and emptied family folders); returns how
  // many files went.
  Result<int> Prune(const std::function<bool(const std::string& key)>& cached);

  std::string StatePath(const std::string& family_key, const std::string& key) const;

 private:
  std::string DescriptionPath(const std::string& family_key, const std::string& key) const;

  std::string dir_;
  Env* env_;
};

}  // namespace seqflow
