#include "datasets/field_corpus.h"

#include <utility>

namespace seqflow {
namespace {

// The model's vocabularies are part of its definition, not of a sample: one fixed seed.
constexpr uint64_t kModelSeed = 20080621;

struct FieldRow {
  const char* name;
  double single;  // P(segment is one token)
  double stay;    // P(body -> body): body length is geometric with mean 1 / (1 - stay)
  const char* body_marks;
  double body_mark_p;
  const char* last_marks;
  double last_mark_p;
  std::vector<std::pair<Pool, double>> mix;  // emission mixture over pools
};

// Mean segment lengths: author ~5.8, title ~8.5, editor ~4.8, venue ~5.1, pages ~1.9,
// year ~1.2, note ~3.0 tokens.
const std::vector<FieldRow>& FieldTable() {
  // clang-format off
  static const std::vector<FieldRow> kRows = {
      {"author", 0.05, 0.80, ",", 0.30, ".,", 0.85,
       {{Pool::kInitial, 0.38}, {Pool::kSurname, 0.46}, {Pool::kConnective, 0.13}, {Pool::kTitleWord, 0.03}}},
      {"title", 0.02, 0.87, ":,", 0.04, ".,", 0.80,
       {{Pool::kTitleWord, 0.58}, {Pool::kFunction, 0.24}, {Pool::kTopic, 0.14}, {Pool::kSurname, 0.04}}},
      {"editor", 0.05, 0.75, ",", 0.30, ",.", 0.85,
       {{Pool::kInitial, 0.30}, {Pool::kSurname, 0.34}, {Pool::kConnective, 0.10}, {Pool::kEditorWord, 0.22},
        {Pool::kVenueWord, 0.04}}},
      {"venue", 0.10, 0.78, ",", 0.06, ",.", 0.75,
       {{Pool::kVenueWord, 0.46}, {Pool::kTopic, 0.18}, {Pool::kFunction, 0.13}, {Pool::kNumber, 0.10},
        {Pool::kYear, 0.04}, {Pool::kSurname, 0.05}, {Pool::kTitleWord, 0.04}}},
      {"pages", 0.40, 0.30, "", 0.0, ",.", 0.60,
       {{Pool::kPageWord, 0.35}, {Pool::kPageRange, 0.50}, {Pool::kNumber, 0.15}}},
      {"year", 0.85, 0.20, "", 0.0, ".,", 0.75, {{Pool::kYear, 0.90}, {Pool::kNumber, 0.05}, {Pool::kNoteWord, 0.05}}},
      {"note", 0.20, 0.60, "", 0.0, ".", 0.70,
       {{Pool::kNoteWord, 0.55}, {Pool::kFunction, 0.20}, {Pool::kYear, 0.10}, {Pool::kTitleWord, 0.10},
        {Pool::kVenueWord, 0.05}}},
  };
  // clang-format on
  return kRows;
}

// Segment chain, "mostly in order". Rows: the field just finished (last row: sentence start);
// columns: the next field (last column: end of sentence). The diagonal is zero, so adjacent
// segments always differ in field and the `runs` encoding recovers them exactly.
const std::vector<std::vector<double>>& ChainTable() {
  // clang-format off
  //                                           author title editor venue pages year  note  END
  static const std::vector<std::vector<double>> kNext = {
      /* author */ {0.00, 0.93, 0.00, 0.03, 0.00, 0.04, 0.00, 0.00},
      /* title  */ {0.00, 0.00, 0.12, 0.60, 0.02, 0.12, 0.04, 0.10},
      /* editor */ {0.00, 0.00, 0.00, 0.90, 0.00, 0.05, 0.00, 0.05},
      /* venue  */ {0.00, 0.00, 0.00, 0.00, 0.45, 0.38, 0.05, 0.12},
      /* pages  */ {0.00, 0.00, 0.00, 0.00, 0.00, 0.75, 0.05, 0.20},
      /* year   */ {0.00, 0.00, 0.00, 0.00, 0.05, 0.00, 0.15, 0.80},
      /* note   */ {0.00, 0.00, 0.00, 0.00, 0.00, 0.15, 0.00, 0.85},
      /* start  */ {0.90, 0.10, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00},
  };
  // clang-format on
  return kNext;
}

}  // namespace

FieldCorpusModel::FieldCorpusModel() {
  Rng rng(kModelSeed);
  pools_ = BuildWordPools(rng);
  for (const FieldRow& row : FieldTable()) {
    std::vector<double> mix(kNumPools, 0.0);
    for (const auto& [pool, weight] : row.mix) mix[static_cast<int>(pool)] = weight;
    field_names_.push_back(row.name);
    fields_.push_back(Field{CumulativeSums(mix), row.single, row.stay, row.body_marks, row.body_mark_p, row.last_marks,
                            row.last_mark_p});
  }
  for (const auto& row : ChainTable()) next_cdf_.push_back(CumulativeSums(row));
}

FieldSentence FieldCorpusModel::Sample(Rng& rng) const {
  const int end = static_cast<int>(fields_.size());
  FieldSentence sentence;
  int field = static_cast<int>(SampleFromCdf(next_cdf_[end], rng));
  while (field != end) {
    AppendSegment(field, rng, &sentence);
    field = static_cast<int>(SampleFromCdf(next_cdf_[field], rng));
  }
  return sentence;
}

void FieldCorpusModel::AppendSegment(int field, Rng& rng, FieldSentence* out) const {
  const Field& f = fields_[field];
  auto emit = [&](bool last) {
    out->words.push_back(Word(f, last, rng));
    out->fields.push_back(field);
  };
  if (!Bernoulli(f.single, rng)) {
    do {
      emit(false);
    } while (Bernoulli(f.stay, rng));
  }
  emit(true);
}

std::string FieldCorpusModel::Word(const Field& field, bool last, Rng& rng) const {
  const WordPool& pool = pools_[SampleFromCdf(field.pool_cdf, rng)];
  std::string word = pool.words[SampleFromCdf(pool.cdf, rng)];
  const std::string& marks = last ? field.last_marks : field.body_marks;
  const double mark_p = last ? field.last_mark_p : field.body_mark_p;
  // Always draw, so the stream does not depend on which words end in '.'.
  const bool mark = Bernoulli(mark_p, rng);
  if (mark && !marks.empty() && word.back() != '.') word += marks[UniformIndex(marks.size(), rng)];
  return word;
}

std::vector<FieldSentence> SampleFieldCorpus(const FieldCorpusModel& model, uint64_t seed, FieldSplit split, size_t n) {
  Rng rng = ShardRng(seed, static_cast<uint64_t>(split));
  std::vector<FieldSentence> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(model.Sample(rng));
  return out;
}

std::string FormatFieldConll(const std::vector<FieldSentence>& sentences, const std::vector<std::string>& field_names) {
  std::string out;
  for (const FieldSentence& s : sentences) {
    for (size_t t = 0; t < s.words.size(); ++t) out += s.words[t] + '\t' + field_names[s.fields[t]] + '\n';
    out += '\n';
  }
  return out;
}

std::string FormatFieldText(const std::vector<FieldSentence>& sentences) {
  std::string out;
  for (const FieldSentence& s : sentences) {
    for (size_t t = 0; t < s.words.size(); ++t) out += (t ? " " : "") + s.words[t];
    out += '\n';
  }
  return out;
}

}  // namespace seqflow
