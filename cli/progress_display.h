// Progress of `seqflow run` on stderr. Not a terminal (CI logs, files): plain lines, one per node
// start and finish and at most one progress line every few seconds per node (run_command.cpp).
// A terminal: finished nodes as the same plain lines, and below them one live line per running
// node — a bar with done/total, elapsed time and an ETA, or a spinner when the node reports no
// total — and a last line saying how many of the invocation's nodes are done, redrawn in place at
// most ten times a second. Plain finish lines end with the same count.
//
// The text is made by pure functions of the progress states and the time (tested); TtyProgress
// is the thin shell that keeps the states and writes ANSI escape codes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/exec/executor.h"

namespace seqflow::cli {

using ProgressClock = std::chrono::steady_clock;

// One running node as the display knows it.
struct NodeProgress {
  std::string label;                 // "[run 1/2] em": run prefix and node name
  ProgressClock::time_point started;  // node start
  ProgressClock::time_point updated;  // last progress report (== started before any)
  int64_t done = 0, total = 0;        // of the last report; total <= 0 means unknown
  std::string note{};                 // of the last report ("objective -1.2e+05"), shown last
};

// Seconds left at the rate so far: the node did `done` items in (updated - started), so the rest
// takes (total - done) times as long per item, less the time since the last report (never below
// 0). nullopt without a positive total and done.
std::optional<double> EtaSeconds(const NodeProgress& p, ProgressClock::time_point now);

// "0:07", "12:34", "1:02:03" (seconds rounded down; negative as 0).
std::string FormatDuration(double seconds);

// The live lines, one per node in the given order, each cut to at most `width` columns:
//   "[run 1/2] em     [#######-------------]   37/100   0:12  ETA 0:21  objective -1.2e+05"
//   "[run 1/2] vocab  |                                  0:01"
// A node with a total gets the bar; others a spinner that turns with `now`.
std::vector<std::string> ProgressLines(const std::vector<NodeProgress>& running, ProgressClock::time_point now,
                                       size_t width);

// How far the invocation is: its nodes over every run, and how the finished ones ended.
struct NodeTally {
  int64_t total = 0;
  int64_t computed = 0, cached = 0, failed = 0, skipped = 0;

  int64_t finished() const { return computed + cached + failed + skipped; }
  void Count(NodeStatus status);
};

// "12/40 nodes  3 computed  9 cached  2 running  1:23" (failed and skipped named only when some
// are).
std::string TallyLine(const NodeTally& tally, size_t running, double elapsed_seconds);

// The permanent line of a finished node: "computed score (eval.segments) 0.021s", then with a
// tally "  (12/40 nodes)", and the error on a second line for a failed node.
std::string FinishLine(const std::string& prefix, const NodeOutcome& outcome, const NodeTally* tally = nullptr);

// Owns the live block on a terminal. Events (from any thread) update the states; a background
// thread redraws every 100 ms; a finished node's line is printed above the block at once.
// The destructor stops the thread and erases the block. Thread-safe.
class TtyProgress {
 public:
  // REQUIRES: `out` is a terminal and outlives this; `total_nodes` counts every run's nodes.
  TtyProgress(std::FILE* out, int64_t total_nodes);
  ~TtyProgress();
  TtyProgress(const TtyProgress&) = delete;
  TtyProgress& operator=(const TtyProgress&) = delete;

  // The ExecOptions::on_event of one run; `prefix` starts its lines ("[run 1/2] " or "").
  std::function<void(const ExecEvent&)> Handler(std::string prefix);

 private:
  void OnEvent(const std::string& prefix, const ExecEvent& e);
  void Erase();   // REQUIRES: mu_ held
  void Redraw();  // REQUIRES: mu_ held
  void Tick();

  std::FILE* out_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::map<std::string, NodeProgress> running_;  // by label, so lines keep a stable order
  NodeTally tally_;
  ProgressClock::time_point started_ = ProgressClock::now();
  size_t drawn_ = 0;                             // live lines now on screen
  std::thread ticker_;
};

}  // namespace seqflow::cli
