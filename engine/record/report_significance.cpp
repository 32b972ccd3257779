#include "engine/record/report_significance.h"

#include <tuple>

namespace seqflow::report {
namespace {

// The parsed per-sentence counts of (run, node), memoised; null when the node's kind declares
// none or its file is missing or malformed.
class StatsCache {
 public:
  StatsCache(const PipelineRecord& record, const SentenceFiles& files) : record_(record), files_(files) {}

  const SentenceStatsTable* Get(size_t run, const std::string& node) {
    auto [it, inserted] = parsed_.try_emplace({run, node});
    if (inserted) it->second = Parse(run, node);
    return it->second ? &*it->second : nullptr;
  }

 private:
  std::optional<SentenceStatsTable> Parse(size_t run, const std::string& node) const {
    auto found = record_.runs[run].nodes.find(node);
    if (found == record_.runs[run].nodes.end()) return std::nullopt;
    const AttachmentSpec* spec = record_.Declared(found->second.kind).FindAttachment(AttachmentType::kSentenceCounts);
    if (spec == nullptr) return std::nullopt;
    auto file = files_.find(AttachmentFile(record_, run, node, spec->suffix));
    if (file == files_.end()) return std::nullopt;
    Result<SentenceStatsTable> table = ParseSentenceStats(file->second);
    return table.ok() ? std::optional(std::move(table).value()) : std::nullopt;
  }

  const PipelineRecord& record_;
  const SentenceFiles& files_;
  std::map<std::pair<size_t, std::string>, std::optional<SentenceStatsTable>> parsed_;
};

struct Tested {
  SignificanceResult result;
  bool segments = true;  // every paired table has the segment columns
};

// The test of node `node_a` of row a against `node_b` of row b, seed by seed; nullopt when they
// cannot be paired.
std::optional<Tested> TestRows(const RowRepeats& a, const std::string& node_a, const RowRepeats& b,
                               const std::string& node_b, const SignificanceOptions& options, StatsCache& cache) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  std::vector<PairedScores> strata;
  Tested tested;
  for (const auto& [id, run_a] : *a) {
    auto run_b = b->find(id);
    if (run_b == b->end()) return std::nullopt;
    const SentenceStatsTable* ta = cache.Get(run_a, node_a);
    const SentenceStatsTable* tb = cache.Get(run_b->second, node_b);
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

// The first row with the highest mean of `column` among the rows with a source.
std::optional<size_t> ReferenceRow(const ReportTable& table, size_t column, const CellSourceOf& source) {
  std::optional<size_t> best;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const std::optional<ReportCell>& cell = table.rows[r].cells[column];
    if (cell && source(r, column) && (!best || cell->mean > table.rows[*best].cells[column]->mean)) best = r;
  }
  return best;
}

}  // namespace

void AddPValues(const PipelineRecord& record, const std::vector<RowRepeats>& rows, const CellSourceOf& source,
                const SentenceFiles& files, ReportTable& table) {
  if (files.empty()) return;
  StatsCache cache(record, files);
  // (reference row, its node, row, its node) -> the test
  std::map<std::tuple<size_t, std::string, size_t, std::string>, std::optional<Tested>> tests;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    std::optional<size_t> best = ReferenceRow(table, c, source);
    if (!best) continue;
    const std::string best_node = source(*best, c)->node;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      std::optional<ReportCell>& cell = table.rows[r].cells[c];
      std::optional<CellSource> from = source(r, c);
      std::optional<Statistic> statistic = from ? StatisticNamed(from->metric) : std::nullopt;
      if (r == *best || !cell || !statistic) continue;
      auto [it, inserted] = tests.try_emplace({*best, best_node, r, from->node});
      if (inserted) it->second = TestRows(rows[*best], best_node, rows[r], from->node, table.test, cache);
      const std::optional<Tested>& tested = it->second;
      if (!tested || (!tested->segments && *statistic != Statistic::kAccuracy)) continue;
      cell->p = tested->result.p[static_cast<size_t>(*statistic)];
      table.has_p = true;
    }
  }
}

}  // namespace seqflow::report
