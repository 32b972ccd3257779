#include "cli/progress_display.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace seqflow::cli {
namespace {

constexpr size_t kBarWidth = 20;
constexpr size_t kMaxLabelWidth = 32;
constexpr auto kRedrawPeriod = std::chrono::milliseconds(100);

double Seconds(ProgressClock::duration d) { return std::chrono::duration<double>(d).count(); }

// Terminal columns of UTF-8 text, one per code point, and its prefix of at most `width` of them.
size_t Columns(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string Cut(const std::string& s, size_t width) {
  size_t columns = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if ((s[i] & 0xC0) != 0x80 && columns++ == width) return s.substr(0, i);
  return s;
}

std::string Bar(int64_t done, int64_t total) {
  size_t filled = static_cast<size_t>(std::clamp<double>(static_cast<double>(done) / static_cast<double>(total), 0, 1) *
                                      kBarWidth);
  std::string bar = "[" + std::string(kBarWidth, '-') + "]";
  std::fill_n(bar.begin() + 1, filled, '#');
  return bar;
}

char Spinner(ProgressClock::time_point now) {
  auto tenths = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() / 100;
  return "|/-\\"[tenths % 4];
}

std::string Line(const NodeProgress& p, ProgressClock::time_point now, size_t label_width) {
  std::string label = Cut(p.label, label_width);
  label += std::string(label_width - Columns(label), ' ');
  std::string elapsed = FormatDuration(Seconds(now - p.started));
  if (p.total <= 0) {
    std::string steps = p.done > 0 ? fmt::format("step {}", p.done) : "";
    return fmt::format("{}  {:<{}}  {:>12}  {}{}", label, Spinner(now), kBarWidth + 2, steps, elapsed,
                       p.note.empty() ? "" : "  " + p.note);
  }
  std::optional<double> eta = EtaSeconds(p, now);
  std::string count = fmt::format("{}/{}", p.done, p.total);
  return fmt::format("{}  {}  {:>12}  {}  ETA {}{}", label, Bar(p.done, p.total), count, elapsed,
                     eta ? FormatDuration(*eta) : "?", p.note.empty() ? "" : "  " + p.note);
}

size_t TerminalWidth(std::FILE* out) {
  winsize size{};
  return ::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
}

}  // namespace

std::optional<double> EtaSeconds(const NodeProgress& p, ProgressClock::time_point now) {
  if (p.total <= 0 || p.done <= 0) return std::nullopt;
  double per_item = Seconds(p.updated - p.started) / static_cast<double>(p.done);
  double left = per_item * static_cast<double>(std::max<int64_t>(p.total - p.done, 0)) - Seconds(now - p.updated);
  return std::max(left, 0.0);
}

std::string FormatDuration(double seconds) {
  auto s = static_cast<int64_t>(std::isfinite(seconds) ? std::max(seconds, 0.0) : 0.0);
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

std::vector<std::string> ProgressLines(const std::vector<NodeProgress>& running, ProgressClock::time_point now,
                                       size_t width) {
  size_t label_width = 0;
  for (const NodeProgress& p : running) label_width = std::max(label_width, std::min(Columns(p.label), kMaxLabelWidth));
  std::vector<std::string> lines;
  for (const NodeProgress& p : running) lines.push_back(Cut(Line(p, now, label_width), width));
  return lines;
}

void NodeTally::Count(NodeStatus status) {
  switch (status) {
    case NodeStatus::kComputed: ++computed; break;
    case NodeStatus::kCached: ++cached; break;
    case NodeStatus::kFailed: ++failed; break;
    case NodeStatus::kSkipped: ++skipped; break;
  }
}

std::string TallyLine(const NodeTally& t, size_t running, double elapsed_seconds) {
  std::string line = fmt::format("{}/{} nodes  {} computed  {} cached", t.finished(), t.total, t.computed, t.cached);
  if (t.failed > 0) line += fmt::format("  {} failed", t.failed);
  if (t.skipped > 0) line += fmt::format("  {} skipped", t.skipped);
  return line + fmt::format("  {} running  {}", running, FormatDuration(elapsed_seconds));
}

std::string FinishLine(const std::string& prefix, const NodeOutcome& o, const NodeTally* tally) {
  std::string line = fmt::format("{}{:<8} {} ({}) {:.3f}s", prefix, NodeStatusName(o.status), o.name, o.kind, o.seconds);
  if (tally != nullptr) line += fmt::format("  ({}/{} nodes)", tally->finished(), tally->total);
  if (!o.error.ok()) line += "\n    " + o.error.ToString();
  return line;
}

TtyProgress::TtyProgress(std::FILE* out, int64_t total_nodes)
    : out_(out), tally_{.total = total_nodes}, ticker_([this] { Tick(); }) {}

TtyProgress::~TtyProgress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    Erase();
  }
  wake_.notify_all();
  ticker_.join();
}

std::function<void(const ExecEvent&)> TtyProgress::Handler(std::string prefix) {
  return [this, prefix = std::move(prefix)](const ExecEvent& e) { OnEvent(prefix, e); };
}

void TtyProgress::OnEvent(const std::string& prefix, const ExecEvent& e) {
  auto now = ProgressClock::now();
  std::lock_guard<std::mutex> lock(mu_);
  std::string label = prefix + e.node;
  if (e.type == ExecEvent::kStart) {
    running_[label] = NodeProgress{label, now, now, 0, 0};
  } else if (e.type == ExecEvent::kProgress) {
    NodeProgress& p = running_.try_emplace(label, NodeProgress{label, now, now, 0, 0}).first->second;
    p.updated = now, p.done = e.done, p.total = e.total, p.note = e.note;
  } else if (e.type == ExecEvent::kFinish) {
    running_.erase(prefix + e.outcome->name);
    tally_.Count(e.outcome->status);
    Erase();
    std::fprintf(out_, "%s\n", FinishLine(prefix, *e.outcome).c_str());
    Redraw();
  }
}

// "ESC[nF" moves to the start of the line n lines up; "ESC[J" clears from there to the end.
void TtyProgress::Erase() {
  if (drawn_ > 0) std::fprintf(out_, "\x1b[%zuF\x1b[J", drawn_);
  drawn_ = 0;
  std::fflush(out_);
}

void TtyProgress::Redraw() {
  std::vector<NodeProgress> running;
  for (const auto& [label, p] : running_) running.push_back(p);
  // One column short of the width: a full line would wrap on some terminals and break Erase.
  const auto now = ProgressClock::now();
  const size_t width = TerminalWidth(out_) - 1;
  std::vector<std::string> lines = ProgressLines(running, now, width);
  lines.push_back(Cut(TallyLine(tally_, running.size(), Seconds(now - started_)), width));
  std::string text = drawn_ > 0 ? fmt::format("\x1b[{}F\x1b[J", drawn_) : "";
  for (const std::string& line : lines) text += line + "\n";
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
  drawn_ = lines.size();
}

void TtyProgress::Tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, kRedrawPeriod, [this] { return stop_; })) Redraw();
}

}  // namespace seqflow::cli
