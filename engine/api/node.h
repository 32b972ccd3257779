// NodeContext: everything a node body may see of the engine. A node body reads its parameters
// and inputs here, reports metrics and progress, and returns one artifact.
// Thread safety: a context belongs to one running node; kernels called from it may use
// threads() worker threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/params.h"
#include "engine/base/cancel.h"
#include "engine/base/process_group.h"
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
  // Progress of a long loop (EM iterations, path steps, epochs).
  virtual void Progress(int64_t done, int64_t total) = 0;
  // Set once the run is being cancelled (another node failed); pass it to the kernel of every
  // long loop, which returns Status::Cancelled (engine/base/cancel.h).
  virtual CancelToken cancellation() const = 0;
  // Worker threads this node may use (the run's -j).
  virtual int threads() const = 0;
  // The processes that run this node together (`mpirun -np P seqflow run-node ...`), for kernels
  // that spread their data over them (nodes/common/distributed_shards.h); null: this one alone.
  virtual const ProcessGroup* processes() const { return nullptr; }
  // Reads a file through the engine's Env (the one door to files).
  virtual Result<std::string> ReadFile(const std::string& path) const = 0;

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
