// Two processes executing the same DAG on one cache directory at the same time.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/base/hash.h"
#include "engine/exec/executor.h"
#include "tests/engine/exec/fake_kinds.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace executor_process_test {

pid_t Spawn(const std::string& cache_dir, const std::string& out) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(SEQFLOW_EXEC_CHILD, SEQFLOW_EXEC_CHILD, cache_dir.c_str(), out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// "name digest" lines: the status differs legitimately (one process may reuse the other's entry);
// `computed` gets the names this process computed.
std::vector<std::string> Digests(const std::string& path, std::multiset<std::string>* computed) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string name, status, digest;
  while (in >> name >> status >> digest) {
    EXPECT_TRUE(status == "computed" || status == "cached") << name << " " << status;
    if (status == "computed") computed->insert(name);
    out.push_back(name + " " + digest);
  }
  return out;
}

TEST(ExecutorProcessTest, TwoProcessesOnOneCacheBothSucceedComputingEachKeyOnce) {
  std::string dir = testutil::MakeTempDir("seqflow-procs");
  std::string cache_dir = dir + "/cache";
  for (int trial = 0; trial < 3; ++trial) {
    std::filesystem::remove_all(cache_dir);
    pid_t a = Spawn(cache_dir, dir + "/a.txt");
    pid_t b = Spawn(cache_dir, dir + "/b.txt");
    ASSERT_GT(a, 0);
    ASSERT_GT(b, 0);
    EXPECT_EQ(WaitExit(a), 0);
    EXPECT_EQ(WaitExit(b), 0);
    std::multiset<std::string> computed;
    std::vector<std::string> da = Digests(dir + "/a.txt", &computed), db = Digests(dir + "/b.txt", &computed);
    EXPECT_EQ(da.size(), DemoDag(150).nodes.size());
    EXPECT_EQ(da, db);
    // The key locks: every node computed by exactly one of the two.
    for (const DagNode& node : DemoDag(150).nodes) EXPECT_EQ(computed.count(node.name), 1u) << node.name;

    // What the cache holds afterwards is what both processes saw.
    Cache cache(cache_dir, &FakeRegistry(), Env::Default());
    Dag dag = DemoDag(150);
    for (size_t i = 0; i < dag.nodes.size(); ++i) {
      auto entry = cache.Load(dag.nodes[i].key);
      ASSERT_OK(entry);
      ASSERT_TRUE(entry->has_value());
      EXPECT_EQ(dag.nodes[i].name + " " + HashHex(BytesOf(*(*entry)->artifact)), da[i]);
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace executor_process_test
}  // namespace seqflow::testkit
