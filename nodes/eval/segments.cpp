#include "nodes/eval/segments.h"

#include <unordered_map>

#include "stats/chunk_scores.h"

namespace seqflow {

namespace {

// Type ids: 0 is "", the rest in order of first use.
class TypeTable {
 public:
  TypeTable() : names_{""} { ids_.emplace("", 0); }
  int32_t Id(const std::string& name) {
    auto [it, inserted] = ids_.try_emplace(name, static_cast<int32_t>(names_.size()));
    if (inserted) names_.push_back(name);
    return it->second;
  }
  std::vector<std::string> Take() { return std::move(names_); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t> ids_;
};

// [label id] -> conlleval's reading of the label: prefix before the first '-', type after it.
std::vector<ChunkTag> PrefixedTags(const std::vector<std::string>& names, TypeTable* types) {
  std::vector<ChunkTag> tags;
  for (const auto& name : names) {
    size_t dash = name.find('-');
    if (dash == std::string::npos) {
      tags.push_back({ChunkPrefix(name), 0});
    } else {
      tags.push_back({ChunkPrefix(std::string_view(name).substr(0, dash)), types->Id(name.substr(dash + 1))});
    }
  }
  return tags;
}

ChunkCounts Minus(const ChunkCounts& a, const ChunkCounts& b) {
  return {a.gold - b.gold, a.predicted - b.predicted, a.correct - b.correct};
}
ChunkCounts Plus(const ChunkCounts& a, const ChunkCounts& b) {
  return {a.gold + b.gold, a.predicted + b.predicted, a.correct + b.correct};
}

double Precision(const ChunkCounts& c) { return ChunkPrecision(c.correct, c.predicted); }
double Recall(const ChunkCounts& c) { return ChunkRecall(c.correct, c.gold); }
double F1(const ChunkCounts& c) { return ChunkF1(c.correct, c.predicted, c.gold); }

// A run starts where the label differs from the one before it.
ChunkTag RunTag(const std::vector<int32_t>& seq, size_t t, const std::vector<int32_t>& type_of) {
  bool starts = t == 0 || seq[t] != seq[t - 1];
  return {starts ? 'B' : 'I', type_of[seq[t]]};
}

}  // namespace

Result<SegmentScores> ScoreSegments(const AlignedLabels& labels, TagEncoding encoding) {
  if (encoding == TagEncoding::kNone) return Status::Invalid("segments need a tag encoding (iob1, iob2 or runs)");
  TypeTable types;
  std::vector<ChunkTag> prefixed;
  std::vector<int32_t> run_type;
  if (encoding == TagEncoding::kRuns) {
    for (const auto& name : labels.names) run_type.push_back(types.Id(name));
  } else {
    prefixed = PrefixedTags(labels.names, &types);
  }
  SegmentScores scores;
  scores.types = types.Take();
  ChunkCounter counter(scores.types.size());
  ChunkCounts seen;  // totals before the current sentence
  for (size_t s = 0; s < labels.gold.size(); ++s) {
    const auto& gold = labels.gold[s];
    const auto& predicted = labels.predicted[s];
    for (size_t t = 0; t < gold.size(); ++t) {
      if (encoding == TagEncoding::kRuns) {
        counter.Add(RunTag(gold, t, run_type), RunTag(predicted, t, run_type));
      } else {
        counter.Add(prefixed[gold[t]], prefixed[predicted[t]]);
      }
    }
    counter.Boundary();
    ChunkCounts now = counter.Total();
    scores.per_sentence.push_back(Minus(now, seen));
    seen = now;
  }
  counter.Finish();
  scores.per_type = counter.per_type();
  scores.total = counter.Total();
  // Only a prefix-less chunk survives a boundary; Finish credits it to the last sentence.
  if (!scores.per_sentence.empty())
    scores.per_sentence.back() = Plus(scores.per_sentence.back(), Minus(scores.total, seen));
  scores.tokens = ScoreTokens(labels);
  return scores;
}

std::map<std::string, double> SegmentMetrics(const SegmentScores& scores) {
  std::map<std::string, double> m;
  m["precision"] = Precision(scores.total);
  m["recall"] = Recall(scores.total);
  m["f1"] = F1(scores.total);
  m["accuracy"] = scores.tokens.accuracy();
  m["sentence_accuracy"] = scores.tokens.sentence_accuracy();
  m["tokens"] = static_cast<double>(scores.tokens.tokens);
  m["gold_segments"] = static_cast<double>(scores.total.gold);
  m["predicted_segments"] = static_cast<double>(scores.total.predicted);
  m["correct_segments"] = static_cast<double>(scores.total.correct);
  for (size_t t = 1; t < scores.types.size(); ++t) {
    const ChunkCounts& c = scores.per_type[t];
    if (c.gold == 0 && c.predicted == 0) continue;
    m["precision." + scores.types[t]] = Precision(c);
    m["recall." + scores.types[t]] = Recall(c);
    m["f1." + scores.types[t]] = F1(c);
  }
  return m;
}

}  // namespace seqflow
