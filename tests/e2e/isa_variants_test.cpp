// The portable binary computes the same bits under every kernel variant this CPU runs
// (SEQFLOW_ISA, engine/base/isa.h): pipelines/tests/isa_variants.yaml (a CRF, its decoders,
// HySOL and an EM_λ homotopy path on real data) writes byte-identical cache entries and
// summary.json metrics under each, and pipelines/conll2000_crf.yaml (20 L-BFGS iterations, a third of the data)
// gives the same summary.json (every metric) under the baseline and the best variant. Fails,
// never skips, without ../shared/data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/session.h"
#include "engine/base/isa.h"
#include "engine/cache/entry_format.h"
#include "tests/e2e/cli_runner.h"
#include "tests/e2e/data_subset.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace isa_variants_test {

namespace fs = std::filesystem;

// Every cache entry by its path under the cache folder, re-encoded without what measures time
// (the compute seconds, *seconds metrics and CSV columns): the artifact, its other metrics and
// attachments, byte for byte. Run histories (which name the time of a run) are left out.
std::map<std::string, std::string> CacheEntries(const fs::path& cache) {
  std::map<std::string, std::string> entries;
  for (const auto& file : fs::recursive_directory_iterator(cache)) {
    if (!file.is_regular_file() || file.path().extension() != ".sfa") continue;
    const std::string relative = fs::relative(file.path(), cache).string();
    Result<std::string> entry = EntryWithoutTiming(file.path());
    EXPECT_TRUE(entry.ok()) << relative << ": " << entry.status().ToString();
    if (!entry.ok()) continue;
    entries[relative] = *entry;
  }
  return entries;
}

// Every node's key and metrics but timings, run by run: what must not depend on the variant (nor
// the status: of two nodes with one key, which one computes and which one takes the other's
// artifact is up to the scheduler).
nlohmann::json Results(const nlohmann::json& summary) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& run : summary["runs"]) {
    nlohmann::json nodes = nlohmann::json::object();
    for (const auto& [name, node] : run["nodes"].items()) {
      nlohmann::json metrics = nlohmann::json::object();
      const nlohmann::json all = node.value("metrics", nlohmann::json::object());
      for (const auto& [metric, value] : all.items()) {
        if (!IsTiming(metric)) metrics[metric] = value;
      }
      nodes[name] = {{"key", node["key"]}, {"metrics", metrics}};
    }
    results.push_back(nodes);
  }
  return results;
}

struct VariantRun {
  nlohmann::json summary;
  std::map<std::string, std::string> cache;
};

VariantRun RunUnder(Isa isa, const std::string& pipeline, const std::string& tag,
                    const std::vector<std::string>& extra = {}) {
  const fs::path dir = MakeTempDir("seqflow-isa-" + tag + "-" + std::string(IsaName(isa)));
  ::setenv("SEQFLOW_ISA", std::string(IsaName(isa)).c_str(), 1);
  std::vector<std::string> args = {"run", PipelinePath(pipeline), "--cache", (dir / "cache").string(),
                                   "--out", (dir / "out").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult result = RunSeqflow(args);
  ::unsetenv("SEQFLOW_ISA");
  EXPECT_EQ(result.exit_code, 0) << IsaName(isa) << ": " << result.err;
  VariantRun run;
  run.summary = ReadSummary((dir / "out").string());
  run.cache = CacheEntries(dir / "cache");
  EXPECT_NE(run.summary.value("build", "").find("kernels " + std::string(IsaName(isa))), std::string::npos)
      << run.summary.value("build", "");
  return run;
}

TEST(IsaVariants, EveryVariantWritesTheSameCacheEntriesAndMetrics) {
  const std::vector<Isa> isas = SupportedIsas();
  ASSERT_GE(isas.size(), 2u) << "this machine runs only the baseline variant: nothing to compare";
  const VariantRun baseline = RunUnder(Isa::kBaseline, "tests/isa_variants.yaml", "small");
  ASSERT_GT(baseline.cache.size(), 10u);
  EXPECT_GT(MetricOf(baseline.summary, "crf_viterbi", "f1"), 0.87);  // .8796 measured (10 L-BFGS iterations)
  for (size_t i = 1; i < isas.size(); ++i) {
    const VariantRun run = RunUnder(isas[i], "tests/isa_variants.yaml", "small");
    EXPECT_EQ(Results(run.summary), Results(baseline.summary)) << IsaName(isas[i]);
    ASSERT_EQ(run.cache.size(), baseline.cache.size()) << IsaName(isas[i]);
    for (const auto& [path, bytes] : baseline.cache) {
      auto it = run.cache.find(path);
      ASSERT_NE(it, run.cache.end()) << IsaName(isas[i]) << " has no entry " << path;
      EXPECT_TRUE(it->second == bytes) << IsaName(isas[i]) << ": entry " << path << " differs";
    }
  }
}

TEST(IsaVariants, Conll2000CrfGivesTheSameSummaryUnderBaselineAndBestVariant) {
  // The decoder axis (first order): the order axis's second-order lattice is compared across
  // variants in tests/nodes/chain/second_order_lanes_test.cpp. 20 L-BFGS iterations on the first
  // 3,000 training and 1,000 test sentences (F1 .9181; the whole files converged, .9380, cost ~25x
  // the CPU): one bit that differs in any kernel's first 20 passes over 3.2 M weights shows in the
  // objective, and so in the summary.
  const std::string data = DataSubset({{"conll2000/train.txt", 3000}, {"conll2000/test.txt", 1000}});
  const std::vector<std::string> reduced = {"--ablation", "decoder", "--set", "crf.max_iterations=20",
                                            "--set",      "data=" + data};
  const VariantRun baseline = RunUnder(Isa::kBaseline, "conll2000_crf.yaml", "crf", reduced);
  const VariantRun best = RunUnder(SupportedIsas().back(), "conll2000_crf.yaml", "crf", reduced);
  EXPECT_EQ(Results(best.summary), Results(baseline.summary));
  EXPECT_GT(MetricOf(baseline.summary, "score", "f1"), 0.917);
}

TEST(IsaVariants, AnUnknownOrUnsupportedChoiceIsAClearError) {
  ::setenv("SEQFLOW_ISA", "avx1024", 1);
  const CliResult unknown = RunSeqflow({"--version"});
  ::unsetenv("SEQFLOW_ISA");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("SEQFLOW_ISA=avx1024: unknown instruction set; use one of baseline, avx2, avx512"),
            std::string::npos)
      << unknown.err;
  const CliResult version = RunSeqflow({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("numerics portable-1, kernels " + std::string(IsaName(SupportedIsas().back()))),
            std::string::npos)
      << version.out;
}

}  // namespace isa_variants_test
}  // namespace seqflow::testutil
