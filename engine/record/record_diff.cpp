#include "engine/record/record_diff.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/base/xml.h"

namespace seqflow {
namespace {

// The per-sentence counts node `node` of run `run` attached; nullopt when it attached none or they
// are missing or malformed.
std::optional<SentenceStatsTable> SentenceCounts(const DiffSide& side, size_t run, const std::string& node) {
  const NodeRecord& recorded = side.record->runs[run].nodes.at(node);
  const AttachmentSpec* spec = side.record->Declared(recorded.kind).FindAttachment(AttachmentType::kSentenceCounts);
  if (spec == nullptr || side.sentences == nullptr) return std::nullopt;
  auto file = side.sentences->find(AttachmentFile(*side.record, run, node, spec->suffix));
  if (file == side.sentences->end()) return std::nullopt;
  Result<SentenceStatsTable> table = ParseSentenceStats(file->second);
  return table.ok() ? std::optional(std::move(table).value()) : std::nullopt;
}

// The paired test of `node` between the two runs; nullopt when their sentences do not pair up.
std::optional<SignificanceResult> TestNode(const DiffSide& a, size_t run_a, const DiffSide& b, size_t run_b,
                                           const std::string& node, const SignificanceOptions& test) {
  std::optional<SentenceStatsTable> ta = SentenceCounts(a, run_a, node), tb = SentenceCounts(b, run_b, node);
  if (!ta || !tb || ta->gold_fingerprint != tb->gold_fingerprint || ta->sentences.size() != tb->sentences.size())
    return std::nullopt;
  Result<SignificanceResult> result = PairedSignificance({{ta->sentences, tb->sentences}}, test);
  return result.ok() ? std::optional(*result) : std::nullopt;
}

const NodeRecord* FindNode(const RunRecord& run, const std::string& name) {
  auto found = run.nodes.find(name);
  return found == run.nodes.end() ? nullptr : &found->second;
}

// The keys of either map, in order.
template <class Map>
std::set<std::string> KeysOfEither(const Map& a, const Map& b) {
  std::set<std::string> keys;
  for (const auto& [key, value] : a) keys.insert(key);
  for (const auto& [key, value] : b) keys.insert(key);
  return keys;
}

void AddParamChanges(const RunRecord& a, const RunRecord& b, std::vector<ParamChange>& out) {
  for (const std::string& name : KeysOfEither(a.nodes, b.nodes)) {
    const NodeRecord* na = FindNode(a, name);
    const NodeRecord* nb = FindNode(b, name);
    std::vector<ParamChange> changes;
    if (!na || !nb || na->kind != nb->kind) changes.push_back({name, "kind", na ? na->kind : "", nb ? nb->kind : ""});
    if (na && nb) {
      for (const std::string& param : KeysOfEither(na->params, nb->params)) {
        auto va = na->params.find(param);
        auto vb = nb->params.find(param);
        const std::string text_a = va == na->params.end() ? "" : va->second;
        const std::string text_b = vb == nb->params.end() ? "" : vb->second;
        if (text_a != text_b) changes.push_back({name, param, text_a, text_b});
      }
    }
    for (ParamChange& change : changes)
      if (std::find(out.begin(), out.end(), change) == out.end()) out.push_back(std::move(change));
  }
}

// The headline metrics the evaluator `node` reports in either run, in headline order.
std::vector<std::string> HeadlineMetrics(const DiffSide& side, const NodeRecord* node, std::vector<std::string> out) {
  if (node == nullptr) return out;
  const RecordSpec& declared = side.record->Declared(node->kind);
  if (declared.role != NodeRole::kEvaluator) return out;
  for (const std::string& metric : declared.headline)
    for (const auto& [reported, value] : node->metrics)
      if ((reported == metric || (declared.per_system && reported.starts_with(metric + "."))) &&
          std::find(out.begin(), out.end(), reported) == out.end())
        out.push_back(reported);
  return out;
}

std::optional<double> MetricOf(const NodeRecord* node, const std::string& metric) {
  if (node == nullptr) return std::nullopt;
  auto found = node->metrics.find(metric);
  if (found == node->metrics.end() || !std::isfinite(found->second)) return std::nullopt;
  return found->second;
}

void AddMetricChanges(const DiffSide& a, size_t run_a, const DiffSide& b, size_t run_b, const SignificanceOptions& test,
                      std::vector<MetricChange>& out) {
  const RunRecord& ra = a.record->runs[run_a];
  const RunRecord& rb = b.record->runs[run_b];
  for (const std::string& name : KeysOfEither(ra.nodes, rb.nodes)) {
    const NodeRecord* na = FindNode(ra, name);
    const NodeRecord* nb = FindNode(rb, name);
    const std::vector<std::string> metrics = HeadlineMetrics(b, nb, HeadlineMetrics(a, na, {}));
    if (metrics.empty()) continue;
    std::optional<SignificanceResult> tested;
    if (na && nb) tested = TestNode(a, run_a, b, run_b, name, test);
    for (const std::string& metric : metrics) {
      MetricChange change{RunLabel(ra), name, metric, MetricOf(na, metric),
                          MetricOf(nb, metric), {}};
      const std::optional<Statistic> statistic = StatisticNamed(metric);
      if (tested && statistic) change.p = tested->p[static_cast<size_t>(*statistic)];
      out.push_back(std::move(change));
    }
  }
}

std::string ValueText(const std::optional<double>& v) { return v ? FixedText(*v, 4) : "-"; }

std::string DeltaText(const MetricChange& m) {
  if (!m.a || !m.b) return "-";
  return fmt::format("{:+.4f}", *m.b - *m.a);
}

std::string PText(const MetricChange& m) {
  ReportCell cell;
  cell.p = m.p;
  const std::string text = PValueText(cell);
  return text.empty() ? "" : text.substr(1);  // PValueText leads with a space
}

std::string SetsText(const std::vector<std::string>& sets) {
  std::string out;
  for (const std::string& set : sets) out += (out.empty() ? "" : " ") + set;
  return out.empty() ? "(none)" : out;
}

std::string ParamText(const std::string& v) { return v.empty() ? "(none)" : v; }

// The rows of the two tables, as cells, for the text, Markdown and HTML renderings.
std::vector<std::vector<std::string>> ParamRows(const RecordDiff& diff) {
  std::vector<std::vector<std::string>> rows;
  for (const ParamChange& c : diff.params) rows.push_back({c.node + "." + c.param, ParamText(c.a), ParamText(c.b)});
  return rows;
}

bool Unchanged(const MetricChange& m) { return m.a && m.b && *m.a == *m.b; }

// The metrics that differ (the tables for people leave out the ones equal in both; JSON has all).
std::vector<std::vector<std::string>> MetricRows(const RecordDiff& diff) {
  std::vector<std::vector<std::string>> rows;
  for (const MetricChange& m : diff.metrics)
    if (!Unchanged(m))
      rows.push_back({m.setting, m.node + "." + m.metric, ValueText(m.a), ValueText(m.b), DeltaText(m), PText(m)});
  return rows;
}

std::string EqualNote(const RecordDiff& diff) {
  const size_t equal = std::count_if(diff.metrics.begin(), diff.metrics.end(), Unchanged);
  return equal == 0 ? "" : fmt::format("{} of {} metrics are equal in both and not shown", equal, diff.metrics.size());
}

std::string Aligned(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = " ";
    for (size_t c = 0; c < cells.size(); ++c) out += " " + fmt::format("{:<{}}", cells[c], width[c]);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string MarkdownTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const std::string& cell : cells) {
      std::string escaped;
      for (char ch : cell) escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
      out += " " + escaped + " |";
    }
    return out + "\n";
  };
  std::string out = line(header) + "|";
  for (size_t c = 0; c < header.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string HtmlTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<tr>";
  for (const std::string& h : header) out += "<th>" + XmlEscape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& cell : row) out += "<td>" + XmlEscape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

const std::vector<std::string> kParamHeader = {"parameter", "A", "B"};
const std::vector<std::string> kMetricHeader = {"setting", "metric", "A", "B", "B - A", "p"};

std::string TestNote(const RecordDiff& diff) {
  return fmt::format("p: paired {} test on the same test sentences ({} samples); † p < {}",
                     diff.test.test == PairedTest::kBootstrap ? "bootstrap" : "approximate randomization",
                     diff.test.samples, FixedText(kSignificanceLevel, 2));
}

std::string Unpaired(const RecordDiff& diff) {
  std::string out;
  for (const std::string& s : diff.only_a) out += "  only in A: " + s + "\n";
  for (const std::string& s : diff.only_b) out += "  only in B: " + s + "\n";
  return out;
}

}  // namespace

