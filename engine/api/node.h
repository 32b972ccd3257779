// NodeContext: everything a node body may see of the engine. A node body reads its parameters
// and inputs here, reports metrics and progress, and returns one artifact.
// Thread safety: a context belongs to one running node; kernels called from it may use
// threads() worker threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/params.h"
#include "engine/api/piece_store.h"
#include "engine/base/cancel.h"
#include "engine/base/process_group.h"
#include "engine/base/state_pieces.h"
#include "engine/base/state_source.h"
#include "engine/base/status.h"

namespace seqflow {

class NodeContext {
 public:
  virtual ~NodeContext() = default;

  virtual const std::string& node_name() const = 0;
  virtual const Params& params() const = 0;
  // The artifacts connected to `port`, in the order written in YAML (empty for an
  // unconnected optional port). Throws StatusError for an undeclared port.
  virtual std::vector<ArtifactPtr> inputs(std::string_view port) const = 0;

  // A figure for the run record (summary.json) and for `seqflow report`.
  virtual void Metric(const std::string& name, double value) = 0;
  // An extra file of the run record, written as DIR/<node>.<suffix> (e.g. "path.csv").
  virtual void Attach(const std::string& suffix, std::string content) = 0;
  // Progress of a long loop (EM iterations, path steps, epochs); `note` is what the loop is at,
  // shown beside the count ("objective -1.2345e+05").
  virtual void Progress(int64_t done, int64_t total, const std::string& note) = 0;
  void Progress(int64_t done, int64_t total) { Progress(done, total, ""); }
  // Set once the run is being cancelled (another node failed); pass it to the kernel of every
  // long loop, which returns Status::Cancelled (engine/base/cancel.h).
  virtual CancelToken cancellation() const = 0;
  // Worker threads this node may use (the run's -j).
  virtual int threads() const = 0;
  // The processes that run this node together (`mpirun -np P seqflow run-node ...`), for kernels
  // that spread their data over them (nodes/common/distributed_shards.h); null: this one alone.
  virtual const ProcessGroup* processes() const { return nullptr; }
  // Checkpoints of an iterative node (DESIGN §11). ResumeState is the state the last run of this
  // node instance saved before it was killed (same key) or, for a kind with budget parameters
  // (KindSpec::Continuing), the final state a run of it with a smaller budget kept, or nullopt:
  // the kernel resumes from it — retaking the stopping tests of the state's iteration under the
  // node's own parameters first — and must then end with the same bits as a run never
  // interrupted. Checkpoint offers the current state after an iteration; the engine calls
  // `state` and saves what it returns only when the checkpoint interval has passed since the
  // last save (`--checkpoint-seconds`), keeps it beside the cache, and removes it once the
  // node's entry is published. The state comes in pieces (engine/base/state_pieces.h: a string
  // is one piece), so a large one is written from where it lives and its immutable parts once. KeepFinalState offers the state the iteration ended in (after
  // `iteration` iterations), in the same form; the engine keeps it as long as the entry for kinds
  // with budget parameters and ignores it for others.
  virtual std::optional<std::string> ResumeState() { return std::nullopt; }
  // The same state as a StateSource (engine/base/state_source.h): its pieces checked, but read
  // only where the kernel's StateReader puts them, so a kernel of hundreds of MB of state
  // (crf.train) does not hold it twice.
  virtual std::optional<StateSource> ResumeSource() {
    std::optional<std::string> state = ResumeState();
    return state ? std::optional<StateSource>(StateSource(std::move(*state))) : std::nullopt;
  }
  virtual void Checkpoint(const std::function<StatePieces()>& state) {}
  virtual void KeepFinalState(int64_t iteration, const std::function<std::string()>& state) {}
  // Reads a file through the engine's Env (the one door to files).
  virtual Result<std::string> ReadFile(const std::string& path) const = 0;
  // Where this node writes the pieces of its artifact and reads those of its inputs
  // (engine/api/piece_store.h: a sharded corpus's shards); null where there is none.
  virtual PieceStore* pieces() const { return nullptr; }

  // Typed access. Throws StatusError naming the node and port on a missing input or a type
  // mismatch (validation normally prevents both).
  template <class T>
  std::shared_ptr<const T> In(std::string_view port) const {
    auto all = inputs(port);
    if (all.size() != 1) Fail("port '" + std::string(port) + "' expects exactly one input");
    return Cast<T>(all[0], port);
  }
  template <class T>
  std::shared_ptr<const T> InOptional(std::string_view port) const {
    auto all = inputs(port);
    return all.empty() ? nullptr : Cast<T>(all[0], port);
  }
  template <class T>
  std::vector<std::shared_ptr<const T>> InList(std::string_view port) const {
    std::vector<std::shared_ptr<const T>> out;
    for (const auto& a : inputs(port)) out.push_back(Cast<T>(a, port));
    return out;
  }

 private:
  template <class T>
  std::shared_ptr<const T> Cast(const ArtifactPtr& a, std::string_view port) const {
    auto t = std::dynamic_pointer_cast<const T>(a);
    if (!t) Fail("port '" + std::string(port) + "' expects " + std::string(T::kType) + ", got " +
                 (a ? std::string(a->type()) : std::string("nothing")));
    return t;
  }
  [[noreturn]] void Fail(const std::string& msg) const {
    throw StatusError(Status::Invalid("node '" + node_name() + "': " + msg));
  }
};

}  // namespace seqflow
