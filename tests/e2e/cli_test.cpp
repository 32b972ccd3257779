// The seqflow binary end to end on pipelines/tests/: caching, invalidation, crash safety,
// concurrency and error reporting, as a user sees them.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/base/subprocess.h"
#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace cli_test {

namespace fs = std::filesystem;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("seqflow-e2e");
    cache_ = dir_ + "/cache";
  }
  // Runs the tiny pipeline (plus extra args) with this test's cache into DIR/<out>.
  CliResult RunTiny(const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_,
                                     "--out", dir_ + "/" + out, "--ablation", "decoder", "-j", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunSeqflow(args);
  }
  std::vector<fs::path> CacheEntries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(cache_))
      if (e.path().extension() == ".sfa") out.push_back(e.path());
    return out;
  }
  std::string dir_, cache_;
};

TEST(PipelineTests, EveryTestPipelineRunsTwiceSecondFullyCached) {
  int pipelines = 0;
  for (const auto& entry : fs::directory_iterator(PipelinePath("tests"))) {
    if (entry.path().extension() != ".yaml") continue;
    ++pipelines;
    std::string dir = MakeTempDir("seqflow-twice");
    std::vector<std::string> args = {"run", entry.path().string(), "--cache", dir + "/cache", "--out"};
    CliResult first = RunSeqflow({args[0], args[1], args[2], args[3], args[4], dir + "/a"});
    ASSERT_EQ(first.exit_code, 0) << entry.path() << "\n" << first.err;
    CliResult second = RunSeqflow({args[0], args[1], args[2], args[3], args[4], dir + "/b"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    nlohmann::json a = ReadSummary(dir + "/a"), b = ReadSummary(dir + "/b");
    ASSERT_EQ(a["runs"].size(), b["runs"].size());
    for (size_t r = 0; r < b["runs"].size(); ++r) {
      for (const auto& [node, status] : NodeStatuses(b, r)) EXPECT_EQ(status, "cached") << entry.path() << " " << node;
      for (const auto& [node, value] : a["runs"][r]["nodes"].items())
        EXPECT_EQ(value["metrics"], b["runs"][r]["nodes"][node]["metrics"]) << node;
      // The run's resolved.yaml is the pipeline it ran: planned on the same cache, all cached.
      const std::string resolved =
          dir + "/b/" + (b["runs"].size() == 1 ? "" : "run-" + std::to_string(r + 1) + "/") + "resolved.yaml";
      CliResult plan = RunSeqflow({"plan", resolved, "--cache", dir + "/cache"});
      ASSERT_EQ(plan.exit_code, 0) << resolved << "\n" << plan.err;
      for (const std::string reason : {"new", "not in cache", "changed"})
        EXPECT_EQ(plan.out.find(reason), std::string::npos) << resolved << "\n" << plan.out;
    }
  }
  EXPECT_GE(pipelines, 1);
}

TEST_F(CliTest, ChangingOneParameterRecomputesExactlyItsNodeAndDescendants) {
  ASSERT_EQ(RunTiny("a").exit_code, 0);
  CliResult again = RunTiny("b", {"--set", "hmm.smoothing.emission=0.1"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  nlohmann::json s = ReadSummary(dir_ + "/b");
  std::map<std::string, std::string> expected = {{"train", "cached"},     {"test", "cached"},     {"unlabeled", "cached"},
                                                 {"vocab", "cached"},     {"hmm", "computed"},    {"predicted", "computed"},
                                                 {"score", "computed"},   {"tokens", "computed"}};
  EXPECT_EQ(NodeStatuses(s, 0), expected);
}

TEST_F(CliTest, FinishLinesCountTheNodesOfEveryRun) {
  CliResult run = RunTiny("a");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json s = ReadSummary(dir_ + "/a");
  size_t total = 0;
  for (size_t r = 0; r < s["runs"].size(); ++r) total += NodeStatuses(s, r).size();
  ASSERT_GT(s["runs"].size(), 1u);
  for (size_t k = 1; k <= total; ++k)
    EXPECT_NE(run.err.find(fmt::format("({}/{} nodes)", k, total)), std::string::npos) << k << "\n" << run.err;
  EXPECT_EQ(run.err.find(fmt::format("({}/{} nodes)", total + 1, total)), std::string::npos) << run.err;
}

TEST_F(CliTest, PlanNamesTheChangedParameter) {
  ASSERT_EQ(RunTiny("a").exit_code, 0);
  CliResult plan = RunSeqflow({"plan", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_, "--ablation",
                               "decoder", "--set", "hmm.smoothing.emission=0.1"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("params changed"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("smoothing.emission: 0.05 -> 0.1"), std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("input changed"), std::string::npos) << plan.out;
}

TEST_F(CliTest, DataFileRecomputesItsReaderOnlyWhenBytesChange) {
  std::string samples = dir_ + "/samples";
  fs::copy(SourceDir() + "/datasets/samples", samples);
  std::vector<std::string> set = {"--set", "samples=" + samples};
  ASSERT_EQ(RunTiny("a", set).exit_code, 0);
  // Same bytes, new mtime: nothing recomputes.
  fs::last_write_time(samples + "/tiny_fields.test.conll", fs::file_time_type::clock::now() + std::chrono::hours(1));
  ASSERT_EQ(RunTiny("b", set).exit_code, 0);
  for (const auto& [node, status] : NodeStatuses(ReadSummary(dir_ + "/b"))) EXPECT_EQ(status, "cached") << node;
  // New bytes: the test reader and what depends on it recompute.
  std::ofstream(samples + "/tiny_fields.test.conll", std::ios::app) << "\nZ.\tauthor\nZed.\ttitle\n";
  ASSERT_EQ(RunTiny("c", set).exit_code, 0);
  std::map<std::string, std::string> expected = {{"train", "cached"},      {"test", "computed"},  {"unlabeled", "cached"},
                                                 {"vocab", "cached"},      {"hmm", "cached"},     {"predicted", "computed"},
                                                 {"score", "computed"},    {"tokens", "computed"}};
  EXPECT_EQ(NodeStatuses(ReadSummary(dir_ + "/c")), expected);
}

TEST_F(CliTest, TruncatedCacheEntryIsReportedAndRecomputed) {
  ASSERT_EQ(RunTiny("a").exit_code, 0);
  std::vector<fs::path> entries = CacheEntries();
  ASSERT_FALSE(entries.empty());
  for (const auto& e : entries) fs::resize_file(e, fs::file_size(e) / 2);
  CliResult again = RunTiny("b");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("corrupt cache entry"), std::string::npos) << again.err;
  nlohmann::json a = ReadSummary(dir_ + "/a"), b = ReadSummary(dir_ + "/b");
  for (const auto& [node, status] : NodeStatuses(b)) EXPECT_EQ(status, "computed") << node;
  EXPECT_EQ(MetricOf(a, "score", "f1"), MetricOf(b, "score", "f1"));
}

TEST_F(CliTest, TwoConcurrentRunsOnOneCacheBothSucceedWithEqualResults) {
  std::vector<std::string> base = {"run", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_, "--out"};
  std::vector<std::string> a = base, b = base;
  a.push_back(dir_ + "/a");
  b.push_back(dir_ + "/b");
  int pa = StartSeqflow(a), pb = StartSeqflow(b);
  EXPECT_EQ(WaitSeqflow(pa), 0);
  EXPECT_EQ(WaitSeqflow(pb), 0);
  nlohmann::json sa = ReadSummary(dir_ + "/a"), sb = ReadSummary(dir_ + "/b");
  for (size_t r = 0; r < sa["runs"].size(); ++r)
    EXPECT_EQ(MetricOf(sa, "score", "f1", r), MetricOf(sb, "score", "f1", r));
}

TEST_F(CliTest, RunKilledMidWayLeavesNoEntryThatFailsToLoad) {
  // The CoNLL-2000 pipeline runs long enough (~0.4 s cold) for the kills to land mid-run.
  for (int delay_ms : {40, 120, 250}) {
    int pid = StartSeqflow({"run", PipelinePath("conll2000_hmm.yaml"), "--cache", cache_, "-j", "2"});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    WaitSeqflow(pid);
  }
  CliResult after = RunSeqflow({"run", PipelinePath("conll2000_hmm.yaml"), "--cache", cache_, "-j", "2"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.err.find("corrupt"), std::string::npos) << after.err;
  CliResult ls = RunSeqflow({"cache", "--cache", cache_, "ls"});
  EXPECT_EQ(ls.out.find("(corrupt)"), std::string::npos) << ls.out;
}

TEST_F(CliTest, InvalidPipelineExitsWithTwoAndALocatedMessage) {
  std::string path = dir_ + "/bad.yaml";
  std::ofstream(path) << "name: bad\nnodes:\n  a: {kind: read.conll, path: x.conll}\n"
                         "  p: {kind: decode.vitterbi, in: {model: a, data: a}}\n";
  CliResult r = RunSeqflow({"run", path, "--cache", cache_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'decode.viterbi'"), std::string::npos) << r.err;
}

// What used to do nothing and exit 0 (or give CLI11's bare "A subcommand is required"): each an
// error naming the word and the nearest right one, exit 2.
TEST_F(CliTest, TyposAndIgnoredSettingsAreErrorsNotSilentNoOps) {
  for (const std::string command : {"run", "plan"}) {
    CliResult r = RunSeqflow({command, PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_, "--force", "hmmm"});
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("--force 'hmmm': pipeline 'tiny-hmm' has no node of that name — did you mean 'hmm'?"),
              std::string::npos)
        << r.err;
  }
  CliResult set = RunSeqflow({"plan", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_, "--set",
                              "predicted.kind=decode.sms"});
  EXPECT_EQ(set.exit_code, 2);
  EXPECT_NE(set.err.find("--set predicted.kind would be ignored: ablation axis 'decoder' sets predicted.kind"),
            std::string::npos)
      << set.err;
  EXPECT_NE(set.err.find("tiny_hmm.yaml:15:"), std::string::npos) << set.err;
  CliResult rm = RunSeqflow({"cache", "--cache", cache_, "rm", "hmm.supervisd"});
  EXPECT_EQ(rm.exit_code, 2);
  EXPECT_NE(rm.err.find("did you mean 'hmm.supervised'?"), std::string::npos) << rm.err;
  CliResult command = RunSeqflow({"rnu", PipelinePath("tests/tiny_hmm.yaml")});
  EXPECT_EQ(command.exit_code, 2);
  EXPECT_NE(command.err.find("unknown command 'rnu' — did you mean 'run'?"), std::string::npos) << command.err;
  CliResult sub = RunSeqflow({"cache", "--cache", cache_, "lss"});
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_NE(sub.err.find("unknown command 'lss' — did you mean 'ls'? (seqflow cache --help"), std::string::npos)
      << sub.err;
  // Options where users type them: after the cache subcommand too.
  ASSERT_EQ(RunTiny("out").exit_code, 0);
  CliResult ls = RunSeqflow({"cache", "ls", "--cache", cache_});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("hmm.supervised"), std::string::npos) << ls.out;
}

// The record says what ran: the command, times, host and git state, every node's parameters
// (defaults included), and per run a resolved.yaml that is the pipeline as that run ran it —
// planned again with the same cache, every node of it is cached.
TEST_F(CliTest, TheRecordSaysWhatRanAndItsResolvedPipelineIsFullyCached) {
  ASSERT_EQ(RunTiny("out", {"--set", "hmm.smoothing.emission=0.07"}).exit_code, 0);
  const nlohmann::json s = ReadSummary(dir_ + "/out");
  const nlohmann::json& call = s["invocation"];
  ASSERT_TRUE(call.is_object()) << s.dump(2);
  EXPECT_EQ(call["command"][1], "run");
  EXPECT_NE(std::find(call["command"].begin(), call["command"].end(), "hmm.smoothing.emission=0.07"),
            call["command"].end());
  EXPECT_EQ(call["started"].get<std::string>().size(), 20u) << call;  // 2026-12-07T06:30:00Z
  EXPECT_LE(call["started"].get<std::string>(), call["finished"].get<std::string>());
  EXPECT_FALSE(call["host"].get<std::string>().empty());
  EXPECT_EQ(call["pipeline_file"], fs::path(PipelinePath("tests/tiny_hmm.yaml")).lexically_normal().string());
  const nlohmann::json& hmm = s["runs"][0]["nodes"]["hmm"]["params"];
  EXPECT_EQ(hmm["smoothing.emission"], "0.070000000000000007");
  EXPECT_EQ(hmm["smoothing.transition"], "0.20000000000000001");
  for (const std::string run : {"run-1", "run-2"}) {
    const std::string resolved = dir_ + "/out/" + run + "/resolved.yaml";
    const std::string text = Slurp(resolved);
    EXPECT_NE(text.find("    smoothing:\n      emission: 0.07\n"), std::string::npos) << text;
    CliResult plan = RunSeqflow({"plan", resolved, "--cache", cache_});
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    for (const std::string reason : {"new", "not in cache", "changed"})
      EXPECT_EQ(plan.out.find(reason), std::string::npos) << reason << "\n" << plan.out;
    EXPECT_NE(plan.out.find("cached"), std::string::npos) << plan.out;
  }
  EXPECT_NE(Slurp(dir_ + "/out/run-2/resolved.yaml").find("kind: decode.sms"), std::string::npos);
}

// resolved.yaml keeps the data roles: run again, it checks them as the run did, so a test set
// wired into a trainer there is refused as in the pipeline it came from.
TEST_F(CliTest, AResolvedPipelineKeepsItsDataRoles) {
  const fs::path samples = fs::path(PipelinePath("tests/tiny_hmm.yaml")).parent_path() / "../../datasets/samples";
  const std::string pipeline = dir_ + "/roles.yaml";
  std::ofstream(pipeline) << "name: roles\nnodes:\n"
                          << "  train: {kind: read.conll, path: " << (samples / "tiny_fields.train.conll")
                          << ", separator: tab, encoding: runs}\n"
                          << "  test: {kind: read.conll, path: " << (samples / "tiny_fields.test.conll")
                          << ", separator: tab, encoding: runs, role: test}\n"
                          << "  vocab: {kind: features.vocab, in: [train], min_count: 1}\n"
                          << "  hmm: {kind: hmm.supervised, in: {data: train, vocab: vocab}}\n"
                          << "  predicted: {kind: decode.viterbi, in: {model: hmm, data: test}}\n";
  ASSERT_EQ(RunSeqflow({"run", pipeline, "--cache", cache_, "--out", dir_ + "/roles"}).exit_code, 0);
  std::string resolved = Slurp(dir_ + "/roles/resolved.yaml");
  EXPECT_NE(resolved.find("  test:\n    kind: read.conll\n    role: test\n"), std::string::npos) << resolved;
  const std::string trained_on_train = "in: {data: train, vocab: vocab}";
  const size_t at = resolved.find(trained_on_train);
  ASSERT_NE(at, std::string::npos) << resolved;
  resolved.replace(at, trained_on_train.size(), "in: {data: test, vocab: vocab}");
  std::ofstream(dir_ + "/leak.yaml") << resolved;
  CliResult plan = RunSeqflow({"plan", dir_ + "/leak.yaml", "--cache", cache_});
  EXPECT_EQ(plan.exit_code, 2) << plan.out << plan.err;
  EXPECT_NE(plan.err.find("test data reaches port 'data' of node 'hmm'"), std::string::npos) << plan.err;
}

TEST_F(CliTest, EachRunWithoutOutKeepsARecordOfItsOwnAndLatestIsTheNewest) {
  const std::string records = dir_ + "/records";
  std::vector<std::string> args = {"run", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_, "--records", records};
  CliResult first = RunSeqflow(args), second = RunSeqflow(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  std::vector<fs::path> folders;
  for (const auto& e : fs::directory_iterator(records + "/tiny-hmm"))
    if (!e.is_symlink()) folders.push_back(e.path());
  ASSERT_EQ(folders.size(), 2u);
  // The second run, all cached, did not touch the first, computing run's record.
  int computed = 0, cached = 0;
  for (const fs::path& folder : folders) {
    const std::map<std::string, std::string> status = NodeStatuses(ReadSummary(folder.string()));
    const bool all_cached = std::all_of(status.begin(), status.end(), [](auto& s) { return s.second == "cached"; });
    (all_cached ? cached : computed) += 1;
    EXPECT_NE((all_cached ? second : first).err.find("record: " + folder.string()), std::string::npos);
    if (all_cached) {
      EXPECT_EQ(fs::read_symlink(records + "/tiny-hmm/latest"), folder.filename());
    }
  }
  EXPECT_EQ(computed, 1);
  EXPECT_EQ(cached, 1);
}

TEST_F(CliTest, AnOutFolderWithAnEarlierRecordIsReplacedOnlyWhenAsked) {
  ASSERT_EQ(RunTiny("out").exit_code, 0);
  const std::string computed = Slurp(dir_ + "/out/summary.json");
  CliResult refused = RunTiny("out");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("holds the record of an earlier run of 'tiny-hmm'"), std::string::npos) << refused.err;
  EXPECT_EQ(Slurp(dir_ + "/out/summary.json"), computed);
  std::ofstream(dir_ + "/out/run-1/notes.txt") << "mine";
  CliResult kept = RunTiny("out", {"--replace"});
  EXPECT_EQ(kept.exit_code, 2);
  EXPECT_NE(kept.err.find("run-1/notes.txt, which is not part of it"), std::string::npos) << kept.err;
  fs::remove(dir_ + "/out/run-1/notes.txt");
  ASSERT_EQ(RunSeqflow({"report", dir_ + "/out", "--plots"}).exit_code, 0);
  ASSERT_EQ(RunTiny("out", {"--replace", "--set", "hmm.smoothing.emission=0.03"}).exit_code, 0);
  EXPECT_EQ(NodeStatuses(ReadSummary(dir_ + "/out"))["hmm"], "computed");
  EXPECT_FALSE(fs::exists(dir_ + "/out/report.md")) << "the earlier record goes whole";
  EXPECT_FALSE(fs::exists(dir_ + "/out/run-1/score.sentences.svg"));
}

TEST_F(CliTest, FailingNodeStopsTheRunAndNamesTheNode) {
  std::string path = dir_ + "/fails.yaml";
  std::ofstream(dir_ + "/broken.conll") << "word B-NP\nword2\n";
  std::ofstream(path) << "name: fails\nnodes:\n  a: {kind: read.conll, path: broken.conll}\n"
                         "  v: {kind: features.vocab, in: [a]}\n";
  CliResult r = RunSeqflow({"run", path, "--cache", cache_, "--out", dir_ + "/out"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("broken.conll:2"), std::string::npos) << r.err;
  std::map<std::string, std::string> expected = {{"a", "failed"}, {"v", "skipped"}};
  EXPECT_EQ(NodeStatuses(ReadSummary(dir_ + "/out")), expected);
  EXPECT_TRUE(CacheEntries().empty());
}

TEST_F(CliTest, KindsAndGraphDescribeTheCatalogueAndTheDag) {
  CliResult kinds = RunSeqflow({"kinds"});
  ASSERT_EQ(kinds.exit_code, 0);
  for (const char* k : {"read.conll", "read.text", "split", "features.vocab", "hmm.supervised", "decode.viterbi",
                        "decode.sms", "eval.tokens", "eval.segments", "write.conll"})
    EXPECT_NE(kinds.out.find(k), std::string::npos) << k;
  CliResult one = RunSeqflow({"kinds", "hmm.supervised"});
  EXPECT_NE(one.out.find("smoothing.emission"), std::string::npos) << one.out;
  // Defaults read as written, not as the cache key's %.17g.
  CliResult crf = RunSeqflow({"kinds", "crf.train"});
  EXPECT_NE(crf.out.find("= 1e-05 "), std::string::npos) << crf.out;
  EXPECT_EQ(crf.out.find("0000000000000001"), std::string::npos) << crf.out;
  EXPECT_NE(RunSeqflow({"kinds", "write.conll"}).out.find("{space|tab}"), std::string::npos);
  // Parameter columns line up whatever a name's length, and lambda says what it takes.
  CliResult em = RunSeqflow({"kinds", "hmm.em"});
  std::set<size_t> equals_at;
  std::istringstream lines(em.out);
  for (std::string line; std::getline(lines, line);)
    if (line.find(" = ") != std::string::npos && line.rfind("  in ", 0) != 0) equals_at.insert(line.find(" = "));
  EXPECT_EQ(equals_at.size(), 1u) << em.out;
  EXPECT_NE(em.out.find("lambda                number or mle"), std::string::npos) << em.out;
  CliResult graph = RunSeqflow({"graph", PipelinePath("tests/tiny_hmm.yaml")});
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  EXPECT_NE(graph.out.find("digraph"), std::string::npos);
  EXPECT_NE(graph.out.find("hmm.supervised"), std::string::npos);
  // The shape needs no data: a pipeline whose files do not exist yet is drawn all the same.
  std::ofstream(dir_ + "/later.yaml") << "name: later\nnodes:\n  train: {kind: read.conll, path: not-yet.conll}\n"
                                         "  vocab: {kind: features.vocab, in: [train]}\n";
  CliResult later = RunSeqflow({"graph", dir_ + "/later.yaml"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_NE(later.out.find("features.vocab"), std::string::npos) << later.out;
  EXPECT_EQ(RunSeqflow({"plan", dir_ + "/later.yaml", "--cache", cache_}).exit_code, 2) << "plan hashes the data";
}

// The completion script, sourced by bash, completes what the command line declares.
TEST_F(CliTest, CompletionCompletesCommandsOptionsAndKinds) {
  CliResult bash = RunSeqflow({"completion", "bash"});
  ASSERT_EQ(bash.exit_code, 0) << bash.err;
  std::ofstream(dir_ + "/complete.sh") << bash.out;
  auto complete = [&](const std::string& words, int index) {
    const std::string script = dir_ + "/ask.sh";
    std::ofstream(script) << "source " << dir_ << "/complete.sh\nCOMP_WORDS=(" << words << ")\nCOMP_CWORD=" << index
                          << "\n_seqflow\necho \"${COMPREPLY[*]}\"\n";
    Result<ProcessOutput> r = RunProcess({"/bin/bash", script});
    return r.ok() ? r->out : r.status().ToString();
  };
  EXPECT_EQ(complete("seqflow ru", 1), "run run-node runs\n");
  EXPECT_EQ(complete("seqflow diff a b --f", 4), "--format\n");
  EXPECT_EQ(complete("seqflow cache rm crf.", 3), "crf.hysol crf.lop crf.train\n");
  EXPECT_EQ(complete("seqflow cache g", 2), "gc\n");
  CliResult zsh = RunSeqflow({"completion", "zsh"});
  EXPECT_NE(zsh.out.find("autoload -U +X bashcompinit && bashcompinit\n"), std::string::npos) << zsh.out;
  EXPECT_EQ(RunSeqflow({"completion", "fish"}).exit_code, 2);
}

// A mistyped --cache naming a user's folder whose layout happens to look like a cache's (old files
// in tasks/, status/, checkpoints/, locks/, sweeps/): gc and rm refuse it, naming it, and remove
// nothing. A folder a run used is tagged (CACHEDIR.TAG) and pruned as before.
TEST_F(CliTest, CacheGcAndRmRefuseAFolderNoRunTaggedAsACache) {
  const fs::path folder = dir_ + "/notacache";
  std::vector<fs::path> files;
  for (const char* sub : {"tasks", "status", "checkpoints", "locks", "sweeps/x"}) {
    fs::create_directories(folder / sub);
    files.push_back(folder / sub / "notes.txt");
    std::ofstream(files.back()) << "a user's file\n";
    fs::last_write_time(files.back(), fs::file_time_type::clock::now() - std::chrono::hours(24 * 60));
  }
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"gc", "--keep-days", "0"}, std::vector<std::string>{"rm", "hmm.supervised"}}) {
    std::vector<std::string> args = {"cache", "--cache", folder.string()};
    args.insert(args.end(), command.begin(), command.end());
    CliResult refused = RunSeqflow(args);
    EXPECT_EQ(refused.exit_code, 2) << command[0] << ": " << refused.out;
    EXPECT_NE(refused.err.find("'" + folder.string() + "' is not a seqflow cache"), std::string::npos)
        << refused.err;
  }
  for (const fs::path& file : files) EXPECT_TRUE(fs::exists(file)) << file;

  ASSERT_EQ(RunTiny("out").exit_code, 0);
  EXPECT_TRUE(fs::exists(cache_ + "/CACHEDIR.TAG"));
  CliResult gc = RunSeqflow({"cache", "--cache", cache_, "gc", "--keep-days", "0"});
  EXPECT_EQ(gc.exit_code, 0) << gc.err;
  EXPECT_TRUE(CacheEntries().empty());
}

// A task key is a file name in the cache (tasks/KEY.json, status/KEY.status): run-node takes only
// keys as the DAG makes them, from its argument or a --list line, and writes nothing elsewhere.
TEST_F(CliTest, RunNodeRefusesAKeyThatIsAPath) {
  const std::string outside = dir_ + "/outside";
  fs::create_directories(outside);
  const std::string escape = "../outside/X";
  CliResult by_argument = RunSeqflow({"run-node", "--cache", cache_, escape});
  EXPECT_EQ(by_argument.exit_code, 2);
  EXPECT_NE(by_argument.err.find("bad cache key '../outside/X'"), std::string::npos) << by_argument.err;

  const std::string list = dir_ + "/keys.txt";
  std::ofstream(list) << escape << "\n";
  ::setenv("SLURM_ARRAY_TASK_ID", "0", 1);
  CliResult by_list = RunSeqflow({"run-node", "--cache", cache_, "--list", list});
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(by_list.exit_code, 2);
  EXPECT_NE(by_list.err.find(list + ": line 0: bad cache key '../outside/X'"), std::string::npos) << by_list.err;

  // A manifest under a good key that names another key: refused before anything is written.
  const std::string key(32, 'a');
  fs::create_directories(cache_ + "/tasks");
  std::ofstream(cache_ + "/tasks/" + key + ".json")
      << R"({"pipeline": "p.yaml", "set": [], "ablation": "", "run": 0, "node": "n", "key": "../../outside/X"})";
  CliResult by_manifest = RunSeqflow({"run-node", "--cache", cache_, key});
  EXPECT_NE(by_manifest.exit_code, 0);
  EXPECT_NE(by_manifest.err.find("is the manifest of key '../../outside/X'"), std::string::npos) << by_manifest.err;
  EXPECT_TRUE(fs::is_empty(outside));
}

// Restarted with glibc.malloc.hugetlb=1 added to what the user's GLIBC_TUNABLES says, unless it
// names hugetlb already (=0 opts out); --version reports what the process runs on.
TEST(HugePages, SeqflowRestartsOnHugePagesUnlessTheTunableIsSet) {
  const auto version_under = [](const char* tunables) {
    if (tunables == nullptr)
      ::unsetenv("GLIBC_TUNABLES");
    else
      ::setenv("GLIBC_TUNABLES", tunables, 1);
    CliResult version = RunSeqflow({"--version"});
    ::unsetenv("GLIBC_TUNABLES");
    EXPECT_EQ(version.exit_code, 0) << version.err;
    return version.out;
  };
  EXPECT_NE(version_under(nullptr).find(", malloc on huge pages"), std::string::npos);
  EXPECT_NE(version_under("glibc.malloc.arena_max=2").find(", malloc on huge pages"), std::string::npos);
  EXPECT_NE(version_under("glibc.malloc.hugetlb=0").find(", malloc on small pages"), std::string::npos);
  EXPECT_NE(version_under("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0").find(", malloc on small pages"),
            std::string::npos);
}

}  // namespace cli_test
}  // namespace seqflow::testutil