RecordDiff DiffRecords(const DiffSide& a, const DiffSide& b, const SignificanceOptions& test) {
  RecordDiff diff;
  diff.a = a.name, diff.b = b.name;
  diff.a_pipeline = a.record->pipeline, diff.b_pipeline = b.record->pipeline;
  diff.a_sets = a.record->invocation.sets, diff.b_sets = b.record->invocation.sets;
  diff.test = test;
  std::vector<bool> b_paired(b.record->runs.size(), false);
  for (size_t ra = 0; ra < a.record->runs.size(); ++ra) {
    const std::string setting = SettingLabel(a.record->runs[ra].ablation);
    std::optional<size_t> partner;
    for (size_t rb = 0; rb < b.record->runs.size() && !partner; ++rb)
      if (!b_paired[rb] && SettingLabel(b.record->runs[rb].ablation) == setting) partner = rb;
    if (!partner) {
      diff.only_a.push_back(setting);
      continue;
    }
    b_paired[*partner] = true;
    AddParamChanges(a.record->runs[ra], b.record->runs[*partner], diff.params);
    AddMetricChanges(a, ra, b, *partner, test, diff.metrics);
  }
  for (size_t rb = 0; rb < b.record->runs.size(); ++rb)
    if (!b_paired[rb]) diff.only_b.push_back(SettingLabel(b.record->runs[rb].ablation));
  return diff;
}

