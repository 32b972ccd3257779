#include "engine/record/report_significance.h"

#include <tuple>

#include "engine/record/summary.h"

namespace seqflow::report {
namespace {

constexpr const char kSentencesSuffix[] = "sentences.csv";

// The parsed sentences.csv of (run, node), memoised; null when missing or malformed.
class StatsCache {
 public:
  StatsCache(const SentenceFiles& files, size_t num_runs) : files_(files), num_runs_(num_runs) {}

  const SentenceStatsTable* Get(size_t run, const std::string& node) {
    auto [it, inserted] = parsed_.try_emplace({run, node});
    if (inserted) {
      auto file = files_.find(AttachmentPath(run, num_runs_, node, kSentencesSuffix));
      if (file != files_.end())
        if (Result<SentenceStatsTable> table = ParseSentenceStats(file->second); table.ok()) it->second = *table;
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  const SentenceFiles& files_;
  size_t num_runs_;
  std::map<std::pair<size_t, std::string>, std::optional<SentenceStatsTable>> parsed_;
};

struct Tested {
  SignificanceResult result;
  bool segments = true;  // every paired table has the segment columns
};

// The test of `node` between two rows, seed by seed; nullopt when they cannot be paired.
std::optional<Tested> TestRows(const RowRepeats& a, const RowRepeats& b, const std::string& node,
                               const SignificanceOptions& options, StatsCache& cache) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  std::vector<PairedScores> strata;
  Tested tested;
  for (const auto& [id, run_a] : *a) {
    auto run_b = b->find(id);
    if (run_b == b->end()) return std::nullopt;
    const SentenceStatsTable* ta = cache.Get(run_a, node);
    const SentenceStatsTable* tb = cache.Get(run_b->second, node);
    if (ta == nullptr || tb == nullptr || ta->gold_fingerprint != tb->gold_fingerprint ||
        ta->sentences.size() != tb->sentences.size())
      return std::nullopt;
    tested.segments = tested.segments && ta->segments && tb->segments;
    strata.push_back({ta->sentences, tb->sentences});
  }
  Result<SignificanceResult> result = PairedSignificance(strata, options);
  if (!result.ok()) return std::nullopt;
  tested.result = *result;
  return tested;
}

std::optional<size_t> BestRow(const ReportTable& table, size_t column) {
  for (size_t r = 0; r < table.rows.size(); ++r)
    if (table.rows[r].cells[column] && table.rows[r].cells[column]->best) return r;
  return std::nullopt;
}

}  // namespace

void AddPValues(const nlohmann::json& runs, const std::vector<RowRepeats>& rows, const SentenceFiles& files,
                ReportTable& table) {
  if (files.empty()) return;
  StatsCache cache(files, runs.size());
  std::map<std::tuple<std::string, size_t, size_t>, std::optional<Tested>> tests;  // (node, best, row)
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const std::string& column = table.columns[c];
    size_t dot = column.rfind('.');
    std::string node = column.substr(0, dot);
    std::optional<Statistic> statistic = StatisticNamed(column.substr(dot + 1));
    std::optional<size_t> best = BestRow(table, c);
    if (!statistic || !best) continue;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      std::optional<ReportCell>& cell = table.rows[r].cells[c];
      if (r == *best || !cell) continue;
      auto [it, inserted] = tests.try_emplace({node, *best, r});
      if (inserted) it->second = TestRows(rows[*best], rows[r], node, table.test, cache);
      const std::optional<Tested>& tested = it->second;
      if (!tested || (!tested->segments && *statistic != Statistic::kAccuracy)) continue;
      cell->p = tested->result.p[static_cast<size_t>(*statistic)];
      table.has_p = true;
    }
  }
}

}  // namespace seqflow::report
