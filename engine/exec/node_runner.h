// The state one Execute call shares among its node bodies, and the body of one node: reuse
// (memo, then cache) or compute, validate, publish. Internal to engine/exec.
//
// Thread safety: RunNode(run, i) for different i runs concurrently. outcomes[i] and artifacts[i]
// are written only by node i's body, and read by its consumers after it finished (the flow
// graph's edges order them); artifacts[i] is reset by whichever consumer finishes last, which
// the atomic count `unread[i]` decides; a deferred cached artifact is loaded by Input under
// artifact_mu[i]. `failed` is atomic, event delivery is serialised by
// event_mu and the publisher is thread safe.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/cache/checkpoints.h"
#include "engine/cache/final_states.h"
#include "engine/cache/key_locks.h"
#include "engine/exec/executor.h"
#include "engine/exec/publisher.h"

namespace seqflow {

struct RunState {
  RunState(const Dag& d, Cache& c, ArtifactMemo& m, Env* e, const ExecOptions& o);

  const Dag& dag;
  Cache& cache;
  ArtifactMemo& memo;
  Env* env;
  const ExecOptions& options;
  std::vector<char> forced;            // by node: recompute even when cached (named or downstream)
  std::vector<NodeOutcome> outcomes;   // by node, Dag order
  std::vector<ArtifactPtr> artifacts;  // by node; set once the node is computed or reused (a
                                       // large cached one: by Input, on first use), reset once
                                       // no consumer in this run needs it
  std::unique_ptr<std::mutex[]> artifact_mu;  // by node: serialises Input's loading
  // By node: its consumers in this run not yet finished.
  std::vector<std::atomic<int>> unread;
  std::atomic<bool> failed{false};     // some node failed: cancel what has not started
  CacheWarnings own_warnings;          // used when options.cache_warnings is null
  CacheWarnings& warnings;             // failed locks and stores, reported once per cause
  KeyLocks locks;                      // one key computed by one worker at a time
  Checkpoints checkpoints;             // iterative nodes' saved states
  FinalStates final_states;            // the states iterative nodes with a budget ended in
  Publisher publisher;                 // stores computed results and releases their locks;
                                       // finished by Execute (declared after `locks`: goes first)
  std::mutex event_mu;

  // The artifact of finished node `source` for a consumer's body: a cached artifact that was not
  // decoded when its node was reused is loaded now (once; concurrent consumers wait for it).
  // Throws StatusError when it cannot be loaded.
  ArtifactPtr Input(int source);

  // Delivers `event` to options.on_event, one at a time.
  void Emit(const ExecEvent& event);
};

// Runs node `index` to completion: skipped, cached, computed or failed, then releases what it
// held of its inputs and of the memo. Never throws.
// REQUIRES: every upstream node of `index` has finished.
void RunNode(RunState& run, int index);

}  // namespace seqflow
