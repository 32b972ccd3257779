// A fake node catalogue and a hand-made Dag builder for executor tests and the engine benchmark.
// Kinds (all output TestValue unless noted):
//   const  {value, text, doubles}        -> TestValue(text, value, `doubles` copies of value)
//   sum    in: [TestValue...] {offset}   -> number = offset + sum of inputs, text = "a+b+..."
//   pair   left, right: TestValue        -> text = "left|right" (checks port routing and order)
//   sleep  {ms}                          -> sleeps (progress 0/1, then 1/1), TestValue("slept", ms);
//                                           declares itself parallel, 64 MB
//   heavy, light, huge  in: [...] {ms}   -> sleep `ms` counted in RunningMemory(), declaring
//                                           kHeavyMb, kLightMb, kHugeMb (memory budget tests)
//   fail   {how: status|exception|other} -> throws
//   nan    {}                            -> reports metric "loss" = NaN
//   score  in: TestValue {scale}         -> Metrics {"score": number * scale}
//   wrong  {}                            -> returns a Metrics though it declares TestValue
//   iterate {steps, tol, rate}           -> x <- rate x + 1 from 0 for `steps` steps or until a
//                                           change below tol; budget parameters steps and tol
//                                           (KindSpec::Continuing); checkpoints every step; metric
//                                           started_at = the step it resumed or continued from
// Keys are computed like the graph's: hash(kind, version, canonical params, input keys); family
// keys (for kinds with budget parameters) likewise without the budget parameters.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/api/params.h"
#include "engine/api/registry.h"
#include "engine/graph/dag.h"
#include "tests/engine/cache/test_artifact.h"

namespace seqflow::testkit {

inline constexpr int64_t kHeavyMb = 600, kLightMb = 300, kHugeMb = 5000;

// What the heavy, light and huge nodes running now declare, and what was seen.
struct MemoryUse {
  std::mutex mu;
  int64_t running_mb = 0;
  int64_t peak_mb = 0;           // of running_mb while no huge node ran
  bool huge_running = false;
  bool huge_overlapped = false;  // a huge node ran beside another of the three
};
MemoryUse& RunningMemory();

// The catalogue above, built once; never destroyed.
const Registry& FakeRegistry();

using PortInputs = std::vector<std::pair<std::string, std::vector<std::string>>>;  // port -> sources

class DagBuilder {
 public:
  // REQUIRES: `kind` is in FakeRegistry() and every source was added before.
  DagBuilder& Add(const std::string& name, const std::string& kind, std::map<std::string, ParamValue> params = {},
                  const PortInputs& inputs = {});
  const Dag& dag() const { return dag_; }

 private:
  int IndexOf(const std::string& name) const;
  Dag dag_;
};

// A 12-node DAG with fan-out, fan-in, a pair and a score, for determinism and process tests.
// `sleep_ms` > 0 adds two sleeping nodes so concurrent runs overlap.
Dag DemoDag(int sleep_ms = 0);

}  // namespace seqflow::testkit