std::string DiffText(const RecordDiff& diff) {
  std::string out = fmt::format("A: {} ({}; --set {})\nB: {} ({}; --set {})\n", diff.a, diff.a_pipeline,
                                SetsText(diff.a_sets), diff.b, diff.b_pipeline, SetsText(diff.b_sets));
  out += diff.params.empty() ? "\nno parameter differs\n" : "\nparameters that differ:\n" + Aligned(kParamHeader, ParamRows(diff));
  if (!diff.metrics.empty()) {
    const std::vector<std::vector<std::string>> rows = MetricRows(diff);
    if (!rows.empty()) out += "\nmetrics that differ:\n" + Aligned(kMetricHeader, rows) + "  " + TestNote(diff) + "\n";
    if (const std::string note = EqualNote(diff); !note.empty()) out += (rows.empty() ? "\n" : "  ") + note + "\n";
  }
  const std::string unpaired = Unpaired(diff);
  if (!unpaired.empty()) out += "\nruns without a partner (compared by their ablation setting):\n" + unpaired;
  return out;
}

std::string DiffMarkdown(const RecordDiff& diff) {
  std::string out = fmt::format("# {} vs {}\n\n- A: `{}` ({}), --set {}\n- B: `{}` ({}), --set {}\n\n", diff.a, diff.b,
                                diff.a, diff.a_pipeline, SetsText(diff.a_sets), diff.b, diff.b_pipeline,
                                SetsText(diff.b_sets));
  out += diff.params.empty() ? "No parameter differs.\n" : "## Parameters that differ\n\n" + MarkdownTable(kParamHeader, ParamRows(diff));
  if (!diff.metrics.empty())
    out += "\n## Metrics that differ\n\n" + MarkdownTable(kMetricHeader, MetricRows(diff)) + "\n" + TestNote(diff) +
           ". " + EqualNote(diff) + "\n";
  const std::string unpaired = Unpaired(diff);
  if (!unpaired.empty()) out += "\n## Runs without a partner\n\n" + unpaired;
  return out;
}

std::string DiffJson(const RecordDiff& diff) {
  nlohmann::json params = nlohmann::json::array(), metrics = nlohmann::json::array();
  for (const ParamChange& c : diff.params) params.push_back({{"node", c.node}, {"param", c.param}, {"a", c.a}, {"b", c.b}});
  auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  for (const MetricChange& m : diff.metrics)
    metrics.push_back({{"setting", m.setting},
                       {"node", m.node},
                       {"metric", m.metric},
                       {"a", number(m.a)},
                       {"b", number(m.b)},
                       {"delta", m.a && m.b ? nlohmann::json(*m.b - *m.a) : nlohmann::json(nullptr)},
                       {"p", number(m.p)}});
  nlohmann::json j = {{"a", {{"name", diff.a}, {"pipeline", diff.a_pipeline}, {"set", diff.a_sets}}},
                      {"b", {{"name", diff.b}, {"pipeline", diff.b_pipeline}, {"set", diff.b_sets}}},
                      {"params", params},
                      {"metrics", metrics},
                      {"only_a", diff.only_a},
                      {"only_b", diff.only_b}};
  return j.dump(2) + "\n";
}

std::string DiffHtml(const RecordDiff& diff) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<title>" + XmlEscape(diff.a + " vs " + diff.b) + "</title>\n<style>\n"
      "body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }\n"
      "table { border-collapse: collapse; font-size: 0.9em; }\n"
      "th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }\n"
      "</style></head><body>\n";
  out += "<h1>" + XmlEscape(diff.a + " vs " + diff.b) + "</h1>\n<ul><li>A: " +
         XmlEscape(diff.a + " (" + diff.a_pipeline + "), --set " + SetsText(diff.a_sets)) + "</li><li>B: " +
         XmlEscape(diff.b + " (" + diff.b_pipeline + "), --set " + SetsText(diff.b_sets)) + "</li></ul>\n";
  out += diff.params.empty() ? "<p>No parameter differs.</p>\n"
                             : "<h2>Parameters that differ</h2>\n" + HtmlTable(kParamHeader, ParamRows(diff));
  if (!diff.metrics.empty())
    out += "<h2>Metrics that differ</h2>\n" + HtmlTable(kMetricHeader, MetricRows(diff)) + "<p>" +
           XmlEscape(TestNote(diff) + ". " + EqualNote(diff)) + "</p>\n";
  const std::string unpaired = Unpaired(diff);
  if (!unpaired.empty()) out += "<h2>Runs without a partner</h2>\n<pre>" + XmlEscape(unpaired) + "</pre>\n";
  return out + "</body></html>\n";
}

}  // namespace seqflow
