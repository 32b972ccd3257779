// Wall time of a fully cached rerun of pipelines/conll2000_hmm.yaml (all four ablation runs),
// as a user sees it: the real `seqflow` binary, process start-up included. Target: < 0.3 s.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace {

extern "C" char** environ;

int RunSeqflow(const std::vector<std::string>& args) {
  std::vector<std::string> storage = {SEQFLOW_BIN};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void BM_CachedRerunConll2000Hmm(benchmark::State& state) {
  std::string cache = (std::filesystem::temp_directory_path() / "seqflow-bench-rerun-cache").string();
  std::filesystem::remove_all(cache);
  std::vector<std::string> args = {"run", std::string(SEQFLOW_SOURCE_DIR) + "/pipelines/conll2000_hmm.yaml",
                                   "--cache", cache};
  if (RunSeqflow(args) != 0) {
    state.SkipWithError("cold run failed (is ../shared/data present?)");
    return;
  }
  for (auto _ : state) {
    if (RunSeqflow(args) != 0) state.SkipWithError("cached run failed");
  }
  std::filesystem::remove_all(cache);
}
BENCHMARK(BM_CachedRerunConll2000Hmm)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
