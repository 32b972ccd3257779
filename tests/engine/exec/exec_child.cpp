// Helper process for executor_process_test: runs DemoDag on a cache directory and writes one
// line per node, "name status digest-of-artifact-bytes", to OUT. Exits 0 when the run succeeded.
// A separate program (not a fork of the test) because a forked TBB process may not use TBB.
#include <fstream>
#include <iostream>

#include "engine/base/hash.h"
#include "engine/exec/executor.h"
#include "tests/engine/exec/fake_kinds.h"

int main(int argc, char** argv) {
  using namespace seqflow;
  if (argc != 3) {
    std::cerr << "usage: exec_child CACHE_DIR OUT\n";
    return 2;
  }
  Cache cache(argv[1], &testkit::FakeRegistry(), Env::Default());
  ArtifactMemo memo;
  ExecOptions options;
  options.threads = 2;
  Dag dag = testkit::DemoDag(150);
  RunResult result = Execute(dag, cache, memo, Env::Default(), options);
  std::ofstream out(argv[2]);
  for (const NodeOutcome& n : result.nodes) {
    ArtifactPtr a = memo.Find(n.key);
    out << n.name << ' ' << NodeStatusName(n.status) << ' ' << (a ? HashHex(testkit::BytesOf(*a)) : "-") << '\n';
  }
  if (!result.ok()) std::cerr << result.FirstError().ToString() << '\n';
  return result.ok() && out.good() ? 0 : 1;
}
