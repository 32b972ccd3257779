// The sentences.csv attachment (format in significance.h).
#include <charconv>

#include "stats/significance.h"

namespace seqflow {
namespace {

constexpr std::string_view kGoldPrefix = "# gold ";
constexpr std::string_view kSegmentHeader = "correct,guessed,gold,correct_tokens,tokens";
constexpr std::string_view kTokenHeader = "correct_tokens,tokens";

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

// Comma-separated non-negative integers; nullopt unless exactly `want` of them.
std::optional<std::vector<int64_t>> Fields(std::string_view line, size_t want) {
  std::vector<int64_t> out;
  const char* p = line.data();
  const char* end = line.data() + line.size();
  while (out.size() < want) {
    int64_t v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || v < 0) return std::nullopt;
    out.push_back(v);
    p = next;
    if (p == end) break;
    if (*p++ != ',') return std::nullopt;
  }
  if (out.size() != want || p != end) return std::nullopt;
  return out;
}

Status BadLine(size_t index, const std::string& what) {
  return Status::Invalid("sentences.csv line " + std::to_string(index + 1) + ": " + what);
}

}  // namespace

std::string FormatSentenceStats(const SentenceStatsTable& table) {
  std::string out = std::string(kGoldPrefix) + table.gold_fingerprint + "\n";
  out += std::string(table.segments ? kSegmentHeader : kTokenHeader) + "\n";
  for (const SentenceStats& s : table.sentences) {
    if (table.segments)
      out += std::to_string(s.correct) + "," + std::to_string(s.guessed) + "," + std::to_string(s.gold) + ",";
    out += std::to_string(s.correct_tokens) + "," + std::to_string(s.tokens) + "\n";
  }
  return out;
}

Result<SentenceStatsTable> ParseSentenceStats(std::string_view text) {
  std::vector<std::string_view> lines = Lines(text);
  if (lines.size() < 2 || lines[0].substr(0, kGoldPrefix.size()) != kGoldPrefix)
    return BadLine(0, "expected '# gold FINGERPRINT' then a header");
  SentenceStatsTable table;
  table.gold_fingerprint = std::string(lines[0].substr(kGoldPrefix.size()));
  if (lines[1] != kSegmentHeader && lines[1] != kTokenHeader)
    return BadLine(1,
                   "expected the header '" + std::string(kSegmentHeader) + "' or '" + std::string(kTokenHeader) + "'");
  table.segments = lines[1] == kSegmentHeader;
  for (size_t i = 2; i < lines.size(); ++i) {
    std::optional<std::vector<int64_t>> v = Fields(lines[i], table.segments ? 5 : 2);
    if (!v) return BadLine(i, "expected " + std::string(table.segments ? "5" : "2") + " non-negative integers");
    SentenceStats s;
    if (table.segments) s.correct = (*v)[0], s.guessed = (*v)[1], s.gold = (*v)[2];
    s.correct_tokens = v->end()[-2], s.tokens = v->back();
    table.sentences.push_back(s);
  }
  return table;
}

}  // namespace seqflow
